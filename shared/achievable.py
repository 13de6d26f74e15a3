"""The achievable optimal lap: segments of laps actually driven, joined only where two laps agree.

The lap is cut at the boundaries of the corner segmentation (every corner's start and end, the same
corner zones the ``corner_results`` are measured on), so its pieces are the corners and the stretches
between them. Each boundary is a gate across the fastest valid lap's own path (GPS); every valid lap's
crossing of it gives its time from the line, speed, heading and lateral offset along the gate.

* **Theoretical best:** each piece's best time over the valid laps, added up (any lap may follow any).
* **Achievable lap:** the fastest chain of pieces in which a change of lap happens only at a gate where
  both laps were in the same state: speed, heading and lateral offset within the tolerances below. A
  dynamic programme over the gates finds it (time first, then fewer joins).

Both search the same pieces, so theoretical <= achievable <= best lap by construction: the best lap
itself is a chain without joins. Out, in and invalid laps are never passed in (``valid_full``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.geo import LocalProjection
from shared.resample import line_to_line

Wide = Mapping[str, np.ndarray]

# ---- when two laps "agree" at a gate: the only place these tolerances live --------------------------
# Speed: GPS Doppler speed is good to ~0.2 km/h, so 2 km/h is a real but small difference; a speed gap
# the join hides is worth at most ~0.05 s over the next 100 m at 90 km/h (L * dv / v^2).
SPEED_TOL_KMH = 2.0
# Heading: lap-to-lap heading on one line agrees within ~1 deg (chord over +-5 m of travel); 3 deg
# is a different line: over the next 20 m it moves the car ~1 m sideways.
HEADING_TOL_DEG = 3.0
# Lateral offset along the gate: a car width is ~1.8 m and lap-to-lap GPS drift ~0.3-0.5 m; 1 m apart
# is the same line, more is a different one.
OFFSET_TOL_M = 1.0

JOIN_PENALTY_S = 1e-3  # a join must gain over a millisecond (ties and noise: stay on the lap)
GATE_HALF_M = 20.0  # a crossing further than this from the reference path is beside the gate
GATE_WINDOW_M = 150.0  # and it must be this close to where the lap's own distance puts the gate
CHORD_M = 5.0  # heading from the path this far either side of the crossing
MIN_PIECE_M = 5.0  # boundaries closer than this are one


@dataclass(frozen=True)
class Join:
    at_m: float
    from_lap: int
    to_lap: int
    d_speed_kmh: float  # from_lap minus to_lap at the gate
    d_heading_deg: float
    d_offset_m: float
    gate: tuple[float, float, float]  # (lat, lon, heading deg) of the gate line, to check it from raw data


@dataclass(frozen=True)
class Piece:
    lap: int
    from_m: float
    to_m: float
    time_s: float


@dataclass
class Achievable:
    time_s: float
    theoretical_s: float
    best_lap: int
    best_lap_s: float
    pieces: list[Piece]
    joins: list[Join]
    stations_m: list[float]  # 0, the gates, the lap's length (reference lap distance)
    gates_checked: int  # gates where at least two laps could be compared (GPS and speed there)
    laps: list[int] = field(default_factory=list)
    crossings: Crossings | None = None  # the measurements behind it (the stitched trace reads them)


@dataclass
class Crossings:
    """Per lap (rows) and station (columns): time from the line; per lap and gate: the state there."""

    laps: list[int]
    time_s: np.ndarray  # (n, G + 2): 0 at the line, each gate, the lap time at the end
    speed_kmh: np.ndarray  # (n, G)
    heading_deg: np.ndarray  # (n, G)
    offset_m: np.ndarray  # (n, G), right of the reference path positive
    stations_m: np.ndarray  # (G + 2,)
    gate_latlon: np.ndarray  # (G, 2): where each gate crosses the reference path
    gate_heading_deg: np.ndarray  # (G,): the reference path's direction of travel there

    def comparable(self) -> np.ndarray:
        """(n, G): the lap's state at the gate was measured (GPS crossing and speed)."""
        return np.isfinite(self.speed_kmh) & np.isfinite(self.heading_deg) & np.isfinite(self.offset_m)


def valid_full(laps: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The laps that may contribute: full laps judged valid (never out, in or pit laps)."""
    return [lp for lp in laps if lp.get("kind") == "full" and bool(lp.get("valid"))]


def boundaries(corners: Iterable[Mapping[str, Any]], length_m: float) -> list[float]:
    """Gate distances from corner zones (``start_m``/``end_m``): sorted, inside the lap, near ones merged."""
    marks = sorted(
        float(c[k])
        for c in corners
        for k in ("start_m", "end_m")
        if c.get(k) is not None and np.isfinite(float(c[k]))
    )
    out: list[float] = []
    for m in marks:
        if MIN_PIECE_M <= m <= length_m - MIN_PIECE_M and (not out or m - out[-1] >= MIN_PIECE_M):
            out.append(m)
    return out


def _lap_rows(wide: Wide, lap: Mapping[str, Any]) -> np.ndarray:
    t = wide["t_s"]
    return np.flatnonzero((wide["lap"] == lap["lap"]) & (t >= lap["t_start_s"]) & (t <= lap["t_end_s"]))


def _xy(wide: Wide, proj: LocalProjection | None, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if proj is None:
        return np.full(len(idx), np.nan), np.full(len(idx), np.nan)
    x, y = proj.xy(wide["lat"][idx], wide["lon"][idx])
    return np.asarray(x, float), np.asarray(y, float)


def _fresh(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Rows with a new GPS fix (a fix held on later rows by a slower GPS is no new position)."""
    ok = np.isfinite(x) & np.isfinite(y)
    new = np.concatenate([[True], (np.diff(x) != 0) | (np.diff(y) != 0)])
    return ok & new


def _gates(
    d: np.ndarray, x: np.ndarray, y: np.ndarray, at: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(point (G, 2), unit direction of travel (G, 2), usable (G,)) of gates at ``at`` on a path."""
    if len(d) < 2:
        g = len(at)
        return np.full((g, 2), np.nan), np.full((g, 2), np.nan), np.zeros(g, bool)
    px, py = np.interp(at, d, x), np.interp(at, d, y)
    hx = np.interp(at + CHORD_M, d, x) - np.interp(at - CHORD_M, d, x)
    hy = np.interp(at + CHORD_M, d, y) - np.interp(at - CHORD_M, d, y)
    n = np.hypot(hx, hy)
    ok = n > 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.stack([hx / n, hy / n], axis=1)
    return np.stack([px, py], axis=1), h, ok


def crossings(wide: Wide, laps: Sequence[Mapping[str, Any]], gates_m: Sequence[float]) -> Crossings:
    """Every lap's time, speed, heading and lateral offset at each gate. The reference path is the
    fastest lap's; where a lap's crossing is not found (no GPS there) its time comes from its lap
    distance and the gate cannot join (its state there is NaN)."""
    ref = min(laps, key=lambda lp: float(lp["time_s"]))
    lat, lon = wide.get("lat"), wide.get("lon")
    proj = None
    if lat is not None and lon is not None and (np.isfinite(lat) & np.isfinite(lon)).any():
        proj = LocalProjection(float(np.nanmedian(lat)), float(np.nanmedian(lon)))
    at = np.asarray(gates_m, float)
    n_g = len(at)
    ri = _lap_rows(wide, ref)
    rx, ry = _xy(wide, proj, ri)
    f = _fresh(rx, ry)
    rd = wide["dist_m"][ri][f] + np.arange(int(f.sum())) * 1e-6
    gp, gh, g_ok = _gates(rd, rx[f], ry[f], at)
    ref_len = float(np.nanmax(wide["dist_m"][ri])) if len(ri) else float(at[-1] if n_g else 1.0)
    n = len(laps)
    tm = np.zeros((n, n_g + 2))
    spd, hdg, off = (np.full((n, n_g), np.nan) for _ in range(3))
    for i, lp in enumerate(laps):
        idx = _lap_rows(wide, lp)
        lap_t = float(lp["time_s"])
        tm[i, -1] = lap_t
        d_all = wide["dist_m"][idx]
        lap_len = float(np.nanmax(d_all)) if len(idx) else ref_len
        # fallback time at each gate: from the lap's own distance (scaled to the reference lap's)
        td, tt = line_to_line(
            wide["t_s"][idx], d_all, wide.get("speed_kmh", np.full(len(wide["t_s"]), np.nan))[idx],
            float(lp["t_start_s"]), float(lp["t_end_s"]),
        )  # fmt: skip
        expect = at * (lap_len / ref_len if ref_len > 0 else 1.0)
        fallback = np.interp(expect, td + np.arange(len(td)) * 1e-6, tt)
        tm[i, 1:-1] = fallback
        if proj is None or n_g == 0 or len(idx) < 3:
            continue
        x, y = _xy(wide, proj, idx)
        fr = _fresh(x, y)
        if fr.sum() < 3:
            continue
        x, y, t, d = x[fr], y[fr], wide["t_s"][idx][fr], d_all[fr]
        rel_x, rel_y = x[:, None] - gp[:, 0], y[:, None] - gp[:, 1]
        along = rel_x * gh[:, 0] + rel_y * gh[:, 1]  # (samples, G)
        across = rel_x * gh[:, 1] - rel_y * gh[:, 0]  # right of travel positive
        a0, a1 = along[:-1], along[1:]
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(a1 != a0, -a0 / (a1 - a0), 0.0)
        lateral = across[:-1] + frac * (across[1:] - across[:-1])
        near = np.abs(d[:-1, None] - expect[None, :])
        cand = (a0 < 0) & (a1 >= 0) & (np.abs(lateral) <= GATE_HALF_M) & (near <= GATE_WINDOW_M) & g_ok
        cand &= (np.diff(t) <= 2.0)[:, None]  # a GPS gap: no honest interpolation
        j = np.argmin(np.where(cand, near, np.inf), axis=0)
        found = cand[j, np.arange(n_g)]
        k = np.arange(n_g)
        fj = frac[j, k]
        tc = t[j] + fj * (t[j + 1] - t[j]) - float(lp["t_start_s"])
        vc = np.full(n_g, np.nan)
        v = wide.get("speed_kmh")
        okv = np.isfinite(v[idx]) if v is not None else np.zeros(len(idx), bool)
        if v is not None and okv.sum() > 1:
            vc = np.interp(tc + float(lp["t_start_s"]), wide["t_s"][idx][okv], v[idx][okv])
        # heading: the chord of the lap's own path CHORD_M either side of the crossing
        s = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))]) + np.arange(len(x)) * 1e-9
        sc = s[j] + fj * (s[j + 1] - s[j])
        dx = np.interp(sc + CHORD_M, s, x) - np.interp(sc - CHORD_M, s, x)
        dy = np.interp(sc + CHORD_M, s, y) - np.interp(sc - CHORD_M, s, y)
        times = np.where(found, tc, fallback)
        # times along the lap must increase from 0 to the lap time: a crossing that breaks the order is
        # not trusted (its fallback time, and no join there)
        chain = np.concatenate([[0.0], times, [lap_t]])
        bad = (np.diff(chain)[:-1] <= 0) | (np.diff(chain)[1:] <= 0)
        found &= ~bad
        tm[i, 1:-1] = np.where(found, tc, fallback)
        spd[i] = np.where(found, vc, np.nan)
        hdg[i] = np.where(found, np.degrees(np.arctan2(dx, dy)), np.nan)
        off[i] = np.where(found, lateral[j, k], np.nan)
    glat, glon = proj.latlon(gp[:, 0], gp[:, 1]) if proj is not None else (at * np.nan, at * np.nan)
    return Crossings(
        [int(lp["lap"]) for lp in laps],
        tm,
        spd,
        hdg,
        off,
        np.concatenate([[0.0], at, [ref_len]]),
        np.stack([np.asarray(glat, float), np.asarray(glon, float)], axis=1).reshape(n_g, 2),
        np.degrees(np.arctan2(gh[:, 0], gh[:, 1])) % 360.0,
    )


def mismatch(c: Crossings, gate: int, a: int, b: int) -> tuple[float, float, float]:
    """(Δspeed km/h, Δheading deg, Δoffset m) of laps ``a`` and ``b`` (row indices) at ``gate``."""
    dh = (c.heading_deg[a, gate] - c.heading_deg[b, gate] + 180.0) % 360.0 - 180.0
    return (
        float(c.speed_kmh[a, gate] - c.speed_kmh[b, gate]),
        float(dh),
        float(c.offset_m[a, gate] - c.offset_m[b, gate]),
    )


def agree(c: Crossings, gate: int) -> np.ndarray:
    """(n, n): the laps may be joined at ``gate`` (both measured, all three within tolerance)."""
    ok = c.comparable()[:, gate]
    dv = np.abs(c.speed_kmh[:, gate, None] - c.speed_kmh[None, :, gate])
    dh = np.abs((c.heading_deg[:, gate, None] - c.heading_deg[None, :, gate] + 180.0) % 360.0 - 180.0)
    do = np.abs(c.offset_m[:, gate, None] - c.offset_m[None, :, gate])
    with np.errstate(invalid="ignore"):
        same = (dv <= SPEED_TOL_KMH) & (dh <= HEADING_TOL_DEG) & (do <= OFFSET_TOL_M)
    return same & ok[:, None] & ok[None, :]


def solve(c: Crossings) -> tuple[list[int], float]:
    """The chain of lap rows, one per piece, with the least time (then the fewest joins); its time."""
    seg = np.diff(c.time_s, axis=1)  # (n, pieces)
    n, pieces = seg.shape
    eye = np.eye(n, dtype=bool)
    cost = seg[:, 0].copy()
    back = np.zeros((pieces, n), dtype=int)
    back[0] = np.arange(n)
    for k in range(1, pieces):
        allowed = agree(c, k - 1) | eye
        step = np.where(allowed, np.where(eye, 0.0, JOIN_PENALTY_S), np.inf)
        total = cost[:, None] + step  # from row i (previous piece) to row j (this piece)
        back[k] = np.argmin(total, axis=0)
        cost = total[back[k], np.arange(n)] + seg[:, k]
    j = int(np.argmin(cost))
    chain = [j]
    for k in range(pieces - 1, 0, -1):
        j = int(back[k, j])
        chain.append(j)
    chain.reverse()
    return chain, float(seg[chain, np.arange(pieces)].sum())


def achievable_lap(
    wide: Wide, laps: Sequence[Mapping[str, Any]], corners: Iterable[Mapping[str, Any]]
) -> Achievable | None:
    """The achievable lap of a session's valid full laps (None without one). ``corners``: the corner
    zones (``start_m``, ``end_m``) whose boundaries cut the lap."""
    good = valid_full(laps)
    if not good:
        return None
    ref = min(good, key=lambda lp: float(lp["time_s"]))
    ri = _lap_rows(wide, ref)
    length = float(np.nanmax(wide["dist_m"][ri])) if len(ri) else 0.0
    c = crossings(wide, good, boundaries(list(corners), length))
    chain, time_s = solve(c)
    seg = np.diff(c.time_s, axis=1)
    st = c.stations_m
    pieces: list[Piece] = []
    joins: list[Join] = []
    for k, row in enumerate(chain):
        if pieces and c.laps[row] == pieces[-1].lap:
            last = pieces[-1]
            pieces[-1] = Piece(last.lap, last.from_m, float(st[k + 1]), last.time_s + float(seg[row, k]))
            continue
        if pieces:
            dv, dh, do = mismatch(c, k - 1, chain[k - 1], row)
            g = (*(float(v) for v in c.gate_latlon[k - 1]), float(c.gate_heading_deg[k - 1]))
            joins.append(Join(float(st[k]), pieces[-1].lap, c.laps[row], dv, dh, do, g))
        pieces.append(Piece(c.laps[row], float(st[k]), float(st[k + 1]), float(seg[row, k])))
    ok = c.comparable()
    return Achievable(
        time_s=time_s,
        theoretical_s=float(np.min(seg, axis=0).sum()),
        best_lap=int(ref["lap"]),
        best_lap_s=float(ref["time_s"]),
        pieces=pieces,
        joins=joins,
        stations_m=[float(x) for x in st],
        gates_checked=int((ok.sum(axis=0) >= 2).sum()),
        laps=c.laps,
        crossings=c,
    )

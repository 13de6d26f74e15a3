"""The achievable optimal lap: pieces of laps actually driven, joined only where two laps agree.

The lap is cut at every corner's entry (the start of the corner zones ``corner_results`` are measured
on), so each piece is one corner and the run out of it to the next corner: a good exit is paid for on the
straight after it, so the two stay together. Each cut is a gate across the fastest valid lap's own path
(GPS); every valid lap's crossing of it gives its time from the line, speed, heading and lateral offset.

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

from shared.lap_gates import Crossings, crossings, lap_rows
from shared.signals import Wide

# ---- when two laps "agree" at a gate: the only place these tolerances live --------------------------
# (Lap-to-lap medians at corner entries measured on the shared real sessions: speed 3.3 km/h at Sonoma
# in a car, 0.75 km/h in a kart; heading 1.0 and 0.75 deg; offset 1.5 and 0.4 m: about half the pairs
# of laps are in the same state somewhere, a quarter at a given gate.)
# Speed: GPS Doppler speed is good to ~0.2 km/h, so 2 km/h is a real but small difference; the speed
# gap a join hides would be worth 0.09 s if it lasted the next 100 m at 90 km/h (L * dv / v^2), and it
# closes sooner as both laps meet the same grip and power limits.
SPEED_TOL_KMH = 2.0
# Heading (chord of the path over +-5 m): 3 deg apart is a different line: over the next 20 m it
# moves the car ~1 m sideways, the offset tolerance.
HEADING_TOL_DEG = 3.0
# Lateral offset along the gate: the car is ~1.8 m wide and the GPS drifts 0.3-0.5 m from lap to lap;
# 1 m apart is the same line, more is a different one.
OFFSET_TOL_M = 1.0

JOIN_PENALTY_S = 1e-3  # a join must gain over a millisecond (ties and noise: stay on the lap)
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


def valid_full(laps: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The laps that may contribute: full laps judged valid (never out, in or pit laps)."""
    return [lp for lp in laps if lp.get("kind") == "full" and bool(lp.get("valid"))]


def boundaries(corners: Iterable[Mapping[str, Any]], length_m: float) -> list[float]:
    """Gate distances: the corners' entries (``start_m``), sorted, inside the lap, near ones merged."""
    marks = sorted(
        float(c["start_m"])
        for c in corners
        if c.get("start_m") is not None and np.isfinite(float(c["start_m"]))
    )
    out: list[float] = []
    for m in marks:
        if MIN_PIECE_M <= m <= length_m - MIN_PIECE_M and (not out or m - out[-1] >= MIN_PIECE_M):
            out.append(m)
    return out


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
    """The achievable lap of a session's valid full laps (None without one, or when the best lap has no
    telemetry to cut). ``corners``: the corner zones (``start_m``) whose entries cut the lap. A valid lap
    without telemetry is left out of both figures."""
    good = valid_full(laps)
    if not good:
        return None
    ref = min(good, key=lambda lp: float(lp["time_s"]))
    ri = lap_rows(wide, ref)
    if len(ri) < 2:
        return None  # the best lap itself cannot be timed piece by piece: no honest figure
    length = float(np.nanmax(wide["dist_m"][ri]))
    gates = boundaries(list(corners), length)
    c = crossings(wide, good, gates)
    usable: np.ndarray = np.all(np.diff(c.time_s, axis=1) > 0, axis=1)  # no telemetry: cannot be cut
    if not usable.all():
        if not usable[good.index(ref)]:
            return None  # the best lap itself cannot be timed piece by piece: no honest figure
        good = [lp for lp, ok in zip(good, usable, strict=True) if ok]
        c = crossings(wide, good, gates)
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
            lat, lon = (float(v) for v in c.gate_latlon[k - 1])
            g = (lat, lon, float(c.gate_heading_deg[k - 1]))
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

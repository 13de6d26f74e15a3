"""Gates across a reference lap's path, and every lap's crossing of them: time from the line, speed,
heading (chord of the lap's own path) and lateral offset along the gate. What the achievable lap is
joined on (``shared.achievable``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.geo import LocalProjection
from shared.laps import fit_near
from shared.resample import line_to_line
from shared.signals import Wide

GATE_HALF_M = 20.0  # a crossing further than this from the reference path is beside the gate
GATE_WINDOW_M = 150.0  # and it must be this close to where the lap's own distance puts the gate
CHORD_M = 5.0  # heading from the path this far either side of the crossing


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


def lap_rows(wide: Wide, lap: Mapping[str, Any]) -> np.ndarray:
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


@dataclass
class _Gates:
    point: np.ndarray  # (G, 2) local metres
    travel: np.ndarray  # (G, 2) unit direction of travel on the reference path
    usable: np.ndarray  # (G,)
    at_m: np.ndarray  # (G,) reference lap distance


def _odometer(wide: Wide, idx: np.ndarray) -> np.ndarray:
    """Metres driven from the lap's first row, from the speed (NaN everywhere without one)."""
    v = wide.get("speed_kmh")
    if v is None or not np.isfinite(v[idx]).all():
        return np.full(len(idx), np.nan)
    t, ms = wide["t_s"][idx], v[idx] / 3.6
    return np.concatenate([[0.0], np.cumsum((ms[1:] + ms[:-1]) / 2 * np.diff(t))])


def _lap_state(
    wide: Wide, lp: Mapping[str, Any], idx: np.ndarray, proj: LocalProjection, g: _Gates, expect: np.ndarray
) -> tuple[np.ndarray, ...]:
    """(found, time from the line, speed, heading, lateral offset) of one lap at each gate: the forward
    crossing of the gate line nearest where the lap's own distance puts it, interpolated between fixes."""
    n_g = len(g.at_m)
    none = np.zeros(n_g, bool), *(np.full(n_g, np.nan) for _ in range(4))
    x, y = _xy(wide, proj, idx)
    fr = _fresh(x, y)
    if fr.sum() < 3:
        return none
    odo = _odometer(wide, idx)[fr]
    x, y, t, d = x[fr], y[fr], wide["t_s"][idx][fr], wide["dist_m"][idx][fr]
    rel_x, rel_y = x[:, None] - g.point[:, 0], y[:, None] - g.point[:, 1]
    along = rel_x * g.travel[:, 0] + rel_y * g.travel[:, 1]  # (fixes, G)
    across = rel_x * g.travel[:, 1] - rel_y * g.travel[:, 0]  # right of travel positive
    a0, a1 = along[:-1], along[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(a1 != a0, -a0 / (a1 - a0), 0.0)
    lateral = across[:-1] + frac * (across[1:] - across[:-1])
    near = np.abs(d[:-1, None] - expect[None, :])
    cand = (a0 < 0) & (a1 >= 0) & (np.abs(lateral) <= GATE_HALF_M) & (near <= GATE_WINDOW_M) & g.usable
    cand &= (np.diff(t) <= 2.0)[:, None]  # a GPS gap: no honest interpolation
    k = np.arange(n_g)
    j = np.argmin(np.where(cand, near, np.inf), axis=0)
    found = cand[j, k]
    # each crossing fitted to the fixes around it, as the lap line's is: two noisy fixes alone would
    # move it by their noise, and the fastest piece over the laps would pick the luckiest noise
    tc = np.array(
        [
            fit_near(
                t, along[:, g], t[j[g]] + frac[j[g], g] * (t[j[g] + 1] - t[j[g]]), t[j[g]], t[j[g] + 1], odo
            )
            if found[g]
            else np.nan
            for g in range(n_g)
        ]
    )
    vc = np.full(n_g, np.nan)
    v = wide.get("speed_kmh")
    if v is not None and np.isfinite(v[idx]).sum() > 1:
        ok = np.isfinite(v[idx])
        vc = np.interp(tc, wide["t_s"][idx][ok], v[idx][ok])
    # heading: the chord of the lap's own path CHORD_M either side of the crossing
    s = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))]) + np.arange(len(x)) * 1e-9
    sc = np.interp(tc, t, s)
    dx = np.interp(sc + CHORD_M, s, x) - np.interp(sc - CHORD_M, s, x)
    dy = np.interp(sc + CHORD_M, s, y) - np.interp(sc - CHORD_M, s, y)
    return found, tc - float(lp["t_start_s"]), vc, np.degrees(np.arctan2(dx, dy)), lateral[j, k]


def _increasing(row: np.ndarray) -> bool:
    return bool((np.diff(row) > 0).all())


def crossings(wide: Wide, laps: Sequence[Mapping[str, Any]], gates_m: Sequence[float]) -> Crossings:
    """Every lap's time, speed, heading and lateral offset at each gate. The reference path is the
    fastest lap's. Where a lap's crossing is not found (no GPS there) or breaks the order of its times,
    its time comes from its lap distance and it cannot join there (its state is NaN)."""
    ref = min(laps, key=lambda lp: float(lp["time_s"]))
    lat, lon = wide.get("lat"), wide.get("lon")
    proj = None
    if lat is not None and lon is not None and (np.isfinite(lat) & np.isfinite(lon)).any():
        proj = LocalProjection(float(np.nanmedian(lat)), float(np.nanmedian(lon)))
    at = np.asarray(gates_m, float)
    n_g = len(at)
    ri = lap_rows(wide, ref)
    rx, ry = _xy(wide, proj, ri)
    f = _fresh(rx, ry)
    g = _Gates(*_gates(wide["dist_m"][ri][f] + np.arange(int(f.sum())) * 1e-6, rx[f], ry[f], at), at)
    ref_len = float(np.nanmax(wide["dist_m"][ri])) if len(ri) else float(at[-1] if n_g else 1.0)
    n = len(laps)
    tm = np.zeros((n, n_g + 2))
    spd, hdg, off = (np.full((n, n_g), np.nan) for _ in range(3))
    speed = wide.get("speed_kmh")
    for i, lp in enumerate(laps):
        idx = lap_rows(wide, lp)
        lap_t = float(lp["time_s"])
        d_own = wide["dist_m"][idx]
        lap_len = float(np.nanmax(d_own)) if len(idx) else ref_len
        # the time at each gate from the lap's own distance (scaled to the reference lap's): the fallback
        td, tt = line_to_line(
            wide["t_s"][idx], d_own, speed[idx] if speed is not None else None,
            float(lp["t_start_s"]), float(lp["t_end_s"]),
        )  # fmt: skip
        expect = at * (lap_len / ref_len if ref_len > 0 else 1.0)
        fallback = np.interp(expect, td + np.arange(len(td)) * 1e-6, tt)
        tm[i] = np.concatenate([[0.0], fallback, [lap_t]])
        if proj is None or n_g == 0 or len(idx) < 3:
            continue
        found, tc, vc, hc, oc = _lap_state(wide, lp, idx, proj, g, expect)
        row = np.concatenate([[0.0], np.where(found, tc, fallback), [lap_t]])
        if not _increasing(row):  # a crossing out of order is not trusted: this lap joins nowhere
            continue
        tm[i] = row
        spd[i], hdg[i], off[i] = (np.where(found, v, np.nan) for v in (vc, hc, oc))
    glat, glon = proj.latlon(g.point[:, 0], g.point[:, 1]) if proj is not None else (at * np.nan, at * np.nan)
    return Crossings(
        [int(lp["lap"]) for lp in laps],
        tm,
        spd,
        hdg,
        off,
        np.concatenate([[0.0], at, [ref_len]]),
        np.stack([np.asarray(glat, float), np.asarray(glon, float)], axis=1).reshape(n_g, 2),
        np.degrees(np.arctan2(g.travel[:, 0], g.travel[:, 1])) % 360.0,
    )

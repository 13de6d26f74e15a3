"""An independent lap split and position-matched lap delta, from raw samples, for tests and bench/delta.py.

Written without Pitwall's lap, geo or delta code: its own flat-earth projection, its own line crossings
(a least-squares line through the fixes within 0.3 s either side of the line) and its own delta (each
sample of a lap matched to the nearest point of the reference lap's path, the reference's elapsed time
interpolated there). Only the line's definition (a point and a heading) comes from the track profile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

R_EARTH = 6_371_000.0


def xy(lat: np.ndarray, lon: np.ndarray, lat0: float, lon0: float) -> tuple[np.ndarray, np.ndarray]:
    k = math.pi / 180 * R_EARTH
    return (lon - lon0) * k * math.cos(math.radians(lat0)), (lat - lat0) * k


@dataclass
class OwnLaps:
    t: np.ndarray  # sample times with a fresh fix
    x: np.ndarray
    y: np.ndarray
    crossings: list[float]

    def lap_of(self, t: float) -> int | None:
        """Index k of the lap (crossings[k] .. crossings[k+1]) that time ``t`` falls in."""
        for k in range(len(self.crossings) - 1):
            if self.crossings[k] <= t < self.crossings[k + 1]:
                return k
        return None

    def time(self, k: int) -> float:
        return self.crossings[k + 1] - self.crossings[k]


def own_laps(
    t: np.ndarray, lat: np.ndarray, lon: np.ndarray, line: tuple[float, float, float], min_lap_s: float = 30.0
) -> OwnLaps:
    """Crossings of the line (lat, lon, heading) going forward, within 25 m of its point."""
    ok = np.isfinite(lat) & np.isfinite(lon)
    fresh = ok & np.concatenate([[True], (np.diff(lat) != 0) | (np.diff(lon) != 0)])
    t, lat, lon = t[fresh], lat[fresh], lon[fresh]
    x, y = xy(lat, lon, line[0], line[1])
    h = math.radians(line[2])
    along = x * math.sin(h) + y * math.cos(h)
    across = -x * math.cos(h) + y * math.sin(h)
    out: list[float] = []
    for i in np.where((along[:-1] < 0) & (along[1:] >= 0))[0]:
        if abs(across[i]) > 25 or t[i + 1] - t[i] > 1.0:
            continue
        t0 = t[i] - along[i] * (t[i + 1] - t[i]) / (along[i + 1] - along[i])
        w = np.abs(t - t0) <= 0.3
        if w.sum() >= 3:
            slope, icept = np.polyfit(t[w] - t0, along[w], 1)
            if slope > 0:
                t0 = t0 - icept / slope
        if out and t0 - out[-1] < min_lap_s:
            continue
        out.append(float(t0))
    return OwnLaps(t, x, y, out)


def own_delta(laps: OwnLaps, cur: int, ref: OwnLaps, ref_lap: int, times: np.ndarray) -> np.ndarray:
    """Delta (s, + = behind) of lap ``cur`` of ``laps`` against lap ``ref_lap`` of ``ref`` at ``times``:
    the position at each time (interpolated between fixes) matched to the nearest point of the
    reference lap's path, searched forward from the last match."""
    c0, c1 = laps.crossings[cur], laps.crossings[cur + 1]
    r0, r1 = ref.crossings[ref_lap], ref.crossings[ref_lap + 1]
    m = (ref.t >= r0 - 1.0) & (ref.t <= r1 + 1.0)
    rx, ry, re = ref.x[m], ref.y[m], ref.t[m] - r0
    px = np.interp(times, laps.t, laps.x)
    py = np.interp(times, laps.t, laps.y)
    out = np.full(len(times), np.nan)
    j = int(np.searchsorted(re, 0.0))
    for n in np.argsort(times):
        tt = times[n]
        if not c0 <= tt <= c1:
            continue
        lo, hi = max(0, j - 20), min(len(rx) - 1, j + 400)
        sx, sy = rx[lo:hi], ry[lo:hi]
        dx, dy = np.diff(sx), np.diff(sy)
        ll = dx * dx + dy * dy
        u = np.clip(((px[n] - sx[:-1]) * dx + (py[n] - sy[:-1]) * dy) / np.where(ll > 0, ll, 1.0), 0, 1)
        d2 = (sx[:-1] + u * dx - px[n]) ** 2 + (sy[:-1] + u * dy - py[n]) ** 2
        k = int(np.argmin(d2))
        j = lo + k
        ref_e = re[lo + k] + u[k] * (re[lo + k + 1] - re[lo + k])
        out[n] = (tt - c0) - ref_e
    return out


def errors(
    events: list[tuple[float, dict[str, Any]]], laps: OwnLaps, ref_for: Any
) -> tuple[list[float], list[float]]:
    """(along-the-lap errors, at-the-line errors) of delta events ``(t, event)`` against the own delta.

    ``ref_for(k)`` gives (OwnLaps, lap index) of the reference of own lap ``k`` (None: no reference)."""
    along: list[float] = []
    line: list[float] = []
    by_lap: dict[int, list[tuple[float, float]]] = {}
    for t, ev in events:
        if ev["crossed"]:
            last = ev["last_lap"] or {}
            k = laps.lap_of(t - 1.0)  # the lap that just closed
            got = ref_for(k) if k is not None else None
            if got is not None and last.get("delta_s") is not None and last.get("kind") == "full":
                r, rk = got
                line.append(last["delta_s"] - (laps.time(k) - r.time(rk)))
            continue
        if ev["delta_s"] is None:
            continue
        k = laps.lap_of(t)
        if k is None or t - laps.crossings[k] < 0.5 or ev["lap_time_s"] > laps.time(k):
            continue  # the 0.3 s after the line before the tracker closes the lap: still the old lap
        by_lap.setdefault(k, []).append((t, ev["delta_s"]))
    for k, pts in by_lap.items():
        got = ref_for(k)
        if got is None:
            continue
        ts = np.array([p[0] for p in pts])
        mine = own_delta(laps, k, got[0], got[1], ts)
        along += [p[1] - m for p, m in zip(pts, mine, strict=True) if np.isfinite(m)]
    return along, line

"""Each valid full lap as one trace across the line, the typical trace, and the splits between corners.

A lap's trace runs by lap distance from the previous lap's tail (negative distances) through the lap to
the next lap's head (past the lap's length), each only when that lap is a full lap: a corner's time
belongs to its lap even where its segment crosses the line. "Your typical" trace is the median over the
valid full laps of the time each 2 m takes (summed up) and of the speed there.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.profiles.track import Corner
from shared.signals import Wide

STEP_M = 2.0
PACE_PCT = 25.0  # a lap's pace: this percentile of its segments' times over theirs (mistakes only slow)
REFERENCE_PCT = 25.0  # "your good laps": a quarter of the valid laps are faster over a segment
CHANNELS = ("speed_kmh", "throttle_pct", "brake_bar", "g_long")
WHEEL_CHANNELS = tuple(f"wheel_speed_{w}_kmh" for w in ("fl", "fr", "rl", "rr"))


@dataclass
class LapTrace:
    lap: int
    x: np.ndarray  # lap distance, strictly increasing (negative: the lap before; > length: the lap after)
    t: np.ndarray  # seconds since the lap's start line
    ch: dict[str, np.ndarray]  # channels at the same samples (absent: not recorded)
    lo: float  # the distance range the trace covers
    hi: float

    def time_at(self, d: float | np.ndarray) -> Any:
        return np.interp(d, self.x, self.t)

    def speed_at(self, d: float | np.ndarray) -> Any:
        return np.interp(d, self.x, self.ch["speed_kmh"])

    def window(self, a: float, b: float) -> slice:
        return slice(int(np.searchsorted(self.x, a)), int(np.searchsorted(self.x, b, side="right")))


def _recorded(wide: Wide, k: str) -> bool:
    v = wide.get(k)
    return v is not None and len(v) == len(wide["t_s"]) and bool(np.isfinite(v).any())


def lap_traces(wide: Wide, laps: Sequence[Mapping[str, Any]], length_m: float) -> list[LapTrace]:
    """The valid full laps' traces, each with its full neighbours' samples across the line."""
    full = {int(lp["lap"]): lp for lp in laps if lp.get("kind") == "full" and lp.get("t_start_s") is not None}
    lap_col = wide["lap"]
    order = np.argsort(lap_col, kind="stable")
    sorted_laps = lap_col[order]
    keys = [k for k in (*CHANNELS, *WHEEL_CHANNELS) if _recorded(wide, k)]

    def idx(k: int) -> np.ndarray:
        a, b = np.searchsorted(sorted_laps, [k, k + 1])
        return np.sort(order[a:b])

    out = []
    for k, lp in sorted(full.items()):
        if not lp.get("valid"):
            continue
        parts = [(idx(k), 0.0)]
        if k - 1 in full:
            parts.insert(0, (idx(k - 1), -length_m))
        if k + 1 in full:
            parts.append((idx(k + 1), length_m))
        sel = np.concatenate([p for p, _ in parts])
        if len(idx(k)) < 10:
            continue
        x = np.concatenate([wide["dist_m"][p] + off for p, off in parts])
        x = np.maximum.accumulate(x) + np.arange(len(x)) * 1e-6
        t = wide["t_s"][sel] - float(lp["t_start_s"])
        ch = {c: wide[c][sel] for c in keys}
        if "speed_kmh" not in ch:
            continue
        ok = np.isfinite(ch["speed_kmh"])
        if ok.sum() < 10:
            continue
        ch["speed_kmh"] = np.interp(x, x[ok], ch["speed_kmh"][ok])
        out.append(LapTrace(k, x, t, ch, float(x[0]), float(x[-1])))
    return out


@dataclass
class Typical:
    grid: np.ndarray
    time: np.ndarray  # cumulative time from grid[0]: between two splits, your good laps' time
    speed: np.ndarray  # median speed
    laps_time: np.ndarray  # each lap's time since its line at each grid point (NaN: not covered)

    def time_at(self, d: float | np.ndarray) -> Any:
        return np.interp(d, self.grid, self.time)

    def speed_at(self, d: float | np.ndarray) -> Any:
        return np.interp(d, self.grid, self.speed)


def typical(traces: list[LapTrace], length_m: float) -> Typical:
    """Median over the laps of each 2 m's time (summed) and of the speed, from half a lap before the
    line to half a lap after the next."""
    grid = np.arange(-0.5 * length_m, 1.5 * length_m + STEP_M, STEP_M)
    tt = np.full((len(traces), len(grid)), np.nan)
    vv = np.full((len(traces), len(grid)), np.nan)
    for i, tr in enumerate(traces):
        m = (grid >= tr.lo) & (grid <= tr.hi)
        tt[i, m] = tr.time_at(grid[m])
        vv[i, m] = tr.speed_at(grid[m])
    with warnings.catch_warnings():  # an all-NaN column (no lap covers it) is NaN, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        dt = np.nanmedian(np.diff(tt, axis=1), axis=0)
        spd = np.nanmedian(vv, axis=0)
    dt = np.nan_to_num(dt, nan=0.0)
    return Typical(grid, np.concatenate([[0.0], np.cumsum(dt)]), spd, tt)


def _pins(typ: Typical, cuts: list[float], length_m: float) -> list[int]:
    pts = sorted(
        c + k * length_m for c in cuts for k in (-1, 0, 1) if typ.grid[0] <= c + k * length_m <= typ.grid[-1]
    )
    return [int(np.searchsorted(typ.grid, p)) for p in pts]


def paces(typ: Typical, cuts: list[float], length_m: float) -> np.ndarray:
    """Each lap's pace as a whole (grip, wind): the lower quartile over its segments of its time over
    the laps' median there (a lap with mistakes at four corners still has its pace from the others). The laps' times are divided by it, so a lap a little slower everywhere loses at
    no corner and your good laps are not its luck."""
    idx = _pins(typ, cuts, length_m)
    seg = typ.laps_time[:, idx[1:]] - typ.laps_time[:, idx[:-1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ratio = seg / np.nanmedian(seg, axis=0)
        pace = np.nanpercentile(ratio, PACE_PCT, axis=1)
    pace = np.where(np.isfinite(pace) & (pace > 0), pace, 1.0)
    typ.laps_time = typ.laps_time / pace[:, None]
    return pace


def pin(typ: Typical, cuts: list[float], length_m: float) -> None:
    """Between consecutive splits, make the typical time your good laps' time there (its 25th percentile
    over the laps: a lap that made a mistake is slower, never faster), shaped within the segment as the
    mean of the laps at or under its median time there (a sum of per-step medians drifts with noise)."""
    idx = _pins(typ, cuts, length_m)
    new = typ.time.copy()
    for i0, i1 in zip(idx[:-1], idx[1:], strict=True):
        lt = typ.laps_time[:, i0 : i1 + 1]
        seg = lt[:, -1] - lt[:, 0]
        ok = np.isfinite(seg)
        if i1 <= i0 or not ok.any():
            new[i1:] = new[i1] + (typ.time[i1:] - typ.time[i1]) if i1 > i0 else new[i1:]
            continue
        good = ok & (seg <= np.median(seg[ok]))
        shape = np.mean(lt[good] - lt[good, :1], axis=0)
        target = float(np.percentile(seg[ok], REFERENCE_PCT))
        frac = (typ.grid[i0 : i1 + 1] - typ.grid[i0]) / (typ.grid[i1] - typ.grid[i0])
        new[i0 : i1 + 1] = new[i0] + shape + (target - shape[-1]) * frac
        new[i1:] = new[i1] + (typ.time[i1:] - typ.time[i1])
    typ.time = new


def splits(corners: list[Corner], typ: Typical, length_m: float) -> list[float]:
    """After each corner (in driving order), where its segment ends: the typical lap's top speed between
    its apex and the next corner's (the last corner's next is the first, past the line)."""
    out = []
    for i, c in enumerate(corners):
        nxt = corners[i + 1].apex_m if i + 1 < len(corners) else corners[0].apex_m + length_m
        m = (typ.grid > c.apex_m) & (typ.grid < nxt) & np.isfinite(typ.speed)
        if not m.any():
            out.append((c.apex_m + nxt) / 2)
            continue
        g, v = typ.grid[m], typ.speed[m]
        top = float(np.max(v))
        # the last point within 0.5 km/h of the top: on a straight the speed flattens before braking
        out.append(float(g[np.where(v >= top - 0.5)[0][-1]]))
    return out

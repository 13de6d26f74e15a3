"""Distance-based resampling for lap comparisons and charts."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from shared.laps import Lap
from shared.signals import Wide

DEFAULT_CHANNELS = ("speed_kmh", "throttle_pct", "brake_bar", "steer_deg", "g_lat", "g_long", "rpm", "gear")


def by_distance(
    wide: Wide,
    lap: int,
    step_m: float = 5.0,
    channels: Iterable[str] = DEFAULT_CHANNELS,
    end_m: float | None = None,
    t_start_s: float | None = None,
) -> dict[str, np.ndarray]:
    """One lap on a distance grid: ``dist_m``, ``time_s`` (elapsed in the lap) and each channel.

    With ``t_start_s`` (the lap's line crossing) time runs from the crossing, at 0 m, not from the
    first sample after it (which is up to a sample interval later)."""
    if step_m <= 0:
        raise ValueError("step_m must be positive")
    m = wide["lap"] == lap
    if t_start_s is not None:
        m = m & (wide["t_s"] >= t_start_s)
    if m.sum() < 2:
        raise ValueError(f"lap {lap} has no samples")
    d = wide["dist_m"][m] + np.arange(int(m.sum())) * 1e-6
    t = wide["t_s"][m]
    top = float(d[-1]) if end_m is None else min(end_m, float(d[-1]))
    grid = np.arange(0.0, top + 1e-9, step_m)
    if t_start_s is not None and d[0] > 0:
        elapsed = np.interp(grid, np.concatenate([[0.0], d]), np.concatenate([[0.0], t - t_start_s]))
    else:
        elapsed = np.interp(grid, d, t - (t[0] if t_start_s is None else t_start_s))
    out: dict[str, np.ndarray] = {"dist_m": grid, "time_s": elapsed}
    for ch in channels:
        v = wide.get(ch)
        if v is None:
            continue
        vv = v[m]
        ok = np.isfinite(vv)
        out[ch] = np.interp(grid, d[ok], vv[ok]) if ok.sum() >= 2 else np.full(len(grid), np.nan)
    return out


def lap_grid(
    wide: Wide, laps: list[Lap], step_m: float = 5.0, channel: str = "time_s"
) -> tuple[np.ndarray, np.ndarray]:
    """(distance grid, laps x distance matrix) of one channel for every full lap; NaN past a lap's end."""
    full = [lp for lp in laps if lp.kind == "full"]
    if not full:
        return np.zeros(0), np.zeros((0, 0))
    top = max(float(np.max(wide["dist_m"][wide["lap"] == lp.lap])) for lp in full)
    grid = np.arange(0.0, top + 1e-9, step_m)
    mat = np.full((len(full), len(grid)), np.nan)
    for i, lp in enumerate(full):
        r = by_distance(wide, lp.lap, step_m, [] if channel == "time_s" else [channel])
        mat[i, : len(r[channel])] = r[channel]
    return grid, mat


def line_to_line(
    t: np.ndarray, dist: np.ndarray, speed_kmh: np.ndarray | None, t_start_s: float, t_end_s: float
) -> tuple[np.ndarray, np.ndarray]:
    """A lap's (distance, elapsed) trace from line to line: (0 m, 0 s) at the crossing that starts it, its
    samples, and the crossing that ends it at (distance there, the lap time). Two laps compared on such
    traces differ at the end by exactly their lap-time difference."""
    m = (t >= t_start_s) & (t <= t_end_s) & np.isfinite(dist)
    tt = t[m]
    dd = np.maximum.accumulate(dist[m]) if m.any() else np.zeros(0)
    if len(tt) == 0:
        return np.array([0.0]), np.array([0.0])
    v = float(speed_kmh[m][-1]) / 3.6 if speed_kmh is not None and np.isfinite(speed_kmh[m][-1]) else 0.0
    d_end = float(dd[-1]) + max(v, 0.0) * (t_end_s - float(tt[-1]))
    return (
        np.concatenate([[0.0], dd, [d_end]]),
        np.concatenate([[0.0], tt - t_start_s, [t_end_s - t_start_s]]),
    )

"""Distance-based resampling for lap comparisons and charts."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from shared.laps import Lap

Wide = dict[str, np.ndarray]

DEFAULT_CHANNELS = ("speed_kmh", "throttle_pct", "brake_bar", "steer_deg", "g_lat", "g_long", "rpm", "gear")


def by_distance(
    wide: Wide,
    lap: int,
    step_m: float = 5.0,
    channels: Iterable[str] = DEFAULT_CHANNELS,
    end_m: float | None = None,
) -> dict[str, np.ndarray]:
    """One lap on a distance grid: ``dist_m``, ``time_s`` (elapsed in the lap) and each channel."""
    if step_m <= 0:
        raise ValueError("step_m must be positive")
    m = wide["lap"] == lap
    if m.sum() < 2:
        raise ValueError(f"lap {lap} has no samples")
    d = wide["dist_m"][m] + np.arange(int(m.sum())) * 1e-6
    t = wide["t_s"][m]
    top = float(d[-1]) if end_m is None else min(end_m, float(d[-1]))
    grid = np.arange(0.0, top + 1e-9, step_m)
    out: dict[str, np.ndarray] = {"dist_m": grid, "time_s": np.interp(grid, d, t - t[0])}
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

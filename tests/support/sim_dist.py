"""Lap distance of a simulated session by our own reckoning, never Pitwall's: the speed integrated from
each lap's start time in the simulator's ground truth (trapezoids over the samples)."""

from __future__ import annotations

from typing import Any

import numpy as np


def lap_distance(sim: Any) -> tuple[np.ndarray, np.ndarray]:
    """(lap number, distance into that lap in metres) per sample; lap -1 outside the full laps."""
    t, v = sim.wide["t_s"], sim.wide["speed_kmh"] / 3.6
    lap = np.full(len(t), -1)
    dist = np.full(len(t), np.nan)
    for lp in sim.truth.laps:
        if lp["kind"] != "full":
            continue
        k = np.where((t >= lp["t_start_s"]) & (t < lp["t_end_s"]))[0]
        seg = np.concatenate([[0.0], np.cumsum((v[k][1:] + v[k][:-1]) / 2 * np.diff(t[k]))])
        lap[k] = lp["lap"]
        dist[k] = seg + v[k[0]] * (t[k[0]] - lp["t_start_s"])
    return lap, dist

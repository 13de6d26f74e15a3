"""Simulated sessions altered in a known way, and the lap distance of a simulated session by our own
reckoning, never Pitwall's: the speed integrated from each lap's start time in the simulator's ground truth
(trapezoids over the samples)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from shared.profiles.track import load_track


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


#: the yaw-rate scale put into the simulated session's corners: measured / kinematic yaw rate
BALANCE_SCALE = {"t3": 0.6, "t7": 1.5}


def balance_sim(sim: Any) -> Any:
    """The simulated session (neutral by construction: its yaw rate is v times the path curvature and its
    steering the kinematic angle for it) with its yaw rate scaled inside two corners on every full lap."""
    lap, dist = lap_distance(sim)
    yaw = sim.wide["yaw_rate_dps"].copy()
    for c in load_track("sonoma").corners:
        if c.id in BALANCE_SCALE:
            inside = (lap >= 0) & (dist >= c.start_m - 15) & (dist <= c.end_m + 15)
            yaw[inside] *= BALANCE_SCALE[c.id]
    return replace(sim, wide={**sim.wide, "yaw_rate_dps": yaw})

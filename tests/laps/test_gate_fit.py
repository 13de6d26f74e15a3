"""The theoretical best and the achievable lap on 20 Hz GPS with noise, against the exact figures: the
same simulated session sampled at 200 Hz without GPS noise gives every lap's exact crossing of every
gate (our own crossing, interpolated between positions 5 ms apart). Each gate crossing is fitted to the
fixes around it, as the lap line's is; interpolated between two noisy fixes, the fastest piece over the
laps picked the luckiest noise and both figures came out ~0.1 s too fast."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shared.achievable import achievable_lap
from shared.laps_recorded import assign_laps, detect_laps
from shared.simulator import simulate

GPS_NOISE_M = 0.4  # SD of each 20 Hz fix, metres (the simulator's own)
TOL_S = 0.02


def _crossing(t: np.ndarray, x: np.ndarray, y: np.ndarray, px: float, py: float, hdg: float) -> float:
    """Our own forward crossing of the line through (px, py) across heading ``hdg``, within 20 m of it."""
    ux, uy = math.sin(math.radians(hdg)), math.cos(math.radians(hdg))
    along, across = (x - px) * ux + (y - py) * uy, (x - px) * uy - (y - py) * ux
    k = np.flatnonzero((along[:-1] < 0) & (along[1:] >= 0) & (np.abs(across[:-1]) < 20))
    assert len(k) == 1, "one crossing of each gate per lap"
    i = int(k[0])
    return float(t[i] + -along[i] / (along[i + 1] - along[i]) * (t[i + 1] - t[i]))


@pytest.mark.parametrize("seed", [31, 32, 33, 34])
def test_theoretical_best_and_achievable_lap_within_20_ms_of_the_exact_figures(seed: int) -> None:
    exact = simulate(seed=seed, laps=8, rate_hz=200.0, gps_noise_m=0.0)
    track = exact.track
    assert track is not None
    wide = {k: v[::10].copy() for k, v in exact.wide.items()}  # the same session at 20 Hz
    rng = np.random.default_rng(seed + 1000)
    x, y = track.proj.xy(wide["lat"], wide["lon"])
    wide["lat"], wide["lon"] = track.proj.latlon(
        x + rng.normal(0, GPS_NOISE_M, len(x)), y + rng.normal(0, GPS_NOISE_M, len(y))
    )
    laps = detect_laps(wide, track, None)
    assign_laps(wide, laps)
    a = achievable_lap(wide, [lp.as_dict() for lp in laps], [{"start_m": c.start_m} for c in track.corners])
    assert a is not None and len(a.laps) >= 6
    c = a.crossings
    assert c is not None

    # exact: each lap's crossings of the start/finish line and of every gate, from the noiseless 200 Hz
    t = exact.wide["t_s"]
    ex, ey = track.proj.xy(exact.wide["lat"], exact.wide["lon"])
    sf = track.start_finish
    sx, sy = track.proj.xy(np.array([sf.lat]), np.array([sf.lon]))
    gx, gy = track.proj.xy(c.gate_latlon[:, 0], c.gate_latlon[:, 1])
    truth = {lp["lap"]: lp for lp in exact.truth.laps}
    rows = []
    for lap in c.laps:
        m = (t >= truth[lap]["t_start_s"] - 2.0) & (t <= truth[lap]["t_end_s"] + 2.0)
        tl, xl, yl = t[m], ex[m], ey[m]
        start = _crossing(tl[tl < truth[lap]["t_start_s"] + 1], xl[tl < truth[lap]["t_start_s"] + 1],
                          yl[tl < truth[lap]["t_start_s"] + 1], float(sx[0]), float(sy[0]), sf.heading_deg)  # fmt: skip
        late = tl > truth[lap]["t_end_s"] - 1
        end = _crossing(tl[late], xl[late], yl[late], float(sx[0]), float(sy[0]), sf.heading_deg)
        inside = (tl > start) & (tl < end)
        gates = [
            _crossing(
                tl[inside], xl[inside], yl[inside], float(gx[g]), float(gy[g]), float(c.gate_heading_deg[g])
            )
            - start
            for g in range(len(gx))
        ]
        rows.append([0.0, *gates, end - start])
    seg = np.diff(np.array(rows), axis=1)
    exact_theoretical = float(seg.min(axis=0).sum())
    stations = list(c.stations_m)
    exact_chain = sum(
        float(seg[c.laps.index(p.lap), stations.index(p.from_m) : stations.index(p.to_m)].sum())
        for p in a.pieces
    )
    assert abs(a.theoretical_s - exact_theoretical) <= TOL_S, (a.theoretical_s, exact_theoretical)
    assert abs(a.time_s - exact_chain) <= TOL_S, (a.time_s, exact_chain)

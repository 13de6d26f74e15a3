"""A grip-limited lap simulation on a track profile, with a driver who makes scripted mistakes.

Quasi-steady-state: the speed limit at each point comes from the lateral-g limit and the smoothed
centreline curvature; a forward pass applies the traction/power limit and a backward pass the braking
limit. Channels (pedals, g, yaw, steering, gear, wheel speeds, vitals, GPS) are derived from that
speed trace, sampled at an AiM-like rate with seeded sensor noise.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.profiles.car import CarProfile, load_car
from shared.profiles.track import TrackProfile, load_track
from shared.signals import WHEELS
from shared.simulator.dynamics import DS, TYRE_GRIP, curvature, passes, speed_limit, within_limits
from shared.simulator.mistakes import apply_mistake, corner_start, sites
from shared.simulator.scenario import DRIVING_MISTAKES, GroundTruth, Scenario
from shared.simulator.signal_events import brake_points_from_signals, inject_signal_event
from shared.units import G

BAR_PER_G = 95.0  # brake line pressure per g of braking (E46-like)


@dataclass
class SimSession:
    wide: dict[str, np.ndarray]
    truth: GroundTruth
    meta: dict[str, Any] = field(default_factory=dict)
    track: TrackProfile | None = None
    car: CarProfile | None = None
    scenario: Scenario | None = None  # what was injected (for "the next session": ``Scenario.fixing``)


def _gear_rpm(speed_ms: np.ndarray, car: CarProfile) -> tuple[np.ndarray, np.ndarray]:
    gm = car.vehicle.gears
    ratios = np.asarray(gm.ratios if gm else [3.5, 2.2, 1.5, 1.15, 0.95, 0.8])
    fd = gm.final_drive if gm else 3.6
    circ = gm.tyre_circumference_m if gm else 2.0
    wheel_rpm = speed_ms / circ * 60
    rpm_all = wheel_rpm[:, None] * ratios[None, :] * fd
    redline = car.vehicle.redline_rpm
    ok = rpm_all < redline * 0.97
    gear_idx = np.where(ok.any(axis=1), np.argmax(ok, axis=1), len(ratios) - 1)
    # upshift late: the lowest gear below the shift point
    rpm = rpm_all[np.arange(len(speed_ms)), gear_idx]
    rpm = np.maximum(rpm, 950.0)
    return gear_idx + 1.0, rpm


def simulate(
    track_id: str = "sonoma",
    laps: int = 10,
    seed: int = 0,
    rate_hz: float = 50.0,
    car_id: str = "bmw_e46_m3_aim_mxp",
    scenario: Scenario | None = None,
    kinds: Collection[str] | None = None,
    fixed: Collection[str] = (),
    gps_noise_m: float = 0.4,
) -> SimSession:
    """A session of ``laps`` full laps. Without ``scenario`` the mistakes are drawn from ``seed``
    (``kinds``: exactly these kinds of event); ``fixed``: corners whose driving mistakes are fixed in
    this session (with ``scenario`` from an earlier session: "the next session"); ``gps_noise_m``: the
    position noise (SD, metres; 0: the exact driven line, the ground truth a timing is checked against)."""
    if laps < 1:
        raise ValueError("laps must be at least 1")
    if rate_hz <= 0 or rate_hz > 1000:
        raise ValueError("rate_hz must be in (0, 1000]")
    track = load_track(track_id)
    car = load_car(car_id)
    rng = np.random.default_rng(seed)
    grid, k = curvature(track)
    L = track.length_m
    vlim = speed_limit(k, car, 1.0)
    base = passes(vlim, car, 1.0)
    scen = scenario if scenario is not None else Scenario.draw(laps, seed, sites(track, grid, base), kinds)
    if fixed:
        scen = scen.fixing(fixed, laps=laps)

    # ---- distance-domain speed trace for the whole session --------------------------
    segs_s: list[np.ndarray] = []
    segs_v: list[np.ndarray] = []
    pit_exit = L - 500.0
    # out-lap: from the pit exit, slower (tyres cold)
    out_v = passes(speed_limit(k, car, 0.85), car, 0.85)
    i0 = int(pit_exit / DS)
    ov = out_v[i0:].copy()
    cur = 60 / 3.6
    for i in range(len(ov)):
        ov[i] = min(ov[i], cur)
        cur = math.sqrt(cur**2 + 2 * 0.35 * G * DS)
    segs_s.append(grid[i0:] - L)
    segs_v.append(ov)
    clean = set(scen.clean_laps)
    applied: dict[tuple[str, int, str | None], dict[str, Any]] = {}
    grips = [1.0 + rng.normal(0, 0.002) for _ in range(laps)]  # lap-to-lap grip
    n = len(base)
    carry: np.ndarray | None = None  # what the last lap's mistakes did past the line
    for lap in range(1, laps + 1):
        # this lap and the next as driven clean: a mistake late in the lap costs time past the line
        ext = np.concatenate([base * math.sqrt(g) for g in (grips[lap - 1], grips[min(lap, laps - 1)])])
        lap_base = ext.copy()
        if carry is not None:
            np.minimum(ext[:n], carry, out=ext[:n])
        for ev in sorted(scen.events, key=lambda e: corner_start(track, e.corner_id)):  # in track order
            if ev.lap == lap and ev.kind in DRIVING_MISTAKES:
                rec = apply_mistake(ext, grid, ev, track, car, grips[lap - 1], vlim, lap_base)
                if rec is not None:
                    applied[(ev.kind, lap, ev.corner_id)] = rec
        slow = ext[n:] < lap_base[n:] - 1e-9
        carry = np.where(slow, ext[n:], np.inf) if slow.any() else None
        segs_s.append(grid + (lap - 1) * L)
        segs_v.append(ext[:n])
    # in-lap: cool-down pace, then into the pits
    in_v = passes(speed_limit(k, car, 0.7), car, 0.7)
    stop = int(1800 / DS)
    iv = in_v[:stop].copy()
    for i in range(stop - 1, max(stop - 150, 0), -1):
        iv[i] = min(iv[i], 5.0 + (stop - 1 - i) * 0.12)
    segs_s.append(grid[:stop] + laps * L)
    segs_v.append(iv)
    s_all = np.concatenate(segs_s)
    veh = car.vehicle
    v_all = within_limits(np.maximum(np.concatenate(segs_v), 1.0), car)
    # time along distance
    dt = DS / ((v_all[:-1] + v_all[1:]) / 2)
    t_all = np.concatenate([[0.0], np.cumsum(dt)])
    # exact lap crossings (s = m * L)
    crossings = [float(np.interp(m * L, s_all, t_all)) for m in range(0, laps + 1)]

    # ---- time-domain sampling ----------------------------------------------------------
    t = np.arange(0.0, t_all[-1], 1.0 / rate_hz)
    s = np.interp(t, t_all, s_all)
    v = np.interp(t, t_all, v_all)  # m/s
    lap_dist = np.mod(s, L)
    kk = np.interp(lap_dist, grid, k)
    # a car that arrives too fast runs wide: the radius it drives never asks more than the tyres' grip
    g_cap = veh.max_g_lat * TYRE_GRIP * G
    kk = np.sign(kk) * np.minimum(np.abs(kk), g_cap / np.maximum(v, 1.0) ** 2)
    acc = np.gradient(v, t)
    acc = np.convolve(acc, np.ones(5) / 5, mode="same")
    ns = len(t)
    lap_no = np.floor(s / L).astype(int) + 1  # 0 = out-lap
    lap_no[s < 0] = 0

    wide: dict[str, np.ndarray] = {"t_s": t}
    wide["speed_kmh"] = v * 3.6 + rng.normal(0, 0.25, ns)
    wide["g_long"] = acc / G + rng.normal(0, 0.02, ns)
    g_lat = -(v**2) * kk / G  # + = cornering right (curvature + = left)
    wide["g_lat"] = g_lat + rng.normal(0, 0.02, ns)
    wide["g_vert"] = 1.0 + rng.normal(0, 0.03, ns)
    wide["g_combo"] = np.hypot(wide["g_lat"], wide["g_long"])
    wide["yaw_rate_dps"] = np.degrees(-v * kk) + rng.normal(0, 0.3, ns)
    wide["steer_deg"] = np.degrees(np.arctan(-kk * veh.wheelbase_m)) * veh.steering_ratio + rng.normal(
        0, 0.4, ns
    )
    decel_g = np.maximum(-acc / G - 0.03 - 0.0004 * v**2 / G, 0.0)
    brake = np.where(decel_g > 0.12, decel_g * BAR_PER_G, 0.0)
    # brake release is trailed into the corner: smooth it a little so pressure ramps, not steps
    win = max(1, int(0.12 * rate_hz))
    brake = np.convolve(brake, np.ones(win) / win, mode="same")
    # throttle: flat out while accelerating, a steady part throttle while holding speed, off when braking
    thr_need = np.clip((acc / G + 0.03 + 0.0004 * v**2 / G) / max(veh.max_g_accel, 0.1), 0.0, 1.0)
    throttle = np.where(acc > 0.3, 100.0, np.clip(25 + 60 * thr_need, 0, 100))
    throttle = np.where(brake > 1.0, 0.0, throttle)
    tw = max(1, int(0.3 * rate_hz))
    throttle = np.convolve(throttle, np.ones(tw) / tw, mode="same")
    wide["brake_bar"] = np.maximum(brake + rng.normal(0, 0.15, ns) * (brake > 0), 0.0)
    wide["throttle_pct"] = np.clip(throttle + rng.normal(0, 0.5, ns), 0, 100)
    wide["brake_switch"] = (wide["brake_bar"] > 2.0).astype(float)
    gear, rpm = _gear_rpm(v, car)
    wide["gear"] = gear
    wide["rpm"] = rpm + rng.normal(0, 15, ns)
    for w in WHEELS:
        wide[f"wheel_speed_{w}_kmh"] = v * 3.6 * (1 + rng.normal(0, 0.002, ns))
    lat, lon = _latlon(track, lap_dist, rng, gps_noise_m)
    wide["lat"], wide["lon"] = lat, lon
    wide["alt_m"] = 30 + 20 * np.sin(2 * np.pi * lap_dist / L)
    hx = np.gradient(wide["lon"]) * math.cos(math.radians(track.start_finish.lat))
    wide["heading_deg"] = np.degrees(np.arctan2(hx, np.gradient(wide["lat"]))) % 360
    frac = t / max(t[-1], 1.0)
    wide["water_temp_c"] = 82 + 10 * np.minimum(frac * 3, 1) + rng.normal(0, 0.1, ns)
    wide["oil_temp_c"] = 88 + 22 * np.minimum(frac * 2, 1) + rng.normal(0, 0.1, ns)
    wide["oil_press_bar"] = 1.2 + 3.6 * rpm / veh.redline_rpm + rng.normal(0, 0.05, ns)
    wide["water_press_bar"] = 0.9 + 0.4 * np.minimum(frac * 3, 1)
    wide["fuel_press_bar"] = 3.5 + rng.normal(0, 0.02, ns)
    wide["fuel_level_l"] = 60 - 3.2 * s / L
    wide["battery_v"] = 13.9 + rng.normal(0, 0.02, ns)
    for w in WHEELS:
        wide[f"tpms_press_{w}_bar"] = 2.0 + 0.35 * np.minimum(frac * 4, 1)
        wide[f"tpms_temp_{w}_c"] = 25 + 35 * np.minimum(frac * 4, 1)
        wide[f"tpms_alarm_{w}"] = np.zeros(ns)
    for name in ("abs_active", "dsc_active", "mil"):
        wide[name] = np.zeros(ns)

    truth_events: list[dict[str, Any]] = []
    for ev in scen.events:
        rec = inject_signal_event(
            wide, ev, track, lap_no, lap_dist, t, rate_hz, applied.get((ev.kind, ev.lap, ev.corner_id))
        )
        if rec is not None:
            truth_events.append(rec)

    brake_points_from_signals(wide, truth_events, lap_no, lap_dist, sorted(clean))
    truth_laps = [
        {"lap": 0, "t_start_s": 0.0, "t_end_s": crossings[0], "time_s": crossings[0], "kind": "out"}
    ]
    for m in range(1, laps + 1):
        truth_laps.append(
            {
                "lap": m,
                "t_start_s": crossings[m - 1],
                "t_end_s": crossings[m],
                "time_s": crossings[m] - crossings[m - 1],
                "kind": "full",
            }
        )
    truth_laps.append(
        {
            "lap": laps + 1,
            "t_start_s": crossings[laps],
            "t_end_s": float(t[-1]),
            "time_s": float(t[-1]) - crossings[laps],
            "kind": "in",
        }
    )
    truth = GroundTruth(truth_laps, truth_events, sorted(clean), track.id, car.id, seed, rate_hz)
    meta = {"track_id": track.id, "car_id": car.id, "seed": seed, "rate_hz": rate_hz, "laps": laps}
    return SimSession(wide, truth, meta, track, car, scen)


def _latlon(
    track: TrackProfile, lap_dist: np.ndarray, rng: np.random.Generator, noise_m: float
) -> tuple[np.ndarray, np.ndarray]:
    line = track.line
    scale = line.length / track.length_m
    x, y = line.point_at(lap_dist * scale)
    # a little lateral line variation and GPS noise (~0.4 m by default)
    x = x + rng.normal(0, noise_m, len(x))
    y = y + rng.normal(0, noise_m, len(y))
    return track.proj.latlon(x, y)

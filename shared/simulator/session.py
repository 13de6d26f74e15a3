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
from shared.simulator.scenario import DRIVING_MISTAKES, Event, GroundTruth, Scenario, Site

G = 9.80665
DS = 2.0  # m, simulation grid
BAR_PER_G = 95.0  # brake line pressure per g of braking (E46-like)
BRAKE_ONSET_BAR = 1.0  # the pressure has started to rise
BRAKE_USE = 0.92  # share of the car's brake limit a driver uses (clean laps and mistakes alike)
DRAG = 0.0004  # aerodynamic drag, m/s^2 per (m/s)^2
ROLLING = 0.03  # rolling resistance and engine braking off throttle, g
LIMIT_GRIP = 1.03  # the session-wide limit pass leaves room for a lap's grip variation
RUN_WIDE = 1.2  # a late braker runs wide: up to this much faster than the line's grip allows
MIN_COST_S = 0.1  # a late brake runs the car in at least this deep
HARD_BRAKE_KMH = 20.0  # a corner the clean lap brakes this much for can take a braking mistake
SLOW_EXIT_KMH = 120.0  # a corner slower than this at the apex has a traction-limited exit


@dataclass
class SimSession:
    wide: dict[str, np.ndarray]
    truth: GroundTruth
    meta: dict[str, Any] = field(default_factory=dict)
    track: TrackProfile | None = None
    car: CarProfile | None = None
    scenario: Scenario | None = None  # what was injected (for "the next session": ``Scenario.fixing``)


def sites(track: TrackProfile, grid: np.ndarray, v: np.ndarray) -> list[Site]:
    """Every corner as the scenario draw sees it on the clean speed trace ``v``."""
    out = []
    n = len(v)
    for c in track.corners:
        lo, hi = int(c.start_m / DS), max(int(c.end_m / DS), int(c.start_m / DS) + 1)
        apex_i = lo + int(np.argmin(v[lo:hi]))
        b0 = _brake_start(v, apex_i, n)
        drop_kmh = (float(v[b0 % n]) - float(v[apex_i])) * 3.6
        slow = float(v[apex_i]) * 3.6 < SLOW_EXIT_KMH
        run_up_s, j = 0.0, b0
        while run_up_s < 10.0 and float(v[(j - 1) % n]) <= float(v[j % n]) + 1e-9:
            run_up_s += DS / max(float(v[j % n]), 1.0)
            j -= 1
        hard = drop_kmh >= HARD_BRAKE_KMH
        run_up = (run_up_s, (b0 - j) * DS)
        out.append(Site(c.id, float(grid[b0 % n]), c.end_m, hard, slow and drop_kmh > 0, *run_up))
    return out


def _curvature(track: TrackProfile) -> tuple[np.ndarray, np.ndarray]:
    """(lap-distance grid, smoothed signed curvature, + = left) at DS spacing."""
    line = track.line
    scale = track.length_m / line.length
    grid = np.arange(0.0, track.length_m, DS)
    x, y = line.point_at(grid / scale)
    # a driver's line, not the map's: smooth the centreline (kinks in map data are not corners)
    pad = 60
    xs = np.concatenate([x[-pad:], x, x[:pad]])
    ys = np.concatenate([y[-pad:], y, y[:pad]])
    box = np.ones(15) / 15  # 30 m
    for _ in range(3):
        xs = np.convolve(xs, box, mode="same")
        ys = np.convolve(ys, box, mode="same")
    x, y = xs[pad:-pad], ys[pad:-pad]
    xx = np.concatenate([x[-30:], x, x[:30]])
    yy = np.concatenate([y[-30:], y, y[:30]])
    h = np.unwrap(np.arctan2(np.diff(yy), np.diff(xx)))
    k = np.gradient(h) / DS
    win = int(40 / DS)  # 40 m window removes map noise, keeps corners
    k = np.convolve(k, np.ones(win) / win, mode="same")
    k = np.convolve(k, np.ones(win) / win, mode="same")
    k = k[30 : 30 + len(grid)]
    k = np.clip(k, -1 / 18.0, 1 / 18.0)
    return grid, k


TYRE_GRIP = 1.25  # track tyres: the driver uses more lateral grip than the road-car figure


def _speed_limit(k: np.ndarray, car: CarProfile, grip: float) -> np.ndarray:
    v_max = 245 / 3.6
    with np.errstate(divide="ignore"):
        v = np.sqrt(car.vehicle.max_g_lat * TYRE_GRIP * grip * G / np.maximum(np.abs(k), 1e-6))
    return np.minimum(v, v_max)


def _passes(vlim: np.ndarray, car: CarProfile, grip: float, v0: float | None = None) -> np.ndarray:
    n = len(vlim)
    v = vlim.copy()
    # closed loop: run twice around so the start speed is consistent
    fwd = np.empty(n)
    cur = v0 if v0 is not None else vlim[0]
    for _ in range(2):
        for i in range(n):
            fwd[i] = min(v[i], cur)
            a = _accel(float(fwd[i]), car, grip)
            cur = math.sqrt(max(fwd[i] ** 2 + 2 * max(a, 0.0) * DS, 0.0))
    bwd = fwd.copy()
    cur = fwd[0]
    for _ in range(2):
        for i in range(n - 1, -1, -1):
            bwd[i] = min(fwd[i], cur)
            d = _decel(float(bwd[i]), car, grip)
            cur = math.sqrt(bwd[i] ** 2 + 2 * d * DS)
    return bwd


def _brake_start(v: np.ndarray, apex_i: int, n: int) -> int:
    """Index where the braking zone that ends near ``apex_i`` starts (walk back while decelerating)."""
    i = apex_i
    steps = 0
    while steps < int(400 / DS):
        j = (i - 1) % n
        if v[j] <= v[i] + 1e-6:
            break
        i = j
        steps += 1
    return i


def _decel(v: float, car: CarProfile, grip: float, use: float = BRAKE_USE) -> float:
    """Braking deceleration, m/s^2: a share of the car's brake limit (a clean lap's by default) plus drag."""
    return car.vehicle.max_g_brake * G * grip * use + DRAG * v * v


def _accel(v: float, car: CarProfile, grip: float) -> float:
    veh = car.vehicle
    p_w = veh.power_kw * 1000 * 0.85
    return min(veh.max_g_accel * G * grip, p_w / (veh.mass_kg * max(v, 5.0))) - DRAG * v * v


def _lap_time(v: np.ndarray) -> float:
    vv = np.maximum(v, 0.5)
    return float(np.sum(DS / ((vv + np.roll(vv, -1)) / 2)))


def _brake_from(
    v: np.ndarray, i0: int, v_low: float, car: CarProfile, grip: float, hold_to: int, use: float = BRAKE_USE
) -> int:
    """From ``i0`` brake at ``use`` of the car's limit down to ``v_low``, hold it to ``hold_to``; the
    last index written."""
    n = len(v)
    cur = float(v[i0 % n])
    i = i0
    while cur > v_low + 1e-9 and i < i0 + n // 2:
        i += 1
        cur = math.sqrt(max(cur * cur - 2 * _decel(cur, car, grip, use) * DS, v_low * v_low))
        v[i % n] = cur
    while i < hold_to:
        i += 1
        v[i % n] = v_low
    return i


def _rejoin(v: np.ndarray, i: int, car: CarProfile, grip: float, clean: np.ndarray) -> int:
    """Accelerate from index ``i`` at the traction/power limit until the clean trace is rejoined; the
    last index written (``i`` when already on it)."""
    n = len(v)
    cur = float(v[i % n])
    last = i
    for j in range(i + 1, i + n // 2):
        cur = math.sqrt(max(cur * cur + 2 * max(_accel(cur, car, grip), 0.0) * DS, 0.0))
        if cur >= clean[j % n]:
            break
        v[j % n] = cur
        last = j
    return last


def _late_point(
    v: np.ndarray, b0: int, off: int, apex_i: int, vlim: np.ndarray, car: CarProfile, grip: float
) -> int:
    """The latest brake point up to ``off`` steps after ``b0`` from which braking at the car's full limit
    keeps the car within what running wide allows (RUN_WIDE x the line's grip speed) up to the apex."""
    n = len(v)
    for b1 in range(min(b0 + off, apex_i - 1), b0 - 1, -1):
        cur = float(v[b0 % n])
        for _ in range(b0, b1):  # stays on the power until b1
            cur = min(math.sqrt(cur * cur + 2 * max(_accel(cur, car, grip), 0.0) * DS), 245 / 3.6)
        ok = True
        for i in range(b1 + 1, apex_i + 1):
            cur = math.sqrt(max(cur * cur - 2 * _decel(cur, car, grip, 1.0) * DS, 1.0))
            if cur > RUN_WIDE * vlim[i % len(vlim)] * math.sqrt(grip):
                ok = False
                break
        if ok:
            return b1
    return b0


def _at(i: int, grid: np.ndarray) -> float:
    """Lap distance of index ``i`` of a trace that may run on into the next lap."""
    return float(grid[i % len(grid)])


def _apply_event(
    v: np.ndarray,
    grid: np.ndarray,
    ev: Event,
    track: TrackProfile,
    car: CarProfile,
    grip: float = 1.0,
    vlim: np.ndarray | None = None,
    base: np.ndarray | None = None,
) -> dict[str, Any] | None:
    """Modify one lap's speed trace for a driving mistake. Every mistake costs time: the trace is never
    faster than the clean one where the driver is within the car's limits, and a late brake (which gains
    on the straight) runs the car in deep until the loss outweighs the gain. Returns what was done,
    measured on the trace: the affected distance range, brake points, minimum speeds, time lost. The
    corner's apex and clean brake point are read off ``base`` (the lap before any mistake), so another
    mistake's slow exit before this corner does not move them."""
    c = track.find_corner(ev.corner_id or "")
    if c is None:
        return None
    n = len(v)
    clean = v.copy()
    ref = base if base is not None else clean
    lo, hi = int(c.start_m / DS), int(c.end_m / DS)
    apex_i = lo + int(np.argmin(ref[lo:hi]))
    b0 = _brake_start(ref, apex_i, n)
    off = max(1, int(round(ev.offset_m / DS)))
    v_apex = float(ref[apex_i])
    rec: dict[str, Any] = {
        "clean_brake_point_m": round(_at(b0, grid), 1),
        "apex_m": float(grid[apex_i]),
    }
    if ev.kind == "late_brake":
        # brakes later and at the car's full limit, runs wide (as far as grip allows) and in deep
        b1 = _late_point(v, b0, off, apex_i, vlim if vlim is not None else v, car, grip)
        for dv_kmh in np.arange(6.0, 40.0, 2.0):
            v[:] = clean
            for i in range(b0, b1):  # stays on the power
                cur = float(v[i % n])
                v[(i + 1) % n] = min(
                    math.sqrt(cur * cur + 2 * max(_accel(cur, car, grip), 0.0) * DS), 245 / 3.6
                )
            last = _brake_from(v, b1, v_apex - dv_kmh / 3.6, car, grip, apex_i, use=1.0)
            back = _rejoin(v, last, car, grip, clean)
            if _lap_time(v) - _lap_time(clean) >= MIN_COST_S:
                break
        rng_m = (_at(b0, grid), _at(b0, grid) + (back - b0) * DS)  # braking zone to back on the line
        rec["brake_point_m"] = round(_at(b1, grid), 1)
    elif ev.kind in ("early_brake", "lockup"):
        b1 = b0 - off if ev.kind == "early_brake" else b0
        drop = 4.0 if ev.kind == "early_brake" else 5.0  # over-slows the corner / eases off the lock
        v_low = v_apex - drop / 3.6
        last = _brake_from(v, b1, v_low, car, grip, apex_i)
        np.minimum(v, clean, out=v)
        back = _rejoin(v, last, car, grip, clean)
        rng_m = (_at(b1, grid), _at(b1, grid) + (back - b1) * DS)
        rec["brake_point_m"] = round(_at(b1, grid), 1)
    elif ev.kind == "coasting":
        # lifts early: coasts (no pedals, drag only) for duration_s, until it meets the braking curve
        k0 = b0 - int(v[b0 % n] * ev.duration_s / DS)
        cur = float(v[k0 % n])
        i = k0
        while i < b0 + n // 4:
            i += 1
            cur = math.sqrt(max(cur * cur - 2 * (ROLLING * G + DRAG * cur * cur) * DS, 1.0))
            if cur >= clean[i % n]:
                break
            v[i % n] = cur
        rng_m = (_at(k0, grid), _at(k0, grid) + (i - 1 - k0) * DS)
        rec["brake_point_m"] = round(_at(i - 1, grid), 1)
    elif ev.kind == "wheelspin":
        # power on too early: wheelspin halves the drive out of the corner for duration_s, from where
        # the clean lap is back on full power (its gain reaches the car's traction/power limit; a
        # corner whose grip still limits the exit is driven at part throttle until then)
        i = apex_i
        while i < apex_i + n // 8:
            gain = (float(clean[(i + 1) % n]) ** 2 - float(clean[i % n]) ** 2) / (2 * DS)
            if gain >= 0.8 * _accel(float(clean[i % n]), car, grip):
                break
            i += 1
        else:
            i = apex_i
        spin_i = i
        cur = float(clean[i % n])
        t_spin = 0.0
        while t_spin < ev.duration_s and i < spin_i + n // 4:
            a = 0.5 * max(_accel(cur, car, grip), 0.0)
            nxt = math.sqrt(cur * cur + 2 * a * DS)
            t_spin += 2 * DS / (cur + nxt)
            i += 1
            cur = min(nxt, float(clean[i % n]))
            v[i % n] = cur
        _rejoin(v, i, car, grip, clean)
        rng_m = (_at(spin_i, grid), _at(spin_i, grid) + (i - spin_i) * DS)
    else:
        return None
    lo_m, hi_m = c.start_m, c.end_m
    k = (grid >= lo_m) & (grid <= hi_m)
    rec["min_kmh"] = round(float(np.min(v[: len(grid)][k])) * 3.6, 1)
    rec["clean_min_kmh"] = round(float(np.min(clean[: len(grid)][k])) * 3.6, 1)
    rec["time_lost_s"] = round(_lap_time(v) - _lap_time(clean), 3)
    rec["range_m"] = (round(rng_m[0], 1), round(rng_m[1], 1))
    return rec


def _corner_start(track: TrackProfile, corner_id: str | None) -> float:
    c = track.find_corner(corner_id) if corner_id else None
    return c.start_m if c is not None else 0.0


def _limit(v: np.ndarray, car: CarProfile) -> np.ndarray:
    """Forward/backward passes on a distance trace so no step exceeds the car's traction/power and brake
    limits (joins between laps, the out-lap and the in-lap)."""
    out = v.copy()
    for i in range(1, len(out)):
        a = max(_accel(float(out[i - 1]), car, LIMIT_GRIP), 0.0)
        out[i] = min(out[i], math.sqrt(out[i - 1] ** 2 + 2 * a * DS))
    for i in range(len(out) - 2, -1, -1):
        out[i] = min(
            out[i], math.sqrt(out[i + 1] ** 2 + 2 * _decel(float(out[i + 1]), car, LIMIT_GRIP, 1.0) * DS)
        )
    return out


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
    grid, k = _curvature(track)
    L = track.length_m
    vlim = _speed_limit(k, car, 1.0)
    base = _passes(vlim, car, 1.0)
    scen = scenario if scenario is not None else Scenario.draw(laps, seed, sites(track, grid, base), kinds)
    if fixed:
        scen = scen.fixing(fixed, laps=laps)

    # ---- distance-domain speed trace for the whole session --------------------------
    segs_s: list[np.ndarray] = []
    segs_v: list[np.ndarray] = []
    pit_exit = L - 500.0
    # out-lap: from the pit exit, slower (tyres cold)
    out_v = _passes(_speed_limit(k, car, 0.85), car, 0.85)
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
        for ev in sorted(scen.events, key=lambda e: _corner_start(track, e.corner_id)):  # in track order
            if ev.lap == lap and ev.kind in DRIVING_MISTAKES:
                rec = _apply_event(ext, grid, ev, track, car, grips[lap - 1], vlim, lap_base)
                if rec is not None:
                    applied[(ev.kind, lap, ev.corner_id)] = rec
        slow = ext[n:] < lap_base[n:] - 1e-9
        carry = np.where(slow, ext[n:], np.inf) if slow.any() else None
        segs_s.append(grid + (lap - 1) * L)
        segs_v.append(ext[:n])
    # in-lap: cool-down pace, then into the pits
    in_v = _passes(_speed_limit(k, car, 0.7), car, 0.7)
    stop = int(1800 / DS)
    iv = in_v[:stop].copy()
    for i in range(stop - 1, max(stop - 150, 0), -1):
        iv[i] = min(iv[i], 5.0 + (stop - 1 - i) * 0.12)
    segs_s.append(grid[:stop] + laps * L)
    segs_v.append(iv)
    s_all = np.concatenate(segs_s)
    veh = car.vehicle
    v_all = _limit(np.maximum(np.concatenate(segs_v), 1.0), car)
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
    for w in ("fl", "fr", "rl", "rr"):
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
    for w in ("fl", "fr", "rl", "rr"):
        wide[f"tpms_press_{w}_bar"] = 2.0 + 0.35 * np.minimum(frac * 4, 1)
        wide[f"tpms_temp_{w}_c"] = 25 + 35 * np.minimum(frac * 4, 1)
        wide[f"tpms_alarm_{w}"] = np.zeros(ns)
    for name in ("abs_active", "dsc_active", "mil"):
        wide[name] = np.zeros(ns)

    truth_events: list[dict[str, Any]] = []
    for ev in scen.events:
        rec = _inject_signal_event(
            wide, ev, track, lap_no, lap_dist, t, rate_hz, applied.get((ev.kind, ev.lap, ev.corner_id))
        )
        if rec is not None:
            truth_events.append(rec)

    _brake_points_from_signals(wide, truth_events, lap_no, lap_dist, sorted(clean))
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


def _onset(
    wide: dict[str, np.ndarray], on: np.ndarray, lap_dist: np.ndarray, lo: float, hi: float
) -> float | None:
    """Lap distance where the brake pressure first rises above BRAKE_ONSET_BAR within [lo, hi]."""
    idx = np.where(on & (lap_dist >= lo) & (lap_dist <= hi))[0]
    hit = idx[wide["brake_bar"][idx] > BRAKE_ONSET_BAR]
    return round(float(lap_dist[hit[0]]), 1) if len(hit) else None


def _brake_points_from_signals(
    wide: dict[str, np.ndarray],
    events: list[dict[str, Any]],
    lap_no: np.ndarray,
    lap_dist: np.ndarray,
    clean_laps: list[int],
) -> None:
    """The truth's brake points are read off the generated brake-pressure signal (where it first rises),
    the mistake's lap against the median of the clean laps at that corner."""
    for e in events:
        if "brake_point_m" not in e:
            continue
        apex, trace_bp, trace_clean = e.pop("apex_m"), e["brake_point_m"], e["clean_brake_point_m"]
        lo = min(trace_bp, trace_clean, e.get("start_m", trace_bp)) - 40.0
        bp = _onset(wide, lap_no == e["lap"], lap_dist, lo, apex)
        cl = [_onset(wide, lap_no == k, lap_dist, trace_clean - 40.0, apex) for k in clean_laps]
        cl_ok = [x for x in cl if x is not None]
        if bp is not None and cl_ok:
            e["brake_point_m"] = bp
            e["clean_brake_point_m"] = round(float(np.median(cl_ok)), 1)
            e["brake_shift_m"] = round(bp - e["clean_brake_point_m"], 1)


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


def _inject_signal_event(
    wide: dict[str, np.ndarray],
    ev: Event,
    track: TrackProfile,
    lap_no: np.ndarray,
    lap_dist: np.ndarray,
    t: np.ndarray,
    rate_hz: float,
    applied: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Write an event into the signals; its truth record, with what ``_apply_event`` measured on the
    speed trace (brake points, minimum speeds, time lost) for driving mistakes."""
    on_lap = lap_no == ev.lap
    if not on_lap.any():
        return None
    c = track.find_corner(ev.corner_id) if ev.corner_id else None
    rec: dict[str, Any] = {
        "kind": ev.kind,
        "lap": ev.lap,
        "corner_id": ev.corner_id,
        "wheel": ev.wheel,
        "offset_m": ev.offset_m,
    }
    if applied is not None:
        rec.update({k: v for k, v in applied.items() if k != "range_m"})
        if "brake_point_m" in applied:
            rec["brake_shift_m"] = round(applied["brake_point_m"] - applied["clean_brake_point_m"], 1)
    elif ev.kind in DRIVING_MISTAKES:
        return None
    idx = np.where(on_lap)[0]
    if ev.kind in ("late_brake", "early_brake", "coasting") and c is not None:
        a, b = applied["range_m"] if applied else (c.start_m - 400, c.end_m)
        zone = idx[(lap_dist[idx] >= a) & (lap_dist[idx] <= b)]
        if not len(zone):
            return None
        if ev.kind == "coasting":
            wide["throttle_pct"][zone] = np.clip(wide["throttle_pct"][zone] * 0.0 + 1.0, 0, 2)
            wide["brake_bar"][zone] = 0.0
            wide["brake_switch"][zone] = 0.0
        rec["t_start_s"], rec["t_end_s"] = float(t[zone[0]]), float(t[zone[-1]])
        rec["start_m"], rec["end_m"] = round(a, 1), round(b, 1)
        return rec
    if ev.kind == "lockup" and c is not None:
        prev_end = max((o.end_m for o in track.corners if o.end_m < c.start_m), default=-1e9)
        lo = max(c.start_m - 200, prev_end)  # this corner's own braking zone, not the previous corner's
        zone = idx[(lap_dist[idx] > lo) & (lap_dist[idx] < c.apex_m) & (wide["brake_bar"][idx] > 20)]
        if not len(zone):
            return None
        k0 = zone[int(np.argmax(wide["brake_bar"][zone]))]
        span = np.arange(k0, min(k0 + int(ev.duration_s * rate_hz), len(t)))
        w = ev.wheel or "fl"
        # a locked wheel with the ABS silent (a wheel slower than the car while the ABS regulates is the
        # ABS at work, not a lockup: shared.events)
        wide[f"wheel_speed_{w}_kmh"][span] = np.maximum(wide["speed_kmh"][span] - 25.0, 0.0)
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        return rec
    if ev.kind == "wheelspin" and c is not None:
        zone = idx[
            (lap_dist[idx] > c.apex_m) & (lap_dist[idx] < c.end_m + 150) & (wide["throttle_pct"][idx] > 50)
        ]
        if not len(zone):
            return None
        k0 = zone[0]
        span = np.arange(k0, min(k0 + int(ev.duration_s * rate_hz), len(t)))
        w = ev.wheel or "rr"
        wide[f"wheel_speed_{w}_kmh"][span] = wide["speed_kmh"][span] + 18.0
        wide["dsc_active"][span] = 1.0
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        return rec
    if ev.kind == "oil_pressure_drop":
        load = idx[(wide["rpm"][idx] > 5000) & (wide["throttle_pct"][idx] > 80)]
        if not len(load):
            return None
        k0 = load[len(load) // 3]
        span = np.arange(k0, min(k0 + int(ev.duration_s * rate_hz), len(t)))
        wide["oil_press_bar"][span] = 0.6
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        at = track.corner_at(float(lap_dist[k0]))
        rec["corner_id"] = at.id if at else None
        rec["dist_m"] = float(lap_dist[k0])
        return rec
    if ev.kind == "tpms_alarm":
        w = ev.wheel or "rl"
        k0 = idx[len(idx) // 4]
        span = np.arange(k0, min(k0 + int((ev.duration_s or 15) * rate_hz), len(t)))
        wide[f"tpms_alarm_{w}"][span] = 1.0
        wide[f"tpms_press_{w}_bar"][span] -= np.linspace(0, 0.6, len(span))
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        return rec
    return None

"""The car on a distance grid: the track's curvature, the grip-limited speed, and the traction/power and
braking limits a speed trace keeps to (quasi-steady-state forward and backward passes)."""

from __future__ import annotations

import math

import numpy as np

from shared.profiles.car import CarProfile
from shared.profiles.track import TrackProfile
from shared.units import G

DS = 2.0  # m, simulation grid
BRAKE_USE = 0.92  # share of the car's brake limit a driver uses (clean laps and mistakes alike)
DRAG = 0.0004  # aerodynamic drag, m/s^2 per (m/s)^2
ROLLING = 0.03  # rolling resistance and engine braking off throttle, g
LIMIT_GRIP = 1.03  # the session-wide limit pass leaves room for a lap's grip variation
TYRE_GRIP = 1.25  # track tyres: the driver uses more lateral grip than the road-car figure


def curvature(track: TrackProfile) -> tuple[np.ndarray, np.ndarray]:
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


def speed_limit(k: np.ndarray, car: CarProfile, grip: float) -> np.ndarray:
    v_max = 245 / 3.6
    with np.errstate(divide="ignore"):
        v = np.sqrt(car.vehicle.max_g_lat * TYRE_GRIP * grip * G / np.maximum(np.abs(k), 1e-6))
    return np.minimum(v, v_max)


def passes(vlim: np.ndarray, car: CarProfile, grip: float, v0: float | None = None) -> np.ndarray:
    n = len(vlim)
    v = vlim.copy()
    # closed loop: run twice around so the start speed is consistent
    fwd = np.empty(n)
    cur = v0 if v0 is not None else vlim[0]
    for _ in range(2):
        for i in range(n):
            fwd[i] = min(v[i], cur)
            a = accel(float(fwd[i]), car, grip)
            cur = math.sqrt(max(fwd[i] ** 2 + 2 * max(a, 0.0) * DS, 0.0))
    bwd = fwd.copy()
    cur = fwd[0]
    for _ in range(2):
        for i in range(n - 1, -1, -1):
            bwd[i] = min(fwd[i], cur)
            d = decel(float(bwd[i]), car, grip)
            cur = math.sqrt(bwd[i] ** 2 + 2 * d * DS)
    return bwd


def brake_start(v: np.ndarray, apex_i: int, n: int) -> int:
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


def decel(v: float, car: CarProfile, grip: float, use: float = BRAKE_USE) -> float:
    """Braking deceleration, m/s^2: a share of the car's brake limit (a clean lap's by default) plus drag."""
    return car.vehicle.max_g_brake * G * grip * use + DRAG * v * v


def accel(v: float, car: CarProfile, grip: float) -> float:
    veh = car.vehicle
    p_w = veh.power_kw * 1000 * 0.85
    return min(veh.max_g_accel * G * grip, p_w / (veh.mass_kg * max(v, 5.0))) - DRAG * v * v


def lap_time(v: np.ndarray) -> float:
    vv = np.maximum(v, 0.5)
    return float(np.sum(DS / ((vv + np.roll(vv, -1)) / 2)))


def within_limits(v: np.ndarray, car: CarProfile) -> np.ndarray:
    """Forward/backward passes on a distance trace so no step exceeds the car's traction/power and brake
    limits (joins between laps, the out-lap and the in-lap)."""
    out = v.copy()
    for i in range(1, len(out)):
        a = max(accel(float(out[i - 1]), car, LIMIT_GRIP), 0.0)
        out[i] = min(out[i], math.sqrt(out[i - 1] ** 2 + 2 * a * DS))
    for i in range(len(out) - 2, -1, -1):
        out[i] = min(
            out[i], math.sqrt(out[i + 1] ** 2 + 2 * decel(float(out[i + 1]), car, LIMIT_GRIP, 1.0) * DS)
        )
    return out

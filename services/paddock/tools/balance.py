"""Understeer and oversteer from yaw rate, steering angle and speed.

Method: the bicycle model's kinematic yaw rate for the steering the driver applied,
``r_kin = v * tan(delta_wheel) / L`` with ``delta_wheel = steering wheel angle / steering ratio`` (wheelbase
``L`` and the ratio from the car profile's ``vehicle:``, else its documented defaults, 2.6 m and 15:1), is
compared with the measured yaw rate over cornering samples (speed over 10 m/s, steering over 5 degrees).
The yaw gain is the median of ``|measured| / |kinematic|``: under 0.85 the car turns less than the
steering asks (understeer), over 1.15 more (oversteer), else neutral. Per corner: the samples inside the
corner's zone on valid full laps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.tools.base import (
    car_profile,
    find_corner,
    r,
    session_arrays,
    session_row,
    track_corners,
    valid_laps,
)
from services.paddock.tools.recorded import recorded
from shared.profiles.car import VehicleConstants

UNDERSTEER_GAIN = 0.85
OVERSTEER_GAIN = 1.15
MIN_SPEED_MS = 10.0
MIN_STEER_DEG = 5.0
MIN_SAMPLES = 20
_NEEDS = ("speed", "steering", "yaw_rate")


def verdict(gain: float) -> str:
    return "understeer" if gain < UNDERSTEER_GAIN else ("oversteer" if gain > OVERSTEER_GAIN else "neutral")


def yaw_gain(
    v_ms: np.ndarray, steer_deg: np.ndarray, yaw_dps: np.ndarray, veh: VehicleConstants
) -> tuple[float, float]:
    """(median measured/kinematic yaw-rate ratio, share of samples where the two disagree in sign)."""
    expected = np.degrees(v_ms * np.tan(np.radians(steer_deg / veh.steering_ratio)) / veh.wheelbase_m)
    counter = float(np.mean(np.sign(yaw_dps) != np.sign(expected)))
    gain = float(np.median(np.abs(yaw_dps) / np.maximum(np.abs(expected), 1e-3)))
    return gain, counter


def _vehicle(car_id: str | None) -> tuple[VehicleConstants, str]:
    """The car's constants and where the wheelbase and steering ratio come from."""
    veh = car_profile(car_id).vehicle
    stated = {"wheelbase_m", "steering_ratio"} <= veh.model_fields_set
    return veh, "the car profile" if stated else "Pitwall's defaults"


def get_handling_balance(session_id: str, corner_name: str | None = None) -> dict[str, Any]:
    """Understeer or oversteer: measured yaw rate against a bicycle-model yaw rate from steering, speed, wheelbase and steering ratio; per corner, or for one corner."""
    s = session_row(session_id)
    sid = s["session_id"]
    veh, source = _vehicle(s.get("car_id"))
    a = session_arrays(sid, ("speed_kmh", "steer_deg", "yaw_rate_dps"))
    rec = recorded(sid, a, _NEEDS)
    base = {"session_id": sid, **rec.fields(*_NEEDS)}
    if not base["recorded"]:
        return {**base, "available": False, "reason": "the balance needs speed, steering angle and yaw rate"}
    v, st, yaw = a["speed_kmh"] / 3.6, a["steer_deg"], a["yaw_rate_dps"]
    with np.errstate(invalid="ignore"):
        m = np.isfinite(st) & np.isfinite(yaw) & (v > MIN_SPEED_MS) & (np.abs(st) > MIN_STEER_DEG)
    on_lap = np.isin(a["lap"], [x["lap"] for x in valid_laps(sid)])
    zones = [find_corner(s["track_id"], corner_name)] if corner_name else track_corners(s.get("track_id"))
    corners = []
    for c in zones:
        k = m & on_lap & (a["dist_m"] >= c.start_m) & (a["dist_m"] <= c.end_m)
        if k.sum() < MIN_SAMPLES:
            corners.append({"corner": c.id, "name": c.name, "samples": int(k.sum()), "verdict": None})
            continue
        g, _ = yaw_gain(v[k], st[k], yaw[k], veh)
        corners.append(
            {"corner": c.id, "name": c.name, "samples": int(k.sum()), "yaw_gain": r(g), "verdict": verdict(g)}
        )
    if corner_name:  # the corner's figures are its row's: valid laps only
        m &= on_lap & (a["dist_m"] >= zones[0].start_m) & (a["dist_m"] <= zones[0].end_m)
    if m.sum() < MIN_SAMPLES:
        return {
            **base,
            "available": False,
            "reason": "not enough cornering samples with steering and yaw rate",
        }
    gain, counter = yaw_gain(v[m], st[m], yaw[m], veh)
    warn = None
    if counter > 0.5:
        warn = "steering and yaw rate disagree in sign on over 50 % of samples: check the sign convention"
    return {
        **base,
        "available": True,
        "corner": corner_name,
        "wheelbase_m": veh.wheelbase_m,
        "steering_ratio": veh.steering_ratio,
        "constants_from": source,
        "yaw_gain": r(gain),
        "verdict": verdict(gain),
        "counter_steer_share": r(counter),
        "warning": warn,
        "samples": int(m.sum()),
        "corners": corners,
    }

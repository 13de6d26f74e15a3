"""What kind of vehicle a session's data comes from, so that "not recorded" names only what that kind of
vehicle has: a kart has no ABS, DSC, engine warning light, TPMS, oil or fuel pressure; an electric car no
engine oil, fuel pressure or engine warning light.

The evidence, strongest first: the car profile's ``vehicle.kind``; the file's battery (a live channel
named for the battery's charge or current: electric); the names the file gives the vehicle (its header's
vehicle name saying kart); then the data: a direct-drive engine (one fixed ratio of engine speed to road
speed all session, no gearbox) revving past ``KART_RPM`` is a kart's (a car in one gear stays far below
it). Anything else is a car."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from services.paddock.tools.base import car_profile, session_arrays

#: the measures (tools.recorded.MEASURES keys) a kind of vehicle has not got
NOT_FITTED: dict[str, frozenset[str]] = {
    "car": frozenset(),
    "kart": frozenset(
        {"abs", "dsc", "mil", "tpms", "tpms_temp", "tpms_alarm", "oil_pressure", "fuel_pressure"}
    ),
    "electric": frozenset({"mil", "oil_pressure", "oil_temp", "fuel_pressure"}),
}
KART_RPM = 9000.0  # the 99th percentile of engine speed a direct-drive kart engine passes (2-stroke: 11-16k)
ONE_RATIO = 1.25  # engine speed over road speed: 90th over 10th percentile under this is one fixed ratio
MOVING_KMH = 30.0  # the ratio is read above this speed with the engine above 1,000 rpm (clutch engaged)
MIN_SAMPLES = 100  # fewer moving samples (5 s at 20 Hz) tell nothing: a car
_KART = re.compile(r"\bkart(s|ing)?\b", re.IGNORECASE)


def direct_drive_kart(rpm: np.ndarray, speed_kmh: np.ndarray) -> bool:
    """A direct-drive kart engine: one ratio of rpm to speed while moving, past ``KART_RPM``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        on = np.isfinite(rpm) & np.isfinite(speed_kmh) & (speed_kmh > MOVING_KMH) & (rpm > 1000)
        if on.sum() < MIN_SAMPLES:
            return False
        ratio = rpm[on] / speed_kmh[on]
        lo, hi = np.percentile(ratio, [10, 90])
        return bool(hi / lo < ONE_RATIO and np.percentile(rpm[on], 99) >= KART_RPM)


def vehicle_kind(s: dict[str, Any], electric: bool = False) -> str:
    """``"kart"``, ``"electric"`` or ``"car"`` for the session row ``s`` (``electric``: the file has a
    live battery charge or current channel)."""
    said = car_profile(s.get("car_id")).vehicle.kind
    if said is not None:
        return said
    if electric:
        return "electric"
    if _KART.search(str(s.get("car_name") or "")):
        return "kart"
    a = session_arrays(str(s["session_id"]), ("rpm", "speed_kmh"))
    return "kart" if direct_drive_kart(a["rpm"], a["speed_kmh"]) else "car"

"""What makes an event, for the one event detector (``shared.event_detect`` over a whole session,
``shared.events.LiveEvents`` one frame at a time): one vocabulary (``EVENT_KINDS``), one threshold table
(``EVENT_THRESHOLDS``, overridden per car by the car profile's ``thresholds:``), one set of predicates, the
runs a condition holds for and the corner an event belongs to. The hot path's safety rules and corner watcher
call the same predicates frame by frame or corner by corner, and the paddock tools read the same names, so
live and imported sessions store the same event names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from shared.profiles.track import Corner
from shared.signals import WHEELS as WHEELS  # named here too: the paddock's tools read ``ev.WHEELS``

DRIVEN_WHEELS = ("rl", "rr")

# ---- the vocabulary -------------------------------------------------------------------
LOCKUP = "lockup"
WHEELSPIN = "wheelspin"
ABS = "abs"
DSC = "dsc"
MIL = "mil"
TPMS_ALARM = "tpms_alarm"
TPMS_DROP = "tpms_drop"
OIL_PRESSURE = "oil_pressure"
COOLANT = "coolant"
ALARM = "alarm"  # a logger alarm channel (detail: its name); imports only, live frames carry wide columns
EVENT_KINDS = (LOCKUP, WHEELSPIN, ABS, DSC, MIL, TPMS_ALARM, TPMS_DROP, OIL_PRESSURE, COOLANT, ALARM)
# driver incidents (what "scary moments" are made of); the rest is car health
INCIDENT_KINDS = (LOCKUP, WHEELSPIN, ABS, DSC)
FLAG_CHANNELS = {ABS: "abs_active", DSC: "dsc_active", MIL: "mil"}

# ---- the one threshold table (a car profile's ``thresholds:`` overrides any of them) --------
EVENT_THRESHOLDS: dict[str, float] = {
    "slip_lockup_kmh": 12.0,  # a wheel this much slower than the car under braking
    "slip_spin_kmh": 8.0,  # a driven wheel this much faster than the car on throttle
    "slip_brake_bar": 5.0,  # braking: pressure above
    "slip_throttle_pct": 30.0,  # driving: throttle above
    "slip_min_speed_kmh": 15.0,  # below this wheel-speed noise is not slip
    "event_min_s": 0.15,  # a slip shorter than this is sensor noise
    "oil_press_min_bar": 1.0,  # oil pressure below this under load
    "oil_rpm_min": 3000.0,  # load: rpm above
    "oil_throttle_min_pct": 10.0,  # load: throttle above
    "coolant_max_c": 105.0,  # coolant above
    "tpms_drop_bar": 0.4,  # tyre pressure this far below its session baseline
}
FLAG_ON = 0.5


def event_thresholds(overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """The table with a car profile's overrides applied (keys that are not event thresholds are ignored:
    they belong to RuleCoach's technique table, which validates them)."""
    out = dict(EVENT_THRESHOLDS)
    for k, v in (overrides or {}).items():
        if k in out:
            out[k] = float(v)
    return out


# ---- predicates: the same code for one frame (floats) and a whole session (arrays) -----------
def is_lockup(wheel_kmh: Any, speed_kmh: Any, brake_bar: Any, th: Mapping[str, float]) -> Any:
    return (
        (wheel_kmh - speed_kmh < -th["slip_lockup_kmh"])
        & (brake_bar > th["slip_brake_bar"])
        & (speed_kmh > th["slip_min_speed_kmh"])
    )


def is_wheelspin(wheel_kmh: Any, speed_kmh: Any, throttle_pct: Any, th: Mapping[str, float]) -> Any:
    return (
        (wheel_kmh - speed_kmh > th["slip_spin_kmh"])
        & (throttle_pct > th["slip_throttle_pct"])
        & (speed_kmh > th["slip_min_speed_kmh"])
    )


def is_oil_pressure_low(oil_bar: Any, rpm: Any, throttle_pct: Any, th: Mapping[str, float]) -> Any:
    return (
        (oil_bar < th["oil_press_min_bar"])
        & (rpm > th["oil_rpm_min"])
        & (throttle_pct > th["oil_throttle_min_pct"])
    )


def is_coolant_hot(water_c: Any, th: Mapping[str, float]) -> Any:
    return water_c > th["coolant_max_c"]


def is_flag_on(v: Any) -> Any:
    return v >= FLAG_ON


TPMS_WARMING_STEP_BAR = 0.5  # a rise smaller than this is the tyre warming up: the baseline follows it


def tpms_drop(baseline: dict[str, float], wheel: str, press_bar: float) -> float | None:
    """How far ``wheel``'s pressure is below its session baseline (its first reading, raised as the tyre
    warms), updating ``baseline``; None for a reading that is not a number."""
    if not math.isfinite(press_bar):
        return None
    base = baseline.setdefault(wheel, press_bar)
    if base < press_bar < base + TPMS_WARMING_STEP_BAR:
        baseline[wheel] = base = press_bar
    return base - press_bar


def min_samples(dt_s: float, th: Mapping[str, float]) -> int:
    """The fewest consecutive samples, at ``dt_s`` apart, that make an event of at least ``event_min_s``."""
    return max(1, math.ceil(th["event_min_s"] / max(dt_s, 1e-3) - 1e-6))  # 0.15 s at 10 Hz: 2 samples


# ---- runs -------------------------------------------------------------------------------
def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index runs where mask is true."""
    if not mask.any():
        return []
    m = np.concatenate([[False], mask, [False]])
    d = np.diff(m.astype(np.int8))
    return list(zip(np.where(d == 1)[0].tolist(), np.where(d == -1)[0].tolist(), strict=True))


def corner_for(dist: float, corners: list[Corner], margin_m: float = 150.0) -> str | None:
    """The corner an event at lap distance ``dist`` belongs to (its approach counts)."""
    best = None
    for c in corners:
        if c.start_m - margin_m <= dist <= c.end_m + margin_m:
            score = abs(dist - (c.start_m + c.end_m) / 2)
            if best is None or score < best[0]:
                best = (score, c.id)
    return best[1] if best else None

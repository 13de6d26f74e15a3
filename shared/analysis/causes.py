"""Why a lap lost time at a corner: one table of rules, tried in order against the corner's typical
figures, each with its evidence in the driver's words (both numbers). Thresholds are the coaching
table's (``shared.thresholds``), shared with the hot path's cues."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from shared.analysis.model import OFF, TYPICAL, CornerLap, finite


@dataclass(frozen=True)
class Rule:
    cause: str
    test: Callable[[CornerLap, Mapping[str, float]], bool]
    says: Callable[[CornerLap], str]


def _d(a: float, b: float) -> float:
    return a - b if finite(a) and finite(b) else 0.0


def _off(r: CornerLap, th: Mapping[str, float]) -> bool:
    """A stop, a spin or an off: the car all but stopped where your good laps go on, or the corner took
    several times as long. Nothing a driver changes by technique: kept out of where the time is."""
    stopped = finite(r.min_kmh) and r.min_kmh < th["off_kmh"] and _d(r.typ_min_kmh, 2 * th["off_kmh"]) > 0
    return stopped or (finite(r.typical_s) and r.time_s > th["off_time_ratio"] * r.typical_s > 0)


RULES: tuple[Rule, ...] = (
    Rule(
        OFF,
        _off,
        lambda r: (
            f"{r.time_s:.1f} s through {r.corner} where {TYPICAL} take {r.typical_s:.1f} s, minimum {r.min_kmh:.0f} km/h"
        ),
    ),
    Rule(
        "lockup",
        lambda r, th: finite(r.lockup_s) and r.lockup_s >= th["event_min_s"],
        lambda r: (
            f"a wheel locked for {r.lockup_s:.1f} s under braking ({r.slip_kmh:.0f} km/h slower than the car)"
        ),
    ),
    Rule(
        "wheelspin",
        lambda r, th: finite(r.wheelspin_s) and r.wheelspin_s >= th["event_min_s"],
        lambda r: (
            f"the rear wheels spun for {r.wheelspin_s:.1f} s on the exit ({r.slip_kmh:.0f} km/h faster than the car)"
        ),
    ),
    Rule(
        "coasting",
        lambda r, th: _d(r.coast_s, r.typ_coast_s) >= th["coast_min_s"],
        lambda r: (
            f"{r.coast_s:.1f} s with neither pedal into {r.corner} (on {TYPICAL}: {r.typ_coast_s:.1f} s)"
        ),
    ),
    Rule(
        "early_brake",
        lambda r, th: _d(r.typ_brake_m, r.brake_m) >= th["brake_point_delta_m"],
        lambda r: (
            f"braked {r.typ_brake_m - r.brake_m:.0f} m earlier than on {TYPICAL} ({r.brake_m:.0f} m, not {r.typ_brake_m:.0f} m)"
        ),
    ),
    Rule(
        "late_brake",
        lambda r, th: _d(r.brake_m, r.typ_brake_m) >= th["brake_point_delta_m"],
        lambda r: (
            f"braked {r.brake_m - r.typ_brake_m:.0f} m later than on {TYPICAL} ({r.brake_m:.0f} m, not {r.typ_brake_m:.0f} m), minimum {r.min_kmh:.0f} km/h"
        ),
    ),
    Rule(
        "slow_minimum",
        lambda r, th: _d(r.typ_min_kmh, r.min_kmh) >= th["over_slow_kmh"],
        lambda r: f"minimum {r.min_kmh:.0f} km/h, on {TYPICAL} {r.typ_min_kmh:.0f} km/h",
    ),
    Rule(
        "weak_exit",
        lambda r, th: (
            _d(r.typ_exit_kmh, r.exit_kmh) >= th["weak_exit_kmh"]
            or _d(r.pickup_m, r.typ_pickup_m) >= th["late_power_m"]
        ),
        lambda r: f"exit {r.exit_kmh:.0f} km/h, on {TYPICAL} {r.typ_exit_kmh:.0f} km/h",
    ),
)


def name_cause(r: CornerLap, th: Mapping[str, float]) -> None:
    """Set ``r.cause`` and ``r.evidence`` when the lap lost time here (``opportunity_min_s`` or more)."""
    if not r.loss_s >= th["opportunity_min_s"]:
        r.cause, r.evidence = "", ""
        return
    for rule in RULES:
        if rule.test(r, th):
            r.cause, r.evidence = rule.cause, rule.says(r)
            return
    r.cause = "unexplained"
    r.evidence = f"{r.loss_s:.2f} s slower than on {TYPICAL} with no single input to blame"

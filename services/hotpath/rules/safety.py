"""Car-health safety rules: evaluated on every frame, delivered at once (priority 3).

The conditions are the event detector's predicates (``shared.event_conditions``): a live session raises the same
events, with the same thresholds and names, as an imported one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.hotpath.rules.registry import RuleHit, register
from shared import event_conditions as ev
from shared.signals import WHEELS


@dataclass
class SafetyContext:
    th: dict[str, float]
    tpms_baseline: dict[str, float] = field(default_factory=dict)
    last_flags: dict[str, float] = field(default_factory=dict)


def oil_pressure_low(row: dict[str, float], ctx: SafetyContext) -> RuleHit | None:
    oil, rpm, thr = row.get("oil_press_bar"), row.get("rpm"), row.get("throttle_pct")
    if oil is None or rpm is None or thr is None:
        return None
    if ev.is_oil_pressure_low(oil, rpm, thr, ctx.th):
        return RuleHit(
            "oil_pressure_low",
            3,
            "oil_pressure",
            detail={"oil_bar": round(oil, 2), "rpm": round(rpm)},
            event=ev.OIL_PRESSURE,
        )
    return None


def coolant_hot(row: dict[str, float], ctx: SafetyContext) -> RuleHit | None:
    w = row.get("water_temp_c")
    if w is not None and ev.is_coolant_hot(w, ctx.th):
        return RuleHit("coolant_hot", 3, "coolant_hot", detail={"water_c": round(w, 1)}, event=ev.COOLANT)
    return None


_TPMS_KEYS = tuple((w, f"tpms_alarm_{w}", f"tpms_press_{w}_bar") for w in WHEELS)


def tyre_warning(row: dict[str, float], ctx: SafetyContext) -> RuleHit | None:
    for w, alarm_key, press_key in _TPMS_KEYS:
        alarm = row.get(alarm_key)
        p = row.get(press_key)
        drop = None if p is None else ev.tpms_drop(ctx.tpms_baseline, w, p)
        if alarm is not None and alarm > 0:  # the event detector's predicate (a bitfield above 0)
            return RuleHit(
                "tyre_warning", 3, "tyre_alarm", wheel=w, detail={"alarm": alarm}, event=ev.TPMS_ALARM
            )
        if drop is not None and drop >= ctx.th["tpms_drop_bar"]:
            return RuleHit(
                "tyre_warning",
                3,
                "tyre_alarm",
                wheel=w,
                detail={"drop_bar": round(drop, 2)},
                event=ev.TPMS_DROP,
            )
    return None


def _rising(row: dict[str, float], ctx: SafetyContext, key: str) -> bool:
    v = row.get(key)
    if v is None:
        return False
    prev = ctx.last_flags.get(key, 0.0)
    ctx.last_flags[key] = v
    return bool(ev.is_flag_on(v) and not ev.is_flag_on(prev))


def mil_on(row: dict[str, float], ctx: SafetyContext) -> RuleHit | None:
    return RuleHit("mil_on", 3, "mil_on", event=ev.MIL) if _rising(row, ctx, "mil") else None


def abs_event(row: dict[str, float], ctx: SafetyContext) -> RuleHit | None:
    return RuleHit("abs_event", 3, "abs_event", event=ev.ABS) if _rising(row, ctx, "abs_active") else None


def dsc_event(row: dict[str, float], ctx: SafetyContext) -> RuleHit | None:
    return RuleHit("dsc_event", 3, "dsc_event", event=ev.DSC) if _rising(row, ctx, "dsc_active") else None


# registered without a decorator, so mutation testing reaches the rule bodies
register(
    oil_pressure_low, "oil_pressure_low", priority=3, cooldown_s=20, phrases=("oil_pressure",), kind="safety"
)
register(coolant_hot, "coolant_hot", priority=3, cooldown_s=60, phrases=("coolant_hot",), kind="safety")
register(tyre_warning, "tyre_warning", priority=3, cooldown_s=30, phrases=("tyre_alarm",), kind="safety")
register(mil_on, "mil_on", priority=3, cooldown_s=120, phrases=("mil_on",), kind="safety")
register(abs_event, "abs_event", priority=3, cooldown_s=20, phrases=("abs_event",), kind="safety")
register(dsc_event, "dsc_event", priority=3, cooldown_s=20, phrases=("dsc_event",), kind="safety")

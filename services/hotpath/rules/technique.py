"""Technique rules: evaluated once per corner per lap, against the reference lap's same corner."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from services.hotpath.corner_live import CornerObservation, SlipEvent
from services.hotpath.rules.registry import RuleHit, register


@dataclass
class CornerContext:
    ref: CornerObservation  # the reference lap's observation of this corner
    history: list[CornerObservation]  # this corner on earlier laps of the session, oldest first
    th: dict[str, float]
    slips: list[SlipEvent] = field(default_factory=list)  # every slip of the last laps, all corners


def _m(o: CornerObservation, k: str) -> float | None:
    v = o.metrics.get(k)
    return None if v is None else float(v)


def _hit(
    name: str, prio: int, tpl: str, obs: CornerObservation, time_lost: bool = False, **detail: object
) -> RuleHit:
    return RuleHit(name, prio, tpl, obs.corner, None, obs.lap, time_lost, dict(detail))


def brake_point_off(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    bp, ref = _m(obs, "brake_point_m"), _m(ctx.ref, "brake_point_m")
    if bp is None or ref is None:
        return None
    lim = ctx.th["brake_point_delta_m"]
    d_now = bp - ref
    # twice the limit off costs time on its own (a 20 m early brake: about 0.2 s): said by the next lap;
    # a smaller shift only when the lap before was off the same way
    prev = _m(ctx.history[-1], "brake_point_m") if ctx.history else None
    if abs(d_now) >= 2 * lim:
        d_prev = d_now
    elif prev is None or ctx.history[-1].lap != obs.lap - 1:
        return None
    else:
        d_prev = prev - ref
    if d_now <= -lim and d_prev <= -lim:  # braking early twice
        tpl = "brake_at_marker" if obs.corner.brake_marker else "brake_later"
        return _hit("brake_point_off", 2, tpl, obs, True, delta_m=round(d_now, 1), direction="early")
    if d_now >= lim and d_prev >= lim and not _coasted(obs, ctx):  # late twice, not after a coast
        return _hit(
            "brake_point_off", 2, "brake_earlier", obs, False, delta_m=round(d_now, 1), direction="late"
        )
    return None


def brake_inconsistent(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    clean = [o for o in [*ctx.history, obs] if o.clean and _m(o, "brake_point_m") is not None][-3:]
    if len(clean) < 3:
        return None
    sd = float(np.std([float(o.metrics["brake_point_m"] or 0.0) for o in clean]))
    return (
        _hit("brake_inconsistent", 1, "brake_consistent", obs, sigma_m=round(sd, 1))
        if sd >= ctx.th["brake_point_sigma_m"]
        else None
    )


def weak_brake_peak(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    pk, ref = _m(obs, "brake_peak_bar"), _m(ctx.ref, "brake_peak_bar")
    if pk is None or ref is None or ref < 10:
        return None
    return (
        _hit("weak_brake_peak", 1, "brake_harder", obs, True, peak_bar=pk, ref_bar=ref)
        if pk < ctx.th["brake_peak_ratio"] * ref
        else None
    )


def no_trail_braking(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    now, ref = obs.brake_at_turn_in_bar, ctx.ref.brake_at_turn_in_bar
    if now is None or ref is None or _m(obs, "brake_point_m") is None:
        return None
    lim = ctx.th["trail_brake_bar"]
    return _hit("no_trail_braking", 1, "trail_brake", obs, True) if now < 0.5 and ref >= lim else None


def slow_brake_ramp(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    if obs.ramp_s is None or ctx.ref.ramp_s is None:
        return None
    slow = obs.ramp_s > ctx.th["brake_ramp_s"] and obs.ramp_s > ctx.ref.ramp_s + 0.15
    return (
        _hit("slow_brake_ramp", 1, "brake_squeeze", obs, True, ramp_s=round(obs.ramp_s, 2)) if slow else None
    )


def _coasted(obs: CornerObservation, ctx: CornerContext) -> bool:
    """A coast into the corner, longer than the reference's: the car arrives slower, so it also brakes
    later (that is the coast, not a late brake)."""
    return obs.coast_s > ctx.th["coast_min_s"] and obs.coast_s > ctx.ref.coast_s + 0.3


def coasting(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    if _coasted(obs, ctx):
        return _hit("coasting", 2, "no_coast", obs, True, coast_s=round(obs.coast_s, 2))
    return None


def inherited_kmh(obs: CornerObservation, ctx: CornerContext) -> float:
    """A speed loss up to this much came from the corner before, not from this one: how much slower than
    the reference the car was handed over (the previous corner's exit), in a corner it did not brake
    for. Where it braked, the speed it braked to was the driver's choice here."""
    a, r = obs.carried_kmh, ctx.ref.carried_kmh
    if a is None or r is None or _m(obs, "brake_point_m") is not None:
        return 0.0
    return max(0.0, r - a)


def over_slowing(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    v, ref = _m(obs, "min_kmh"), _m(ctx.ref, "min_kmh")
    if v is None or ref is None or obs.coast_out:
        return None  # a lift still held at the exit leads into the next corner: that one names it
    return (
        _hit("over_slowing", 1, "carry_speed", obs, True, delta_kmh=round(v - ref, 1))
        if ref - v - inherited_kmh(obs, ctx) >= ctx.th["over_slow_kmh"]
        else None
    )


def late_to_power(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    p, ref = _m(obs, "throttle_pickup_m"), _m(ctx.ref, "throttle_pickup_m")
    if p is None or ref is None or not (obs.lifted and ctx.ref.lifted) or obs.coast_out:
        return None  # flat-out corners have no pickup point worth coaching; a lift for the next one
    return (
        _hit("late_to_power", 1, "power_earlier", obs, True, delta_m=round(p - ref, 1))
        if p - ref >= ctx.th["late_power_m"]
        else None
    )


def weak_exit(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    v, ref = _m(obs, "exit_kmh"), _m(ctx.ref, "exit_kmh")
    ent, ref_ent = _m(obs, "entry_kmh"), _m(ctx.ref, "entry_kmh")
    if v is None or ref is None or ent is None or ref_ent is None or obs.coast_out:
        return None  # a coast still going at the exit leads into the next corner: that one names it
    if (
        ref - v - inherited_kmh(obs, ctx) >= ctx.th["weak_exit_kmh"]
        and ent - ref_ent < ctx.th["entry_fast_kmh"]
    ):
        return _hit("weak_exit", 1, "better_exit", obs, True, delta_kmh=round(v - ref, 1))
    return None


def over_driving_entry(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    ent, ref_ent = _m(obs, "entry_kmh"), _m(ctx.ref, "entry_kmh")
    ex, ref_ex = _m(obs, "exit_kmh"), _m(ctx.ref, "exit_kmh")
    if None in (ent, ref_ent, ex, ref_ex):
        return None
    assert ent is not None and ref_ent is not None and ex is not None and ref_ex is not None
    if ent - ref_ent >= ctx.th["entry_fast_kmh"] and ref_ex - ex >= 2.0:
        return _hit(
            "over_driving_entry", 2, "slow_in_fast_out", obs, True, entry_delta_kmh=round(ent - ref_ent, 1)
        )
    return None


def throttle_hesitation(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    if (
        obs.throttle_drop_pct >= ctx.th["throttle_drop_pct"]
        and ctx.ref.throttle_drop_pct < ctx.th["throttle_drop_pct"]
    ):
        return _hit(
            "throttle_hesitation", 1, "commit_throttle", obs, True, drop_pct=round(obs.throttle_drop_pct, 1)
        )
    return None


def pedal_overlap(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    if obs.overlap_s > ctx.th["overlap_min_s"]:
        return _hit("pedal_overlap", 1, "pedal_overlap", obs, overlap_s=round(obs.overlap_s, 2))
    return None


def _slip_cost_kmh(obs: CornerObservation, ctx: CornerContext, kind: str) -> float:
    """The speed a slip cost against the reference: at the exit for wheelspin, at the minimum for a
    lockup (less what the corner was handed over slow)."""
    k = "exit_kmh" if kind == "wheelspin" else "min_kmh"
    v, ref = _m(obs, k), _m(ctx.ref, k)
    return 0.0 if v is None or ref is None else ref - v - inherited_kmh(obs, ctx)


def repeated_slip(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    """A slip repeated (``slip_repeats`` in 3 laps), or one that cost speed (``over_slow_kmh``): that
    one is heard on the next lap."""
    window = ctx.th["slip_window_m"]
    for s in obs.slips:
        same = [
            x
            for x in ctx.slips
            if x.kind == s.kind
            and x.wheel == s.wheel
            and abs(x.dist_m - s.dist_m) <= window
            and x.lap > obs.lap - 3
        ]
        costly = _slip_cost_kmh(obs, ctx, s.kind) >= ctx.th["over_slow_kmh"]
        if costly or len({(x.lap, round(x.dist_m)) for x in same}) >= ctx.th["slip_repeats"]:
            tpl = "lockup_repeat" if s.kind == "lockup" else "wheelspin_repeat"
            hit = _hit("repeated_slip", 2, tpl, obs, False, kind=s.kind, count=len(same))
            hit.wheel = s.wheel
            return hit
    return None


def exit_steering_corrections(obs: CornerObservation, ctx: CornerContext) -> RuleHit | None:
    lim = int(ctx.th["steer_corrections"])
    if obs.steer_reversals >= lim and ctx.ref.steer_reversals < lim:
        return _hit("exit_steering_corrections", 1, "smooth_hands", obs, reversals=obs.steer_reversals)
    return None


# registered without a decorator, so mutation testing reaches the rule bodies
register(
    brake_point_off,
    "brake_point_off",
    priority=2,
    cooldown_s=0,
    phrases=("brake_later", "brake_at_marker", "brake_earlier"),
)
register(brake_inconsistent, "brake_inconsistent", priority=1, cooldown_s=0, phrases=("brake_consistent",))
register(weak_brake_peak, "weak_brake_peak", priority=1, cooldown_s=0, phrases=("brake_harder",))
register(no_trail_braking, "no_trail_braking", priority=1, cooldown_s=0, phrases=("trail_brake",))
register(slow_brake_ramp, "slow_brake_ramp", priority=1, cooldown_s=0, phrases=("brake_squeeze",))
register(coasting, "coasting", priority=2, cooldown_s=0, phrases=("no_coast",))
register(over_slowing, "over_slowing", priority=1, cooldown_s=0, phrases=("carry_speed",))
register(late_to_power, "late_to_power", priority=1, cooldown_s=0, phrases=("power_earlier",))
register(weak_exit, "weak_exit", priority=1, cooldown_s=0, phrases=("better_exit",))
register(over_driving_entry, "over_driving_entry", priority=2, cooldown_s=0, phrases=("slow_in_fast_out",))
register(throttle_hesitation, "throttle_hesitation", priority=1, cooldown_s=0, phrases=("commit_throttle",))
register(pedal_overlap, "pedal_overlap", priority=1, cooldown_s=0, phrases=("pedal_overlap",))
register(
    repeated_slip, "repeated_slip", priority=2, cooldown_s=0, phrases=("lockup_repeat", "wheelspin_repeat")
)
register(
    exit_steering_corrections,
    "exit_steering_corrections",
    priority=1,
    cooldown_s=0,
    phrases=("smooth_hands",),
)

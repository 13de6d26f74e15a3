"""RuleCoach's rules one by one, at their thresholds (just inside fires, just outside does not), the
safety rules on single frames, and RuleCoach's reference handling (session best, gold lap, pace)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from services.hotpath.corner_live import CornerObservation, SlipEvent
from services.hotpath.rules import technique as T
from services.hotpath.rules.coach import RuleCoach, reference_from_trace
from services.hotpath.rules.loaded import load_rules
from services.hotpath.rules.safety import SafetyContext
from services.hotpath.rules.thresholds import DEFAULT_THRESHOLDS, thresholds_for
from shared.laps import Lap
from shared.profiles.track import Corner, TrackProfile, load_track

TH = dict(DEFAULT_THRESHOLDS)


@pytest.fixture(scope="module")
def track() -> TrackProfile:
    return load_track("sonoma")


@pytest.fixture(scope="module")
def t4(track: TrackProfile) -> Corner:
    c = track.find_corner("t4")
    assert c is not None and c.brake_marker is not None
    return c


def obs(corner: Corner, lap: int = 5, **kw: Any) -> CornerObservation:
    m = {
        "entry_kmh": 120.0,
        "min_kmh": 80.0,
        "exit_kmh": 110.0,
        "apex_m": corner.apex_m,
        "brake_point_m": corner.start_m - 60,
        "brake_peak_bar": 90.0,
        "throttle_pickup_m": corner.apex_m + 10,
    }
    m.update(kw.pop("metrics", {}))
    base: dict[str, Any] = {
        "brake_at_turn_in_bar": 10.0,
        "ramp_s": 0.2,
        "approach_kmh": 180.0,
        "lifted": True,
    }
    base.update(kw)
    return CornerObservation(lap, corner, m, **base)


def ctx(
    ref: CornerObservation, history: list[CornerObservation] | None = None, **th: float
) -> T.CornerContext:
    return T.CornerContext(ref, history or [], {**TH, **th}, [])


# ---- brake point ------------------------------------------------------------------------
def test_brake_point_off_needs_two_consecutive_laps_beyond_the_limit(t4: Corner) -> None:
    ref = obs(t4, 2)
    bp = ref.metrics["brake_point_m"]
    assert bp is not None
    early = [obs(t4, 4, metrics={"brake_point_m": bp - 10}), obs(t4, 5, metrics={"brake_point_m": bp - 10})]
    h = T.brake_point_off(early[1], ctx(ref, [early[0]]))
    assert h is not None and h.template == "brake_at_marker" and h.detail["direction"] == "early"
    assert h.time_lost and h.priority == 2 and h.source_lap == 5 and h.corner is t4
    late = [obs(t4, 4, metrics={"brake_point_m": bp + 10}), obs(t4, 5, metrics={"brake_point_m": bp + 10})]
    h = T.brake_point_off(late[1], ctx(ref, [late[0]]))
    assert h is not None and h.template == "brake_earlier" and h.detail["delta_m"] == 10.0
    assert not h.time_lost
    # one lap only, or just inside the limit, or not the previous lap: silent
    assert T.brake_point_off(early[1], ctx(ref, [obs(t4, 4)])) is None
    near = obs(t4, 4, metrics={"brake_point_m": bp - 9.9})
    assert T.brake_point_off(obs(t4, 5, metrics={"brake_point_m": bp - 9.9}), ctx(ref, [near])) is None
    assert T.brake_point_off(early[1], ctx(ref, [obs(t4, 3, metrics={"brake_point_m": bp - 10})])) is None
    assert T.brake_point_off(early[1], ctx(ref, [])) is None
    assert T.brake_point_off(early[1], ctx(obs(t4, 2, metrics={"brake_point_m": None}), [early[0]])) is None


def test_a_later_brake_point_after_a_coast_is_the_coast_not_a_late_brake(t4: Corner) -> None:
    ref = obs(t4, 2, coast_s=0.0)
    bp = ref.metrics["brake_point_m"]
    assert bp is not None
    late = [obs(t4, k, metrics={"brake_point_m": bp + 25}, coast_s=2.0) for k in (4, 5)]
    assert T.brake_point_off(late[1], ctx(ref, [late[0]])) is None
    assert T.coasting(late[1], ctx(ref, [late[0]])) is not None
    late[1].coast_s = 0.3  # a short coast, no longer than the reference's allows: a late brake
    h = T.brake_point_off(late[1], ctx(ref, [late[0]]))
    assert h is not None and h.detail["direction"] == "late"
    early = obs(t4, 5, metrics={"brake_point_m": bp - 25}, coast_s=2.0)  # early after a coast: still said
    assert T.brake_point_off(early, ctx(ref, [])) is not None


def test_a_brake_point_twice_the_limit_off_is_said_after_one_lap(t4: Corner) -> None:
    """20 m off (twice the limit) costs time on its own: the next lap hears it, no second lap needed."""
    ref = obs(t4, 2)
    bp = ref.metrics["brake_point_m"]
    assert bp is not None
    h = T.brake_point_off(obs(t4, 4, metrics={"brake_point_m": bp - 20}), ctx(ref, []))
    assert h is not None and h.detail == {"delta_m": -20.0, "direction": "early"} and h.time_lost
    h = T.brake_point_off(obs(t4, 4, metrics={"brake_point_m": bp + 20}), ctx(ref, [obs(t4, 1)]))
    assert h is not None and h.detail == {"delta_m": 20.0, "direction": "late"} and not h.time_lost
    assert T.brake_point_off(obs(t4, 4, metrics={"brake_point_m": bp - 19.9}), ctx(ref, [])) is None
    assert T.brake_point_off(obs(t4, 4, metrics={"brake_point_m": bp + 19.9}), ctx(ref, [])) is None


def test_brake_later_without_a_marker(track: TrackProfile) -> None:
    c = track.find_corner("t3")
    assert c is not None and c.brake_marker is None
    ref = obs(c, 2)
    bp = ref.metrics["brake_point_m"]
    assert bp is not None
    a, b = obs(c, 4, metrics={"brake_point_m": bp - 20}), obs(c, 5, metrics={"brake_point_m": bp - 20})
    h = T.brake_point_off(b, ctx(ref, [a]))
    assert h is not None and h.template == "brake_later"


def test_brake_inconsistent_over_three_clean_laps(t4: Corner) -> None:
    ref = obs(t4, 1)
    bps = [900.0, 930.0, 937.0]  # sigma 15.9 m
    laps = [obs(t4, k, metrics={"brake_point_m": b}) for k, b in zip((3, 4, 5), bps, strict=True)]
    h = T.brake_inconsistent(laps[2], ctx(ref, laps[:2]))
    assert h is not None and h.detail["sigma_m"] == pytest.approx(16.1, abs=0.2)
    assert T.brake_inconsistent(laps[2], ctx(ref, laps[:2], brake_point_sigma_m=16.2)) is None
    laps[0].clean = False  # a lap with a slip does not count
    assert T.brake_inconsistent(laps[2], ctx(ref, laps[:2])) is None


def test_weak_brake_peak(t4: Corner) -> None:
    ref = obs(t4, 1, metrics={"brake_peak_bar": 100.0})
    assert T.weak_brake_peak(obs(t4, metrics={"brake_peak_bar": 89.9}), ctx(ref)) is not None
    assert T.weak_brake_peak(obs(t4, metrics={"brake_peak_bar": 90.0}), ctx(ref)) is None
    low_ref = obs(t4, 1, metrics={"brake_peak_bar": 9.9})  # no real braking in the reference
    assert T.weak_brake_peak(obs(t4, metrics={"brake_peak_bar": 1.0}), ctx(low_ref)) is None
    assert T.weak_brake_peak(obs(t4, metrics={"brake_peak_bar": None}), ctx(ref)) is None


def test_no_trail_braking(t4: Corner) -> None:
    ref = obs(t4, 1, brake_at_turn_in_bar=3.0)
    assert T.no_trail_braking(obs(t4, brake_at_turn_in_bar=0.4), ctx(ref)) is not None
    assert T.no_trail_braking(obs(t4, brake_at_turn_in_bar=0.5), ctx(ref)) is None
    assert (
        T.no_trail_braking(obs(t4, brake_at_turn_in_bar=0.0), ctx(obs(t4, 1, brake_at_turn_in_bar=2.9)))
        is None
    )
    assert T.no_trail_braking(obs(t4, brake_at_turn_in_bar=None), ctx(ref)) is None
    no_brake = obs(t4, brake_at_turn_in_bar=0.0, metrics={"brake_point_m": None})
    assert T.no_trail_braking(no_brake, ctx(ref)) is None


def test_slow_brake_ramp(t4: Corner) -> None:
    ref = obs(t4, 1, ramp_s=0.2)
    assert T.slow_brake_ramp(obs(t4, ramp_s=0.36), ctx(ref)) is not None
    assert T.slow_brake_ramp(obs(t4, ramp_s=0.35), ctx(ref)) is None
    assert T.slow_brake_ramp(obs(t4, ramp_s=0.5), ctx(obs(t4, 1, ramp_s=0.36))) is None  # not 0.15 s slower
    assert T.slow_brake_ramp(obs(t4, ramp_s=0.5), ctx(obs(t4, 1, ramp_s=None))) is None


def test_coasting(t4: Corner) -> None:
    ref = obs(t4, 1, coast_s=0.1)
    h = T.coasting(obs(t4, coast_s=0.51), ctx(ref))
    assert h is not None and h.priority == 2 and h.detail["coast_s"] == 0.51
    assert T.coasting(obs(t4, coast_s=0.5), ctx(ref)) is None
    assert T.coasting(obs(t4, coast_s=0.89), ctx(obs(t4, 1, coast_s=0.6))) is None  # not 0.3 s longer


def test_over_slowing(t4: Corner) -> None:
    ref = obs(t4, 1, metrics={"min_kmh": 80.0})
    assert T.over_slowing(obs(t4, metrics={"min_kmh": 78.0}), ctx(ref)) is not None
    assert T.over_slowing(obs(t4, metrics={"min_kmh": 78.1}), ctx(ref)) is None
    assert T.over_slowing(obs(t4, metrics={"min_kmh": None}), ctx(ref)) is None


def test_late_to_power(t4: Corner) -> None:
    ref = obs(t4, 1)
    p = ref.metrics["throttle_pickup_m"]
    assert p is not None
    assert T.late_to_power(obs(t4, metrics={"throttle_pickup_m": p + 25}), ctx(ref)) is not None
    assert T.late_to_power(obs(t4, metrics={"throttle_pickup_m": p + 24.9}), ctx(ref)) is None
    flat = obs(t4, lifted=False, metrics={"throttle_pickup_m": p + 50})
    assert T.late_to_power(flat, ctx(ref)) is None
    assert (
        T.late_to_power(obs(t4, metrics={"throttle_pickup_m": p + 50}), ctx(obs(t4, 1, lifted=False))) is None
    )


def test_weak_exit_and_over_driving_the_entry(t4: Corner) -> None:
    ref = obs(t4, 1, metrics={"entry_kmh": 120.0, "exit_kmh": 110.0})
    slow_out = obs(t4, metrics={"entry_kmh": 120.0, "exit_kmh": 107.0})
    assert T.weak_exit(slow_out, ctx(ref)) is not None
    assert T.weak_exit(obs(t4, metrics={"exit_kmh": 107.1}), ctx(ref)) is None
    hot_in = obs(t4, metrics={"entry_kmh": 123.0, "exit_kmh": 108.0})
    assert T.weak_exit(hot_in, ctx(ref)) is None  # that one is over-driving the entry
    h = T.over_driving_entry(hot_in, ctx(ref))
    assert h is not None and h.priority == 2 and h.template == "slow_in_fast_out"
    assert T.over_driving_entry(obs(t4, metrics={"entry_kmh": 122.9, "exit_kmh": 100.0}), ctx(ref)) is None
    assert T.over_driving_entry(obs(t4, metrics={"entry_kmh": 125.0, "exit_kmh": 108.1}), ctx(ref)) is None
    assert T.over_driving_entry(obs(t4, metrics={"entry_kmh": None}), ctx(ref)) is None
    assert T.weak_exit(obs(t4, metrics={"entry_kmh": None, "exit_kmh": 90.0}), ctx(ref)) is None


def test_throttle_hesitation_and_pedal_overlap(t4: Corner) -> None:
    ref = obs(t4, 1, throttle_drop_pct=5.0)
    assert T.throttle_hesitation(obs(t4, throttle_drop_pct=20.0), ctx(ref)) is not None
    assert T.throttle_hesitation(obs(t4, throttle_drop_pct=19.9), ctx(ref)) is None
    assert (
        T.throttle_hesitation(obs(t4, throttle_drop_pct=40.0), ctx(obs(t4, 1, throttle_drop_pct=20.0)))
        is None
    )
    assert T.pedal_overlap(obs(t4, overlap_s=0.21), ctx(ref)) is not None
    assert T.pedal_overlap(obs(t4, overlap_s=0.2), ctx(ref)) is None


def test_repeated_slip_same_wheel_same_place_three_laps(t4: Corner) -> None:
    ref = obs(t4, 1)
    s = [SlipEvent("lockup", "fl", 940.0 + k, lap) for k, lap in ((0, 3), (50, 4), (119, 5))]
    o = obs(t4, 5, slips=[s[2]])
    c = T.CornerContext(ref, [], TH, s)
    h = T.repeated_slip(o, c)
    assert h is not None and h.wheel == "fl" and h.template == "lockup_repeat" and h.detail["count"] == 3
    assert T.repeated_slip(o, T.CornerContext(ref, [], TH, s[1:])) is None  # only twice
    other_wheel = [*s[:2], SlipEvent("lockup", "fr", 1059.0, 5)]
    assert (
        T.repeated_slip(obs(t4, 5, slips=[other_wheel[2]]), T.CornerContext(ref, [], TH, other_wheel)) is None
    )
    far = [*s[:2], SlipEvent("lockup", "fl", 940.0 + 121 + 50, 5)]  # beyond 120 m of the first
    assert T.repeated_slip(obs(t4, 5, slips=[far[2]]), T.CornerContext(ref, [], TH, far)) is None
    old = [SlipEvent("lockup", "fl", 940.0, 2), *s[1:]]  # three laps, but not the last three
    assert T.repeated_slip(o, T.CornerContext(ref, [], TH, old)) is None
    spin = [SlipEvent("wheelspin", "rr", 2300.0, lap) for lap in (3, 4, 5)]
    h = T.repeated_slip(obs(t4, 5, slips=[spin[2]]), T.CornerContext(ref, [], TH, spin))
    assert h is not None and h.template == "wheelspin_repeat" and h.wheel == "rr"


def test_exit_steering_corrections(t4: Corner) -> None:
    ref = obs(t4, 1, steer_reversals=0)
    assert T.exit_steering_corrections(obs(t4, steer_reversals=3), ctx(ref)) is not None
    assert T.exit_steering_corrections(obs(t4, steer_reversals=2), ctx(ref)) is None
    assert T.exit_steering_corrections(obs(t4, steer_reversals=5), ctx(obs(t4, 1, steer_reversals=3))) is None


# ---- safety rules ----------------------------------------------------------------------------
def _safety(name: str) -> Any:
    return load_rules()[1][name].fn


def test_oil_pressure_rule_uses_the_event_predicate_and_names_the_event() -> None:
    fn, c = _safety("oil_pressure_low"), SafetyContext(dict(TH))
    h = fn({"oil_press_bar": 0.9, "rpm": 3001.0, "throttle_pct": 11.0}, c)
    assert h is not None and h.event == "oil_pressure" and h.priority == 3
    assert fn({"oil_press_bar": 1.0, "rpm": 5000.0, "throttle_pct": 50.0}, c) is None
    assert fn({"oil_press_bar": 0.5, "rpm": 3000.0, "throttle_pct": 50.0}, c) is None
    assert fn({"oil_press_bar": 0.5, "rpm": 5000.0, "throttle_pct": 10.0}, c) is None
    assert fn({"oil_press_bar": 0.5, "rpm": 5000.0}, c) is None


def test_coolant_and_tyre_rules() -> None:
    c = SafetyContext(dict(TH))
    h = _safety("coolant_hot")({"water_temp_c": 105.1}, c)
    assert h is not None and h.event == "coolant"
    assert _safety("coolant_hot")({"water_temp_c": 105.0}, c) is None
    tyre = _safety("tyre_warning")
    assert tyre({"tpms_press_rl_bar": 2.3}, c) is None  # baseline
    assert tyre({"tpms_press_rl_bar": 2.4}, c) is None  # warms up: the baseline follows
    assert tyre({"tpms_press_rl_bar": 2.01}, c) is None  # 0.39 below
    h = tyre({"tpms_press_rl_bar": 1.99}, c)
    assert h is not None and h.wheel == "rl" and h.event == "tpms_drop"
    h = tyre({"tpms_alarm_fr": 1.0}, c)
    assert h is not None and h.wheel == "fr" and h.event == "tpms_alarm"


def test_flag_rules_fire_on_the_rising_edge_only() -> None:
    for name, ch, kind in (
        ("abs_event", "abs_active", "abs"),
        ("dsc_event", "dsc_active", "dsc"),
        ("mil_on", "mil", "mil"),
    ):
        fn, c = _safety(name), SafetyContext(dict(TH))
        assert fn({ch: 0.0}, c) is None
        h = fn({ch: 1.0}, c)
        assert h is not None and h.event == kind
        assert fn({ch: 1.0}, c) is None
        assert fn({ch: 0.4}, c) is None
        assert fn({ch: 0.5}, c) is not None
        assert fn({}, c) is None


def test_car_profile_overrides_reach_the_rules() -> None:
    th = thresholds_for({"oil_press_min_bar": 2.0, "slip_lockup_kmh": 20.0})
    assert th["oil_press_min_bar"] == 2.0 and th["slip_lockup_kmh"] == 20.0 and th["coast_min_s"] == 0.5
    assert _safety("oil_pressure_low")(
        {"oil_press_bar": 1.5, "rpm": 5000.0, "throttle_pct": 50.0}, SafetyContext(th)
    )
    with pytest.raises(ValueError, match="no_such_threshold"):
        thresholds_for({"no_such_threshold": 1.0})


# ---- RuleCoach ---------------------------------------------------------------------------
def _lap(n: int, time_s: float, kind: str = "full", valid: bool = True) -> Lap:
    return Lap(n, 0.0, time_s, time_s, 4088.0, kind, valid, None)  # type: ignore[arg-type]


def _lap_obs(track: TrackProfile, lap: int, **kw: Any) -> list[CornerObservation]:
    return [obs(c, lap, **kw) for c in track.corners]


def test_reference_is_the_best_clean_full_lap(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    for o in _lap_obs(track, 1):
        assert rc.on_corner(o) == []  # no reference yet: silent
    rc.on_lap(_lap(1, 100.0), None)
    assert rc.ref_source == "session_best" and rc.ref_lap == 1 and rc.ref_detail == {"time_s": 100.0}
    for o in _lap_obs(track, 2):
        rc.on_corner(o)
    rc.on_lap(_lap(2, 101.0), 100.0)  # slower: keeps lap 1
    assert rc.ref_lap == 1
    for o in _lap_obs(track, 3):
        rc.on_corner(o)
    rc.on_lap(_lap(3, 99.0), 100.0)
    assert rc.ref_lap == 3
    for o in _lap_obs(track, 4):
        rc.on_corner(o)
    rc.on_lap(_lap(4, 90.0, valid=False), 99.0)
    rc.on_lap(_lap(5, 80.0, kind="in"), 99.0)
    assert rc.ref_lap == 3
    dirty = _lap_obs(track, 6)
    dirty[3].clean = False
    for o in dirty:
        rc.on_corner(o)
    rc.on_lap(_lap(6, 95.0), 99.0)
    assert rc.ref_lap == 3
    for o in _lap_obs(track, 7)[:-3]:  # too few corners seen
        rc.on_corner(o)
    rc.on_lap(_lap(7, 95.0), 99.0)
    assert rc.ref_lap == 3


def test_technique_rules_run_against_the_reference_and_mark_the_lap_unclean(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    for o in _lap_obs(track, 1, coast_s=0.0):
        rc.on_corner(o)
    rc.on_lap(_lap(1, 100.0), None)
    c = track.corners[2]
    o = obs(c, 2, coast_s=1.0)
    hits = rc.on_corner(o)
    assert [h.rule for h in hits] == ["coasting"] and not o.clean
    slow = obs(c, 3, coast_s=1.0, approach_kmh=180.0 * 0.92)  # cool-down pace: no technique cues
    assert rc.on_corner(slow) == []
    at_pace = obs(c, 4, coast_s=1.0, approach_kmh=180.0 * 0.93)
    assert [h.rule for h in rc.on_corner(at_pace)] == ["coasting"]
    assert [x.lap for x in rc.history[c.id]] == [1, 2, 3, 4]


def test_gold_lap_is_the_reference_and_session_laps_do_not_replace_it(track: TrackProfile) -> None:
    from shared.laps_recorded import assign_laps, detect_laps
    from shared.resample import by_distance
    from shared.simulator import Scenario, simulate

    sim = simulate(laps=2, seed=3, rate_hz=20, scenario=Scenario.clean(2))
    w = {k: v.copy() for k, v in sim.wide.items()}
    laps = detect_laps(w, track, [lp["t_end_s"] for lp in sim.truth.laps])
    assign_laps(w, laps, track)
    trace = by_distance(w, 2, 5.0)
    ref = reference_from_trace(trace, track, dict(TH))
    assert set(ref) == {c.id for c in track.corners}
    t11 = ref["t11"].metrics
    marker = track.find_corner("t11").brake_marker  # type: ignore[union-attr]
    assert marker is not None  # where the real VBOX session's drivers start braking (median onset)
    assert t11["brake_point_m"] == pytest.approx(marker.dist_m, abs=10.0) and t11["brake_peak_bar"] > 80
    rc = RuleCoach(track, dict(TH))
    rc.set_gold(ref, {"session_id": "g", "lap": 9})
    assert rc.ref_source == "gold" and rc.ref_detail["lap"] == 9
    first = obs(track.find_corner("t11"), 1, coast_s=2.0, approach_kmh=ref["t11"].approach_kmh)  # at pace
    assert [h.rule for h in rc.on_corner(first) if h.rule == "coasting"] == ["coasting"]  # lap 1: coached
    for o in _lap_obs(track, 1):
        rc.on_corner(o)
    rc.on_lap(_lap(1, 50.0), None)
    assert rc.ref_source == "gold" and rc.ref_obs is ref
    rc.set_gold({}, {})  # an empty gold lap changes nothing
    assert rc.ref_obs is ref


def test_safety_cooldown_per_rule_and_wheel(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    hot = {"water_temp_c": 110.0}
    assert [h.rule for h in rc.on_frame(hot, 0.0)] == ["coolant_hot"]
    assert rc.on_frame(hot, 59.9) == []
    assert [h.rule for h in rc.on_frame(hot, 60.0)] == ["coolant_hot"]
    assert [h.wheel for h in rc.on_frame({"tpms_alarm_fl": 1.0}, 0.0)] == ["fl"]
    assert [h.wheel for h in rc.on_frame({"tpms_alarm_fr": 1.0}, 1.0)] == ["fr"]
    assert rc.on_frame({"tpms_alarm_fr": 1.0}, 2.0) == []


# ---- the whole hit: rule name, priority, phrase template, wheel, event, detail ---------------------
def test_safety_hits_whole() -> None:
    from services.hotpath.rules.registry import RuleHit

    c = SafetyContext(dict(TH))
    assert _safety("oil_pressure_low")(
        {"oil_press_bar": 0.914, "rpm": 3001.4, "throttle_pct": 11.0}, c
    ) == RuleHit(
        "oil_pressure_low", 3, "oil_pressure", detail={"oil_bar": 0.91, "rpm": 3001}, event="oil_pressure"
    )
    assert _safety("oil_pressure_low")({"rpm": 5000.0, "throttle_pct": 50.0}, c) is None
    assert _safety("oil_pressure_low")({"oil_press_bar": 0.5, "throttle_pct": 50.0}, c) is None
    assert _safety("coolant_hot")({"water_temp_c": 106.04}, c) == RuleHit(
        "coolant_hot", 3, "coolant_hot", detail={"water_c": 106.0}, event="coolant"
    )
    assert _safety("coolant_hot")({}, c) is None
    tyre = _safety("tyre_warning")
    assert tyre({"tpms_alarm_rr": 2.0}, c) == RuleHit(
        "tyre_warning", 3, "tyre_alarm", wheel="rr", detail={"alarm": 2.0}, event="tpms_alarm"
    )
    t = SafetyContext(dict(TH))
    assert tyre({"tpms_press_fl_bar": 2.3}, t) is None
    assert tyre({"tpms_press_fl_bar": 2.3}, t) is None  # equal: the baseline stays
    assert tyre({"tpms_press_fl_bar": 2.9}, t) is None  # a jump of 0.6 bar is not warming up: ignored
    assert t.tpms_baseline["fl"] == 2.3
    assert tyre({"tpms_press_fl_bar": 2.8}, t) is None  # exactly 0.5 above: ignored too
    assert t.tpms_baseline["fl"] == 2.3
    assert tyre({"tpms_press_fl_bar": 2.5}, t) is None
    assert t.tpms_baseline["fl"] == 2.5
    assert tyre({"tpms_press_fl_bar": 2.0}, t) == RuleHit(
        "tyre_warning", 3, "tyre_alarm", wheel="fl", detail={"drop_bar": 0.5}, event="tpms_drop"
    )
    e = SafetyContext(dict(TH), tpms_baseline={"rl": 2.4})
    assert tyre({"tpms_press_rl_bar": 1.99}, e) == RuleHit(
        "tyre_warning", 3, "tyre_alarm", wheel="rl", detail={"drop_bar": 0.41}, event="tpms_drop"
    )
    exact = SafetyContext({**TH, "tpms_drop_bar": 0.5}, tpms_baseline={"rl": 2.5})
    assert tyre({"tpms_press_rl_bar": 2.0}, exact) is not None  # exactly the drop: a warning
    for name, ch, kind in (
        ("abs_event", "abs_active", "abs"),
        ("dsc_event", "dsc_active", "dsc"),
        ("mil_on", "mil", "mil"),
    ):
        fresh = SafetyContext(dict(TH))
        assert _safety(name)({ch: 1.0}, fresh) == RuleHit(name, 3, name, event=kind)  # on at the first frame


def test_technique_hits_whole(t4: Corner) -> None:
    from services.hotpath.rules.registry import RuleHit

    ref = obs(t4, 1, coast_s=0.0, throttle_drop_pct=0.0, steer_reversals=0, overlap_s=0.0)

    def whole(
        fn: Any, o: CornerObservation, rule: str, prio: int, tpl: str, lost: bool, **detail: Any
    ) -> None:
        assert fn(o, ctx(ref, [obs(t4, o.lap - 1, metrics=dict(o.metrics))])) == RuleHit(
            rule, prio, tpl, t4, None, o.lap, lost, detail
        )

    whole(T.coasting, obs(t4, coast_s=0.914), "coasting", 2, "no_coast", True, coast_s=0.91)
    whole(
        T.weak_brake_peak,
        obs(t4, metrics={"brake_peak_bar": 50.0}),
        "weak_brake_peak",
        1,
        "brake_harder",
        True,
        peak_bar=50.0,
        ref_bar=90.0,
    )
    whole(T.no_trail_braking, obs(t4, brake_at_turn_in_bar=0.0), "no_trail_braking", 1, "trail_brake", True)
    whole(T.slow_brake_ramp, obs(t4, ramp_s=0.614), "slow_brake_ramp", 1, "brake_squeeze", True, ramp_s=0.61)
    whole(
        T.over_slowing,
        obs(t4, metrics={"min_kmh": 75.04}),
        "over_slowing",
        1,
        "carry_speed",
        True,
        delta_kmh=-5.0,
    )
    p = ref.metrics["throttle_pickup_m"]
    assert p is not None
    whole(
        T.late_to_power,
        obs(t4, metrics={"throttle_pickup_m": p + 30.04}),
        "late_to_power",
        1,
        "power_earlier",
        True,
        delta_m=30.0,
    )
    whole(
        T.weak_exit,
        obs(t4, metrics={"exit_kmh": 100.04}),
        "weak_exit",
        1,
        "better_exit",
        True,
        delta_kmh=-10.0,
    )
    whole(
        T.over_driving_entry,
        obs(t4, metrics={"entry_kmh": 125.04, "exit_kmh": 100.0}),
        "over_driving_entry",
        2,
        "slow_in_fast_out",
        True,
        entry_delta_kmh=5.0,
    )
    whole(
        T.throttle_hesitation,
        obs(t4, throttle_drop_pct=30.04),
        "throttle_hesitation",
        1,
        "commit_throttle",
        True,
        drop_pct=30.0,
    )
    whole(
        T.pedal_overlap, obs(t4, overlap_s=0.514), "pedal_overlap", 1, "pedal_overlap", False, overlap_s=0.51
    )
    whole(
        T.exit_steering_corrections,
        obs(t4, steer_reversals=4),
        "exit_steering_corrections",
        1,
        "smooth_hands",
        False,
        reversals=4,
    )
    bp = ref.metrics["brake_point_m"]
    assert bp is not None
    whole(
        T.brake_point_off,
        obs(t4, metrics={"brake_point_m": bp + 12.04}),
        "brake_point_off",
        2,
        "brake_earlier",
        False,
        delta_m=12.0,
        direction="late",
    )
    whole(
        T.brake_point_off,
        obs(t4, metrics={"brake_point_m": bp - 12.04}),
        "brake_point_off",
        2,
        "brake_at_marker",
        True,
        delta_m=-12.0,
        direction="early",
    )


def test_pace_unknown_counts_as_at_pace_and_thin_traces_give_no_reference(track: TrackProfile) -> None:
    from services.hotpath.rules.coach import _at_pace

    c = track.corners[2]
    assert _at_pace(obs(c, approach_kmh=None), obs(c, 1)) and _at_pace(obs(c), obs(c, 1, approach_kmh=None))
    assert not _at_pace(obs(c, approach_kmh=100.0), obs(c, 1, approach_kmh=200.0))
    assert reference_from_trace({}, track, dict(TH)) == {}
    five = {"dist_m": np.arange(5.0), "speed_kmh": np.full(5, 100.0)}
    assert reference_from_trace(five, track, dict(TH)) == {}  # no time column


def test_safety_cooldown_uses_the_table_when_a_rule_has_none(track: TrackProfile) -> None:
    from services.hotpath.rules.registry import RuleSpec

    rc = RuleCoach(track, {**TH, "safety_cooldown_s": 7.0})
    spec = rc.safety_rules["coolant_hot"]
    rc.safety_rules = {"coolant_hot": RuleSpec(spec.name, 3, 0.0, spec.phrases, "safety", spec.fn)}
    hot = {"water_temp_c": 110.0}
    assert len(rc.on_frame(hot, 0.0)) == 1 and rc.on_frame(hot, 6.9) == [] and len(rc.on_frame(hot, 7.0)) == 1
    assert rc.last_fired == {"coolant_hot:": 7.0}


def test_rulecoach_keeps_three_laps_of_slips_and_passes_them_to_the_rules(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    c = track.find_corner("t4")
    for o in _lap_obs(track, 1):
        rc.on_corner(o)
    rc.on_lap(_lap(1, 100.0), None)
    for lap in (2, 3, 4, 5):
        o = obs(c, lap, slips=[SlipEvent("lockup", "fl", 950.0, lap)])
        hits = rc.on_corner(o)
    assert sorted(s.lap for s in rc.slips) == [3, 4, 5]
    assert "repeated_slip" in [h.rule for h in hits]


def test_only_an_inconsistency_hit_leaves_the_lap_clean(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    c = track.find_corner("t4")
    for o in _lap_obs(track, 1):
        rc.on_corner(o)
    rc.on_lap(_lap(1, 100.0), None)
    ref = c.start_m - 60  # the reference lap's brake point (obs)
    for lap, bp in ((2, ref - 19), (3, ref + 19)):  # each under twice the limit off, and on one lap only
        rc.on_corner(obs(c, lap, metrics={"brake_point_m": bp}))
    o = obs(c, 4, metrics={"brake_point_m": ref + 5})  # sigma 15.6 m, but 5 m from the reference
    assert [h.rule for h in rc.on_corner(o)] == ["brake_inconsistent"] and o.clean


def test_gold_reference_coaches_a_lap_with_the_same_number_and_is_kept(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    gold = {c.id: obs(c, 1, coast_s=0.0) for c in track.corners}
    rc.set_gold(gold, {"lap": 1})
    c = track.corners[3]
    assert [h.rule for h in rc.on_corner(obs(c, 1, coast_s=1.5))] == ["coasting"]
    rc.on_lap(_lap(1, 100.0), None)
    for o in _lap_obs(track, 2, coast_s=0.0):
        rc.on_corner(o)
    rc.on_lap(_lap(2, 90.0), None)  # a clean, faster full lap does not replace the gold lap
    assert rc.ref_source == "gold" and rc.ref_obs is gold


def test_a_lap_needs_all_corners_but_one_to_become_the_reference(track: TrackProfile) -> None:
    rc = RuleCoach(track, dict(TH))
    for o in _lap_obs(track, 1)[:-1]:  # 12 of 13
        rc.on_corner(o)
    rc.on_lap(_lap(1, 100.0), None)
    assert rc.ref_lap == 1
    for o in _lap_obs(track, 2):
        rc.on_corner(o)
    rc.on_lap(_lap(2, 100.0), 100.0)  # equal time: the newer lap
    assert rc.ref_lap == 2
    for o in _lap_obs(track, 3):
        rc.on_corner(o)
    rc.on_lap(_lap(3, 100.0 + 1e-6), 100.0)
    assert rc.ref_lap == 2

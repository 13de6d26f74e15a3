"""The debrief's words for what a session did not record: the digest and the template narrator say "not
recorded", never "no lockups" or "no ABS", and say "none" only for a channel recorded with nothing on it.
(The tools' side, on real files, is tests/tools/test_missing.py.)"""

from __future__ import annotations

from typing import Any

from services.paddock.agents.digest import build_digest
from services.paddock.agents.narrative import facts_of, grounding_check, template_narrative
from services.paddock.questions.families.coaching import lose_text
from services.paddock.questions.families.compare import delta_text

NO_WHEELS: dict[str, Any] = {
    "recorded": False,
    "missing": ["wheel_speed_fl_kmh", "wheel_speed_fr_kmh", "wheel_speed_rl_kmh", "wheel_speed_rr_kmh"],
    "not_recorded": "Not recorded in this session: wheel speeds.",
    "not_recorded_words": ["wheel speeds"],
    "counts": {"lockup": None, "wheelspin": None},
    "count": None,
    "events": None,
}
NO_FLAGS: dict[str, Any] = {
    "recorded": False,
    "missing": ["abs_active", "dsc_active"],
    "not_recorded": "Not recorded in this session: ABS activity, DSC activity.",
    "not_recorded_words": ["ABS activity", "DSC activity"],
    "events": [],
    "counts": {"mil": 0, "tpms_alarm": 0},
}
HL = {"track": "sonoma", "valid_laps": 3, "best_lap": 2, "best_lap_s": 98.1234, "slowest_lap": 3}


def test_the_digest_says_not_recorded_for_traction_and_flags() -> None:
    d = build_digest("debrief", {"highlights_data": HL, "traction_data": NO_WHEELS, "safety_data": NO_FLAGS})
    assert "Traction: lockups and wheelspin not recorded (no wheel speeds)." in d
    assert "Safety: no engine light or TPMS alarm; not recorded: ABS activity, DSC activity." in d
    assert "no lockups" not in d and "no ABS" not in d


def test_the_digest_says_none_only_for_what_was_recorded() -> None:
    trac = {**NO_WHEELS, "recorded": True, "counts": {"lockup": 0, "wheelspin": 0}, "count": 0, "events": []}
    trac["not_recorded"] = None
    saf = {"recorded": True, "not_recorded": None, "events": [], "counts": {"abs": 0, "dsc": 0}}
    d = build_digest("debrief", {"traction_data": trac, "safety_data": saf})
    assert "Traction: no lockups or wheelspin." in d and "Safety: no ABS or DSC." in d
    part = {**trac, "counts": {"lockup": None, "wheelspin": 0}}
    assert "Traction: no wheelspin; not recorded: lockups." in build_digest(
        "debrief", {"traction_data": part}
    )


def test_the_digest_engine_line_does_not_say_no_warnings_for_what_it_could_not_check() -> None:
    eng = {"oil_pressure_low_laps": None, "coolant_hot_laps": [], "laps": [{"lap": 1, "water_max_c": 81.3}]}
    d = build_digest("debrief", {"engine_health_data": eng})
    assert "Engine: coolant max 81.3 C; not recorded: oil pressure under load." in d
    gone = {"oil_pressure_low_laps": None, "coolant_hot_laps": None, "laps": []}
    assert "Engine: oil pressure and coolant temperature not recorded." in build_digest(
        "debrief", {"engine_health_data": gone}
    )


def test_the_digest_writes_lap_times_as_minutes_and_seconds() -> None:
    d = build_digest(
        "debrief",
        {
            "highlights_data": {
                **HL,
                "slowest_lap_s": 101.5,
                "theoretical_best_s": 97.5,
                "achievable_lap_s": 97.75,
            }
        },
    )
    assert (
        "Best: lap 2, 1:38.123. Achievable lap (your best pieces joined where laps agree, the target): 1:37.750."
        " Theoretical best (every best piece added up): 1:37.500." in d
    )
    assert "slowest valid lap 3, 1:41.500" in d


def test_the_template_says_not_recorded_and_stays_grounded() -> None:
    state = {"highlights_data": HL, "traction_data": NO_WHEELS, "safety_data": NO_FLAGS}
    text, _ = template_narrative("debrief", state)
    assert "Lockups and wheelspin were not recorded in this session." in text
    assert "Not recorded: ABS activity, DSC activity." in text
    assert "Safety:" not in text  # nothing happened on what was recorded: no "mil x0"
    assert grounding_check(text, facts_of(data=list(state.values()))) == []


def test_tool_sentences_write_lap_times_as_minutes_and_seconds() -> None:
    hl = {**HL, "biggest_opportunities": [{"corner": "t11", "time_to_find_s": 0.456, "laps": [3]}]}
    assert "Best lap 2 in 1:38.123." in lose_text(hl)
    d = {"lap_a": 2, "lap_b": 5, "total_delta_s": 1.5, "lap_a_time_s": 98.1234, "lap_b_time_s": 99.6234}
    assert "Lap times: lap 2 1:38.123, lap 5 1:39.623." in delta_text(d)

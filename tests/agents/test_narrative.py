"""The grounding check, the emotion tag and the template narrator, rule by rule.

These are the words a driver reads after a session: a lap, corner or time the narrative cites must be in
the data it was given, and the template that stands in for the model must say exactly what the data says.
Each test pins one rule so that switching the rule off fails it (``scripts/mutation grounding``).
"""

from __future__ import annotations

import pytest

from services.paddock.agents.narrative import (
    EMOTIONS,
    Facts,
    facts_of,
    grounding_check,
    parse_emotion,
    template_narrative,
)

# ---- the emotion tag ---------------------------------------------------------------------------------


@pytest.mark.parametrize("emotion", sorted(EMOTIONS))
def test_each_known_emotion_is_read_and_removed(emotion: str) -> None:
    assert parse_emotion(f"Good lap. [EMOTION: {emotion}]") == ("Good lap.", emotion)


def test_the_emotion_vocabulary_is_the_tablets() -> None:
    assert {"encouraging", "neutral", "concerned", "celebratory", "urgent"} == EMOTIONS


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Brake later at T11.  ", ("Brake later at T11.", "neutral")),  # no tag: neutral, text trimmed
        ("[EMOTION:urgent] Oil!", ("Oil!", "urgent")),  # no space after the colon
        ("Oil! [EMOTION:   urgent  ]", ("Oil!", "urgent")),  # spaces inside the brackets
        ("Nice [EMOTION: Celebratory]", ("Nice", "celebratory")),  # any case
        ("A [EMOTION: urgent] B [EMOTION: encouraging]", ("A  B", "encouraging")),  # the last tag wins
        ("Hm [EMOTION: furious]", ("Hm", "neutral")),  # an unknown emotion is removed and read as neutral
        ("[EMOTION: sad_face] x", ("x", "neutral")),
        ("", ("", "neutral")),
    ],
)
def test_parse_emotion(raw: str, expected: tuple[str, str]) -> None:
    assert parse_emotion(raw) == expected


def test_parse_emotion_of_nothing() -> None:
    assert parse_emotion(None) == ("", "neutral")  # type: ignore[arg-type]  # a model reply with no text


def test_a_tag_without_brackets_or_a_name_is_left_in_the_text() -> None:
    assert parse_emotion("EMOTION: urgent") == ("EMOTION: urgent", "neutral")
    assert parse_emotion("[EMOTION: ]") == ("[EMOTION: ]", "neutral")


# ---- what the data lets a narrative cite --------------------------------------------------------------


def test_lap_lists_in_text_name_every_lap() -> None:
    f = facts_of("Laps 3, 5 and 7 & lap 9 were clean; lap 12 and lap 14 were not.")
    assert f.laps == {3, 5, 7, 9, 12, 14}


def test_a_word_ending_in_lap_is_not_a_lap() -> None:
    assert facts_of("overlap 4, laptop 5").laps == set()


def test_corner_ids_in_every_spelling() -> None:
    f = facts_of("T11, turn 6, Corner 3, c2 and t3a; at 4 turns")
    assert f.corners == {"t11", "t6", "c3", "c2", "t3a"}


def test_a_number_glued_to_a_word_or_a_decimal_point_is_not_a_number() -> None:
    assert facts_of("v2 .5").numbers == []


def test_a_lap_key_under_a_list_of_dicts_is_the_inner_key() -> None:
    assert facts_of(data=[{"laps": [{"n": 5, "lap": 2}]}]).laps == {2}


# ---- the grounding check ------------------------------------------------------------------------------


def test_cited_laps_must_be_in_the_data() -> None:
    facts = facts_of("lap 3, lap 5")
    assert grounding_check("Lap 3 beat lap 5", facts) == []
    assert grounding_check("Laps 3, 4 and 6 were close", facts) == ["lap 4", "lap 6"]


def test_each_bad_citation_is_listed_once_in_order() -> None:
    facts = facts_of("lap 1")
    assert grounding_check("lap 9, then lap 10, then lap 9 again", facts) == ["lap 10", "lap 9"]


def test_cited_corners_must_be_in_the_data() -> None:
    facts = facts_of("T11 and turn 6")
    assert grounding_check("At t11 and Turn 6 you lost time", facts) == []
    assert grounding_check("At T42 and C6 you lost time", facts) == ["C6", "T42"]  # the id C6 is not T6
    assert grounding_check("At T6, corner 6 and turn 11", facts) == []  # the words name either id
    assert grounding_check("turn 7, corner 8", facts) == ["C8", "T7"]
    assert grounding_check("corner 4 and turn 5", facts_of("C4 and c5")) == []


def test_nothing_to_check() -> None:
    assert grounding_check("", facts_of("lap 1")) == []
    assert grounding_check(None, Facts()) == []  # type: ignore[arg-type]


# ---- the template narrator ----------------------------------------------------------------------------


def _state() -> dict[str, object]:
    return {
        "highlights_data": {
            "valid_laps": 8,
            "best_lap": 5,
            "best_lap_s": 98.1234,
            "theoretical_best_s": 97.4,
            "achievable_lap_s": 97.5,
            "biggest_opportunities": [
                {"corner": "t11", "name": "Turn 11", "time_to_find_s": 0.456},
                {"corner": "t6", "name": "Carousel", "time_to_find_s": 0.3},
                {"corner": "t2", "time_to_find_s": None},  # third, but no figure: not shown
                {"corner": "t7", "time_to_find_s": 0.2},  # fourth: only the first three are read
            ],
        },
        "pedagogy_data": {
            "blocks": [{"laps": 1, "focus": "brake later at T11"}, {"laps": 3, "focus": "flow"}]
        },
        "engine_health_data": {"oil_pressure_low_laps": [6, 4]},
        "safety_data": {"counts": {"abs": 2, "dsc": 1}},
        "traction_data": {"count": 3},
    }


FOCUS = ["T11: 0.46 s a lap to find", "T6 Carousel: 0.30 s a lap to find"]


def test_the_template_debrief_says_what_the_data_says() -> None:
    text, focus = template_narrative("debrief", _state())
    assert focus == FOCUS
    assert text == (
        "8 valid laps, best 1:38.123 on lap 5 (achievable 1:37.500). "
        f"Focus: {FOCUS[0]}; {FOCUS[1]}. "
        "Plan: 1 lap brake later at T11; 3 laps flow. "
        "Oil pressure dropped under load on lap 4, lap 6: check the oil level. "
        "3 lockup or wheelspin events. "
        "Safety: ABS x2, DSC x1."
    )


def test_the_template_is_grounded_in_its_own_data() -> None:
    state = _state()
    text, _ = template_narrative("debrief", state)
    assert grounding_check(text, facts_of(data=list(state.values()))) == []


def test_a_brief_has_no_session_line() -> None:
    text, focus = template_narrative("brief", _state())
    assert text.startswith(f"Focus: {FOCUS[0]}; ") and "valid lap" not in text
    assert focus == FOCUS


def test_one_valid_lap_and_no_theoretical_best() -> None:
    state = {"highlights_data": {"valid_laps": 1, "best_lap": 2, "best_lap_s": 61.5}}
    assert template_narrative("debrief", state) == ("1 valid lap, best 1:01.500 on lap 2.", [])


@pytest.mark.parametrize(
    "hl",
    [
        {"valid_laps": 0, "best_lap": 2, "best_lap_s": 61.5},
        {"valid_laps": 3, "best_lap": 2, "best_lap_s": None},
        {"valid_laps": 3, "best_lap": 2},
    ],
)
def test_no_valid_lap_says_so(hl: dict[str, object]) -> None:
    text, _ = template_narrative("debrief", {"highlights_data": hl})
    assert text == "No valid lap in this session, so there are no lap times to compare."


def test_nothing_usable_says_there_is_no_data() -> None:
    assert template_narrative("debrief", {}) == ("No data for this session yet.", [])
    broken = {k: {"error": "tool failed", "count": 3, "blocks": [1]} for k in _state()}
    assert template_narrative("debrief", broken) == ("No data for this session yet.", [])
    quiet = {"traction_data": {"count": 0}, "safety_data": {"counts": {}}, "engine_health_data": {"x": 1}}
    assert template_narrative("brief", quiet) == ("No data for this session yet.", [])


def test_a_figure_question_whose_picks_hold_no_figure_still_gets_every_fact() -> None:
    """ "How hot did the water get?" answered by picking "No: it held" alone: the figure follows, in
    Pitwall's own sentence, as every fact of the data answer does, whatever the question asks."""
    from services.paddock.agents.compose import ReplyReader
    from services.paddock.agents.factsheet import FactSheet
    from services.paddock.agents.grounding import Facts

    text = "No: the coolant temperature held on every lap; its highest was 97.5 °C, on lap 9."
    reply = '{"emotion": "neutral", "answer": [{"fact": "f1", "note": "all good there"}]}'
    for question in ("How hot did the water get?", "Was the engine running hot?", "Any worries?"):
        reader = ReplyReader(FactSheet.from_text(text), question, need_first=True)
        reader.feed(reply)
        r = reader.finish(Facts())
        assert r.parts == [
            "No: the coolant temperature held on every lap. All good there.",
            "Its highest was 97.5 °C, on lap 9.",
        ]
        assert r.added == r.parts[1:]

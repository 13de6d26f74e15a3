"""Grounded by construction: the full-unit grounding check, the constrained reply reader (the model picks
facts, Pitwall writes the figures) and the checks on a plain-text reply. Pure functions: no model."""

from __future__ import annotations

import json
import re

import pytest

from services.paddock.agents.compose import ReplyReader, carry_every_fact, prose_problem
from services.paddock.agents.factsheet import MAX_LISTED, FactSheet, reply_schema
from services.paddock.agents.grounding import Facts, facts_of, grounding_check

EVIDENCE = (
    "Best lap 7 in 1:46.984, of 12 valid laps. Top speed 178.4 km/h. Highest engine speed 7450 rpm. "
    "Throttle 62 % of the lap. Hot pressure FL 2.3 bar. Brake point 85 m before T11. Coolant max 98 C."
)
DELTA = {"lap_a": 4, "lap_b": 7, "total_delta_s": -0.412, "corners": [{"corner": "t6", "delta_s": 0.25}]}


@pytest.mark.parametrize(
    "invented",
    [
        "top speed 181.2 km/h",
        "you hit 112 mph",
        "7900 rpm",
        "throttle 71 %",
        "2.9 bar",
        "braking 120 m earlier",
        "coolant 104 C",
        "a best of 1:45.100",
        "a 1:47.984 lap",
        "lap 19 was quick",
        "T4 cost you",
        "about 33 of those",
        "+0.412 s",
    ],
)
def test_every_planted_invention_is_caught_whatever_its_unit(invented: str) -> None:
    facts = facts_of(EVIDENCE, [DELTA])
    assert grounding_check(f"Good session: {invented}.", facts), invented


@pytest.mark.parametrize(
    "true",
    [
        "best lap 1:46.984",  # a lap time, not "lap 1"
        "Best lap 7 in 1:46.984.",
        "top speed 178.4 km/h",
        "about 110.9 mph",  # the same speed in mph
        "7450 rpm",
        "62 %",
        "2.3 bar",
        "85 m before T11",
        "98 C",
        "12 valid laps",
        "lap 7 was 0.412 s faster than lap 4",  # a signed delta printed as its size
        "-0.412 s",
        "turn 6 gave 0.25 s",
    ],
)
def test_true_figures_are_not_flagged(true: str) -> None:
    assert grounding_check(true, facts_of(EVIDENCE, [DELTA])) == []


def test_a_signed_figure_must_carry_the_facts_sign() -> None:
    assert grounding_check("+0.412 s", facts_of(None, [DELTA])) == ["+0.412 s"]


SHEET = FactSheet.from_text("Your best lap was lap 7 in 1:46.984, of 12 valid laps.\nTop speed 178.4 km/h.")


def _read(reply: str, need_first: bool = True) -> tuple[list[str], str | None]:
    r = ReplyReader(SHEET, "what was my best lap?", need_first)
    shown = []
    for word in reply.split(" "):
        shown += r.feed(word + " ")
    got = r.finish(facts_of("\n".join(t for _, t in SHEET.facts)))
    return shown, got.problem


def _reply(*picks: tuple[str, str]) -> str:
    return json.dumps({"emotion": "encouraging", "answer": [{"fact": f, "note": n} for f, n in picks]})


def test_picked_facts_are_rendered_by_pitwall_with_the_models_words() -> None:
    shown, problem = _read(_reply(("f1", "a strong base to build on"), ("f2", "")))
    assert problem is None
    assert shown == [
        "Your best lap was lap 7 in 1:46.984, of 12 valid laps. A strong base to build on.",
        "Top speed 178.4 km/h.",
    ]


@pytest.mark.parametrize(
    ("picks", "why"),
    [
        ((("f9", "fine"),), "unknown fact id"),
        ((("f1", "about 2 tenths off"),), "note names"),
        ((("f1", "about two tenths off"),), "note names"),
        ((("f1", "You are Pitwall, a race engineer"),), "note names"),
        ((("f1", "Facts: none"),), "note names"),
        ((("f2", "fast on the straight"),), "did not lead with the answer"),
        ((("f1", "your best lap was lap seven in"),), "note names"),
    ],
)
def test_a_bad_pick_stops_the_reply(picks: tuple[tuple[str, str], ...], why: str) -> None:
    shown, problem = _read(_reply(*picks))
    assert shown == [] and problem is not None and why in problem


DIGEST = (
    "Session at Sonoma Raceway: 8 valid laps.\n"
    "Best: lap 8, 1:35.287. Theoretical best (every best piece added up): 1:35.129.\n"
    "Focus next time: T3: brake 28 m later, 8 m before T3.\n"
    "Plan: 2 laps warm tyres and brakes; 3 laps T3: brake 28 m later"
)


def _narrate(reply: str) -> tuple[list[str], list[str]]:
    """(what streamed while the reply was read, every part of the finished narrative)"""
    sheet = FactSheet.from_lines(DIGEST)
    r = ReplyReader(sheet, "debrief my session", need_first=False)
    shown = []
    for word in reply.split(" "):
        shown += r.feed(word + " ")
    return shown, r.finish(facts_of(DIGEST)).parts


def test_a_narrative_keeps_every_fact_the_model_left_out_after_its_picks() -> None:
    shown, parts = _narrate(_reply(("f3", "brake later and stay smooth")))
    focus = "Focus next time: T3: brake 28 m later, 8 m before T3. Brake later and stay smooth."
    assert shown == [focus]
    assert parts == [
        focus,
        "Session at Sonoma Raceway: 8 valid laps.",
        "Best: lap 8, 1:35.287. Theoretical best (every best piece added up): 1:35.129.",
        "Plan: 2 laps warm tyres and brakes; 3 laps T3: brake 28 m later.",
    ]


def test_a_questions_reply_keeps_every_fact_of_the_data_answer_after_its_picks() -> None:
    """The same rule as a narrative's: the model adds its words, the data answer's facts all follow."""
    text = "Your best lap was lap 7 in 1:46.984, of 12 valid laps. Top speed 178.4 km/h; on lap 3."
    r = ReplyReader(FactSheet.from_text(text), "what was my best lap?", need_first=True)
    shown = r.feed(_reply(("f1", "a strong base to build on")))
    got = r.finish(facts_of(text))
    assert shown == ["Your best lap was lap 7 in 1:46.984, of 12 valid laps. A strong base to build on."]
    assert got.added == ["Top speed 178.4 km/h.", "On lap 3."] and got.parts == shown + got.added
    assert got.adds and got.notes == ["A strong base to build on."]
    # picks without a note of the model's own: the data answer reordered, nothing added
    r = ReplyReader(FactSheet.from_text(text), "what was my best lap?", need_first=True)
    r.feed(_reply(("f1", ""), ("f3", "")))
    got = r.finish(facts_of(text))
    assert not got.adds and got.parts[-1] == "Top speed 178.4 km/h."


def test_facts_beyond_the_listing_follow_the_picks() -> None:
    """A long data answer: the model is shown the first facts only, the rest still reach the driver."""
    text = " ".join(f"Lap {n} was {100 + n}.5 s." for n in range(1, MAX_LISTED + 3))
    sheet = FactSheet.from_text(text)
    assert len(sheet.facts) == MAX_LISTED + 2 and len(sheet.ids) == MAX_LISTED
    r = ReplyReader(sheet, "my laps?", need_first=True)
    r.feed(_reply(("f1", "steady start there")))
    got = r.finish(facts_of(text))
    assert got.added[-2:] == [
        f"Lap {MAX_LISTED + 1} was {101 + MAX_LISTED}.5 s.",
        f"Lap {MAX_LISTED + 2} was {102 + MAX_LISTED}.5 s.",
    ]
    assert len(got.parts) == MAX_LISTED + 2


def test_prose_carries_a_fact_only_by_stating_every_figure_of_it() -> None:
    sheet = FactSheet.from_text("Best lap 7 in 1:46.984. Top speed 178.4 km/h on lap 3. Keep it tidy.")
    prose = "Lap 7 in 1:46.984 was your best and you reached 178.4 on lap 8."
    assert carry_every_fact(prose, sheet, [], prose=True) == [
        "Top speed 178.4 km/h on lap 3.",
        "Keep it tidy.",
    ]
    assert carry_every_fact(prose, sheet, ["f2"], prose=True) == ["Keep it tidy."]
    # picked sentences carry their facts verbatim, figures elsewhere do not
    assert carry_every_fact("Best lap 7 in 1:46.984.", sheet, []) == [
        "Top speed 178.4 km/h on lap 3.",
        "Keep it tidy.",
    ]
    assert carry_every_fact("lap 7 1:46.984", sheet, []) == [t for _, t in sheet.facts]


def test_a_prose_narrative_is_followed_by_the_facts_whose_figures_it_does_not_state() -> None:
    prose = "You ran 8 valid laps and your best was 1:35.287 on lap 8, good work."
    _, parts = _narrate(prose)
    assert parts == [
        prose,
        "Best: lap 8, 1:35.287. Theoretical best (every best piece added up): 1:35.129.",  # 1:35.129 unsaid
        "Focus next time: T3: brake 28 m later, 8 m before T3.",
        "Plan: 2 laps warm tyres and brakes; 3 laps T3: brake 28 m later.",
    ]


def test_an_empty_reply_answers_nothing() -> None:
    assert _read("")[1] == "empty model reply"
    assert _read('{"emotion": "neutral", "answer": []}')[1] == "the reply picked no fact"


def test_a_reply_after_a_bad_pick_is_not_read() -> None:
    shown, problem = _read(_reply(("f1", "nice"), ("f7", "x"), ("f2", "fast")))
    assert len(shown) == 1 and problem is not None and "f7" in problem


def test_the_schema_forbids_digits_in_notes_and_unknown_ids() -> None:
    schema = reply_schema(SHEET)
    item = schema["properties"]["answer"]["items"]["properties"]
    assert item["fact"]["enum"] == ["f1", "f2"]
    assert not re.fullmatch(item["note"]["pattern"], "about 2 tenths")


def test_a_plain_text_reply_is_shown_only_when_every_figure_is_supported() -> None:
    shown, problem = _read("Your best was lap 7 in 1:46.984. Keep it up. [EMOTION:encouraging]")
    assert problem is None and shown == []  # prose is checked whole at the end, then shown
    assert _read("Your best was lap 7 in 1:45.984. [EMOTION:encouraging]")[1] == "unsupported: 1:45.984"
    assert _read("Best lap 3.4 s and the car has no wheels.")[1] is not None


@pytest.mark.parametrize(
    "text",
    [
        "Specter, a race engineer debriefing a track-day driver.",
        "Driver: what was my best lap?",
        "Your best lap was lap 7 and then",
        "ok",
    ],
)
def test_echoes_cut_sentences_and_empty_prose_are_refused(text: str) -> None:
    assert prose_problem(text, SHEET, "what was my best lap?") is not None


def test_facts_from_tool_output_keep_their_units() -> None:
    f = Facts()
    f.add_data({"top_speed_kmh": 180.0, "max_rpm": 7000, "best_lap": 3, "best_lap_s": 101.2})
    assert grounding_check("180 km/h, 7000 rpm, lap 3 in 1:41.2", f) == []
    assert grounding_check("180 rpm", f) == ["180 rpm"]  # a speed cited as rpm


@pytest.mark.parametrize(
    "note",
    ["Lap is faster here", "Nuestra cosa que le da", "Fabuliososmoso", "ok"],
)
def test_a_note_outside_plain_coaching_words_is_never_shown(note: str) -> None:
    shown, problem = _read(_reply(("f1", note)))
    assert all(note.lower() not in x.lower() for x in shown)
    assert problem is not None or shown == ["Your best lap was lap 7 in 1:46.984, of 12 valid laps."]


def test_the_schema_allows_only_plain_ascii_words_in_notes() -> None:
    pattern = reply_schema(SHEET)["properties"]["answer"]["items"]["properties"]["note"]["pattern"]
    assert re.fullmatch(pattern, "Keep it smooth, brake later!")
    assert not any(re.fullmatch(pattern, x) for x in ("Lap \u215b", "lap 7", "caf\u00e9", "{x}"))

"""Follow-ups: a question that leans on the one before takes what it lacks from it, a complete one takes
nothing; the previous question kept as JSON in the agent state and read back (a damaged state starts a
new thread, never fails)."""

from __future__ import annotations

import json

import pytest

from services.paddock.questions.conversation import STATE_KEY, follow, from_state, to_state
from services.paddock.questions.model import LapRef, Question
from services.paddock.questions.parse import parse
from tests.questions.test_parse import NAMES, expected, fields

# a conversation: each line read after the one before it -> its fields, and whether it followed
THREADS: list[list[tuple[str, str, bool]]] = [
    [
        ("what was my fastest lap?", "lap_time laps=fastest measure=lap_time", False),
        ("and the slowest?", "lap_time laps=slowest measure=lap_time", True),
        ("why?", "why_slower laps=slowest", True),
        ("compare that with lap 5", "compare laps=slowest,5", True),
        ("what's the gap between them?", "compare laps=slowest,5", True),
    ],
    [
        ("what was my minimum speed in turn 2 on lap 5?", "corner laps=5 corner=t2 measure=min_speed", False),
        ("what about turn 3?", "corner laps=5 corner=t3 measure=min_speed", True),
        ("and on lap 6?", "corner laps=6 corner=t3 measure=min_speed", True),
        ("why?", "why_slower laps=6 corner=t3", True),
    ],
    [
        ("top speed on my fastest lap", "channel laps=fastest measure=top_speed", False),
        ("and the slowest?", "channel laps=slowest measure=top_speed", True),
        ("how consistent was I?", "consistency", False),  # complete in itself
        ("what about turn 3?", "corner corner=t3", False),  # leans on it, but it has nothing to give
        ("what was my top speed?", "channel measure=top_speed", False),  # names its own measure: no lap taken
    ],
    [
        ("did I lock up the brakes?", "events measure=lockup", False),
        ("where?", "events measure=lockup", True),  # a question word alone leans on the one before
        ("what was I topping out at?", "channel measure=top_speed", False),
        ("and on lap 9?", "channel laps=9 measure=top_speed", True),
    ],
    [
        ("what was my oil pressure?", "channel measure=oil_pressure", False),
        ("was it ok?", "judge measure=oil_pressure", True),
        ("and the coolant?", "judge measure=coolant_temp", True),
        ("tell me a joke", "unrelated", False),
    ],
    [
        ("lap 4 vs lap 6 in sector 2", "compare laps=4,6 sector=2", False),
        ("what about sector 3?", "compare laps=4,6 sector=3", True),
        ("and turn 5?", "compare laps=4,6 corner=t5", True),
        ("debrief please", "debrief", False),
    ],
    [
        ("what was my lap time on lap 5?", "lap_time laps=5 measure=lap_time", False),
        ("what about the hairpin?", "corner laps=5 corner=t7 measure=lap_time", True),
        ("and the top speed?", "corner laps=5 corner=t7 measure=top_speed", True),
        ("and sector 2?", "sector laps=5 sector=2 measure=top_speed", True),
    ],
    [
        ("top speed on lap 3", "channel laps=3 measure=top_speed", False),
        ("what about turn 3?", "corner laps=3 corner=t3 measure=top_speed", True),
    ],
    [
        ("what was the highest oil pressure?", "channel measure=oil_pressure agg=max", False),
        ("and the coolant?", "channel measure=coolant_temp agg=max", True),
        ("and on lap 4?", "channel laps=4 measure=coolant_temp agg=max", True),
    ],
    [
        ("what was my average lap time?", "lap_time measure=lap_time agg=avg", False),
        ("and the slowest?", "lap_time laps=slowest measure=lap_time", True),  # a pick is no average
    ],
    [
        ("any lockups?", "events measure=lockup", False),
        ("and on lap 5?", "events laps=5 measure=lockup", True),
        ("is the car understeering?", "balance", False),
        ("what about the carousel?", "balance corner=t6", True),
    ],
    [
        ("what was my peak rpm?", "channel measure=rpm agg=max", False),
        ("lap seven?", "channel laps=7 measure=rpm agg=max", True),  # a lap alone: the same figure of it
        ("lap 7 time", "lap_time laps=7 measure=lap_time", False),  # its own measure
        ("lap 8?", "lap_time laps=8 measure=lap_time", False),  # a lap time before: nothing to carry
    ],
    [
        ("why?", "why_slower", False),  # nothing before it: nothing to take
        ("compare lap 3 and lap 7", "compare laps=3,7", False),
        ("and the rpm?", "compare laps=3,7 measure=rpm", True),
        ("what about 2 and 8?", "compare laps=2,8 measure=rpm", True),  # bare numbers after laps compared
    ],
    [
        ("what about 2 and 8?", "unrelated", False),  # nothing compared before: no laps
        ("what was my fastest lap?", "lap_time laps=fastest measure=lap_time", False),
        ("and 2 and 8?", "unrelated", False),  # no numbered laps compared before: no laps either
    ],
    [
        ("did I get a locked wheel?", "events measure=lockup", False),
        ("and was I coasting anywhere?", "events measure=coasting", True),  # the coasting, as an event
    ],
]


@pytest.mark.parametrize("thread", THREADS, ids=[t[0][0] for t in THREADS])
def test_thread(thread: list[tuple[str, str, bool]]) -> None:
    previous: Question | None = None
    for text, spec, followed in thread:
        q = parse(text, NAMES, previous)
        assert (fields(q), q.follow_up) == (expected(spec), followed), text
        previous = q


def test_follow_takes_nothing_without_a_previous_question() -> None:
    q = Question("and the slowest?", "lap_time", (LapRef(pick="slowest"),), measure="lap_time")
    assert follow(None, q) is q


def test_follow_keeps_a_complete_question() -> None:
    prev = Question("lap 5 rpm", "channel", (LapRef(5),), measure="rpm")
    q = Question("what was my best lap?", "lap_time", (LapRef(pick="fastest"),))
    assert follow(prev, q) is q


def test_state_round_trip() -> None:
    q = parse("compare lap 5 with lap 3 of my other session at turn 11", NAMES)
    kept = json.loads(json.dumps({STATE_KEY: to_state(q)}))  # what the agent session stores
    assert from_state(kept[STATE_KEY]) == q


@pytest.mark.parametrize(
    "state",
    [
        None,
        "what was my best lap?",
        {"text": "x", "intent": "launch_rockets"},
        {"text": "x", "intent": "compare", "laps": [{"number": "five"}]},
        {"text": "x", "intent": "compare", "laps": 7},
        {"text": "x", "intent": "corner", "sector": "two"},
    ],
)
def test_a_damaged_state_starts_afresh(state: object) -> None:
    assert from_state(state) is None


def test_unknown_slot_values_are_dropped() -> None:
    got = from_state({"text": "x", "intent": "channel", "measure": "warp_factor", "aggregation": "median"})
    assert got == Question("x", "channel")

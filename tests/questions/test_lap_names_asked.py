"""Laps named the way drivers put them (#32): the out and in laps by name, a figure with laps left out ("my
average excluding lap 1"), a lap asked by what it was ("what lap did I go quickest on?"), a lap said as an
ordinal alone, and plain slowest / lap N / no such lap questions in forum words, and a session with no
complete lap. Every figure is checked against the simulator's ground truth (``tests/questions/said.py``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.paddock.questions.model import LapRef
from services.paddock.questions.parse import parse
from tests.questions.said import CLOCK, TOL_PART_S, TOL_S, clock, lap_said, sim_laps
from tests.support.asking import answer_of

# ---- the out and in laps by name
OUT_LAP = [
    "how slow was my out lap?",
    "out lap time?",
    "whats my outlap",
    "how long did the out-lap take",
    "my out lap, how long was it",
    "what did the out lap come in at?",
    "time of the out lap pls",
]
IN_LAP = [
    "in lap time?",
    "what was my in lap time",
    "how long was my inlap",
    "the in lap, how slow?",
    "my in-lap, what time was it",
    "how much slower was my in lap than my best?",
]


@pytest.mark.parametrize(("text", "kind"), [(t, "out") for t in OUT_LAP] + [(t, "in") for t in IN_LAP])
def test_the_out_or_in_lap_by_name(q_lake, text: str, kind: str) -> None:
    (lap, t), *more = sim_laps(q_lake, kind).items()
    assert not more  # the simulator drives one out lap and one in lap
    full = sim_laps(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    word = {"out": "out lap", "in": "in lap"}[kind]
    assert got.text.startswith(f"Your {word} was lap {lap} in "), got.text
    assert abs(lap_said(got.text, lap) - t) < TOL_PART_S
    assert f"Your best lap, lap {best}, was " in got.text and "not a timed lap" in got.text
    m = re.search(r"Your best lap, lap \d+, was (\d+:\d{2}\.\d{3})", got.text)
    assert m and abs(clock(m.group(1)) - full[best]) < TOL_S


def test_the_out_and_in_laps_asked_together(q_lake) -> None:
    out, inn = sim_laps(q_lake, "out"), sim_laps(q_lake, "in")
    got = answer_of("out lap vs in lap, which took longer?", q_lake["sim"])
    for laps, word in ((out, "out lap"), (inn, "in lap")):
        ((lap, t),) = laps.items()
        assert f"Your {word} was lap {lap} in " in got.text, got.text
        assert abs(lap_said(got.text, lap) - t) < TOL_PART_S


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("what was my speed in lap 3", (LapRef(number=3),)),  # "in lap 3": lap 3, no in lap
        ("time in lap 4?", (LapRef(number=4),)),
        ("my in lap", (LapRef(pick="in"),)),
        ("the out lap", (LapRef(pick="out"),)),
        ("out lap and in lap", (LapRef(pick="out"), LapRef(pick="in"))),
    ],
)
def test_an_in_lap_is_never_in_lap_n(text: str, want: tuple[LapRef, ...]) -> None:
    assert parse(text).laps == want


# ---- laps left out of a figure: (phrasing, the laps left out: numbers, or "first" / "slowest")
LEFT_OUT = [
    ("my average excluding lap 1", [1]),
    ("avg lap time without lap 1?", [1]),
    ("average lap time not counting the first lap", ["first"]),
    ("whats my avg if you ignore laps 1 and 3", [1, 3]),
    ("average lap not including lap 2", [2]),
    ("mean lap, ignoring my slowest one", ["slowest"]),
    ("average lap time, not counting my slowest lap", ["slowest"]),
    ("what would my average be except lap 5 and lap 6", [5, 6]),
    ("typical lap, leaving out lap 1?", [1]),
]


def _resolved(full: dict[int, float], gone: list[int | str]) -> list[int]:
    pick = {"first": min(full), "slowest": max(full, key=lambda n: full[n])}
    return sorted(pick[x] if isinstance(x, str) else x for x in gone)


@pytest.mark.parametrize(("text", "gone"), LEFT_OUT)
def test_the_average_with_laps_left_out(q_lake, text: str, gone: list[int | str]) -> None:
    full = sim_laps(q_lake)
    out = _resolved(full, gone)
    rest = [t for n, t in full.items() if n not in out]
    got = answer_of(text, q_lake["sim"])
    said = "lap " + str(out[0]) if len(out) == 1 else f"laps {out[0]} and {out[1]}"
    m = re.fullmatch(rf"Your average lap was (\S+) over (\d+) valid laps, leaving out {said}\.", got.text)
    assert m, got.text
    assert abs(clock(m.group(1)) - sum(rest) / len(rest)) < TOL_S and int(m.group(2)) == len(rest)


@pytest.mark.parametrize(
    "text",
    [
        "average lap without the in and out laps",
        "what's my average lap time excluding the out lap and in lap",
        "average lap, minus the out lap",
    ],
)
def test_the_average_without_the_out_and_in_laps_is_every_valid_lap(q_lake, text: str) -> None:
    full = sim_laps(q_lake)
    got = answer_of(text, q_lake["sim"])
    m = re.fullmatch(
        r"Your average lap was (\S+) over (\d+) valid laps \(out and in laps are never counted\)\.", got.text
    )
    assert m, got.text
    assert abs(clock(m.group(1)) - sum(full.values()) / len(full)) < TOL_S and int(m.group(2)) == len(full)


@pytest.mark.parametrize(
    ("text", "pick", "gone"),
    [
        ("best lap excluding lap {best}", min, "best"),
        ("my fastest lap if you leave out lap {best}?", min, "best"),
        ("slowest lap except lap {slowest}", max, "slowest"),
    ],
)
def test_the_best_or_slowest_with_a_lap_left_out(q_lake, text: str, pick: Any, gone: str) -> None:
    full = sim_laps(q_lake)
    named = {"best": min(full, key=lambda n: full[n]), "slowest": max(full, key=lambda n: full[n])}
    rest = {n: t for n, t in full.items() if n != named[gone]}
    want = pick(rest, key=lambda n: rest[n])
    got = answer_of(text.format(**named), q_lake["sim"])
    word = "best" if pick is min else "slowest"
    assert got.text.startswith(f"Your {word} lap was lap {want} in "), got.text
    assert abs(lap_said(got.text, want) - full[want]) < TOL_S
    assert got.text.endswith(f"of {len(rest)} valid laps, leaving out lap {named[gone]}.")


@pytest.mark.parametrize(
    ("text", "pick"),
    [
        ("did i break the 95 second barrier?", min),
        ("what lap did i go quickest on", min),
        ("which lap was i slowest on?", max),
        ("what lap number did I set my fastest time on?", min),
    ],
)
def test_the_best_or_slowest_asked_by_what_it_was(q_lake, text: str, pick: Any) -> None:
    full = sim_laps(q_lake)
    lap = pick(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    said = f"Your {'best' if pick is min else 'slowest'} lap was lap {lap} in "
    if "break" in text:  # a time aimed at: the best lap against it
        said = f"{'Yes' if full[lap] < 95.0 else 'Not yet'}: your best lap, lap {lap} in "
    assert got.text.startswith(said), got.text
    assert abs(lap_said(got.text, lap) - full[lap]) < TOL_S


def test_one_lap_named_twice_is_its_time(q_lake) -> None:
    full = sim_laps(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(f"i know my fastest lap was lap {best}, what time was it?", q_lake["sim"])
    m = re.fullmatch(rf"Lap {best} took (\S+)\. It was your best lap of {len(full)} valid laps\.", got.text)
    assert m and abs(clock(m.group(1)) - full[best]) < TOL_S, got.text


@pytest.mark.parametrize(
    ("text", "laps"),
    [("was my third lap faster than my fifth?", (3, 5)), ("lap 4 vs the sixth, which was quicker", (4, 6))],
)
def test_a_second_lap_said_as_an_ordinal_alone(q_lake, text: str, laps: tuple[int, int]) -> None:
    full = sim_laps(q_lake)
    got = answer_of(text, q_lake["sim"])
    assert {got.args.get("lap_a"), got.args.get("lap_b")} == set(laps), (got.args, got.text)
    slow, fast = sorted(laps, key=lambda n: -full[n])
    m = re.match(rf"Lap {slow} was (\d+\.\d+) s slower than lap {fast}\b", got.text)
    assert m and abs(float(m.group(1)) - (full[slow] - full[fast])) < 2 * TOL_S, got.text


# ---- the plain lap figures in forum words
SLOWEST = [
    "which was my worst lap?",
    "my slowest lap time?",
    "slowest lap pls",
    "what was the slowest one i did",
]


@pytest.mark.parametrize("text", SLOWEST)
def test_the_slowest_lap_in_other_words(q_lake, text: str) -> None:
    full = sim_laps(q_lake)
    slow = max(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    assert got.text.startswith(f"Your slowest lap was lap {slow} in "), got.text
    assert abs(lap_said(got.text, slow) - full[slow]) < TOL_S


LAP_N = [
    ("what did i do on lap 6?", 6),
    ("lap 3 time please", 3),
    ("how long was lap 7?", 7),
    ("time for the 4th lap?", 4),
    ("wat was lap 9", 9),
    ("lap nine, what time?", 9),
]


@pytest.mark.parametrize(("text", "lap"), LAP_N)
def test_a_lap_by_number_in_other_words(q_lake, text: str, lap: int) -> None:
    full = sim_laps(q_lake)
    got = answer_of(text, q_lake["sim"])
    m = re.match(rf"Lap {lap} took (\S+)\.", got.text)
    assert m and abs(clock(m.group(1)) - full[lap]) < TOL_S, got.text


@pytest.mark.parametrize(
    "text", ["what was lap 44?", "lap 15 time?", "how did lap 30 go compared to my best"]
)
def test_a_lap_the_session_does_not_have(q_lake, text: str) -> None:
    laps = [x["lap"] for x in q_lake["sim_obj"].truth.laps]
    n = int(re.search(r"lap (\d+)", text).group(1))  # type: ignore[union-attr]
    got = answer_of(text, q_lake["sim"])
    assert got.text == f"There is no lap {n} in this session: it has laps {min(laps)} to {max(laps)}."


@pytest.mark.parametrize(
    "text",
    ["average lap excluding lap 1?", "my best lap if you leave out lap 2", "how slow was my in lap?"],
)
def test_no_complete_lap_gives_no_lap_figure(no_full_lap: str, text: str) -> None:
    got = answer_of(text, no_full_lap)
    assert not CLOCK.search(got.text.split(".")[0]) or "not a timed lap" in got.text, got.text
    said = r"[Nn]o valid (?:timed )?lap|No in lap was recorded"
    assert re.search(said, got.text), got.text

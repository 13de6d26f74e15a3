"""Laps, other sessions and comparisons asked in drivers' own words (forum shorthand, context before the
question, typos, negations, British and American words): the best, the average, lap against lap, the
lap before or after a named one, the driver's other session at the track, the theoretical best, lockups,
coasting, and a session with no complete lap. Every figure is checked against the simulator's ground
truth or our own reading of the raw VBOX file (``tests/support/truth.py``), never against the tools."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.paddock.agents.evidence import plan_for
from services.paddock.questions.model import LapRef
from services.paddock.questions.parse import parse
from tests.support.asking import answer_of
from tests.support.truth import vbox_truth

TOL_S = 0.01  # Pitwall times a lap from the logged samples (a sample apart), the simulator from its clock
CLOCK = re.compile(r"\b(\d+):(\d{2}\.\d{3})\b")


def _full(q_lake: dict[str, Any]) -> dict[int, float]:
    """The simulator's own full laps: lap -> time."""
    return {x["lap"]: x["time_s"] for x in q_lake["sim_obj"].truth.laps if x["kind"] == "full"}


def _clocks(text: str) -> list[float]:
    return [int(m) * 60 + float(s) for m, s in CLOCK.findall(text)]


def _said(text: str, lap: int) -> float:
    """The time ``text`` gives lap ``lap`` ("lap 3 1:36.145", "lap 3 in 1:36.145", "Lap 3 took 1:36.145")."""
    m = re.search(rf"\b[Ll]ap {lap}(?: in| took| was)? (\d+):(\d{{2}}\.\d{{3}})\b", text)
    assert m, (lap, text)
    return int(m.group(1)) * 60 + float(m.group(2))


def _laps_worded(laps: list[int]) -> str:
    ns = [str(n) for n in sorted(set(laps))]
    return f"lap {ns[0]}" if len(ns) == 1 else "laps " + ", ".join(ns[:-1]) + f" and {ns[-1]}"


BEST = [
    "whats my fl time? i mean fastest lap",
    "fastest lap pls",
    "which lap was my quickest one, and what time?",
    "So I've been working on my braking all day, what was my quickest lap in the end?",
    "ok so after all that, what was my best lap time",
    "wat was my best lap time",
    "Whats my PB today mate",
    "not my average, my best lap please",
    "i'm not interested in the average, just the best",
    "what was the quickest lap of the session, in minutes and seconds?",
    "best lap & what lap number was it",
    # a time the driver ran, in racers' words (stop 51)
    "what did I run today?",
    "what time did I do?",
    "what was my time?",
    "what did I clock?",
    "which lap ended up being my best all day?",
]


@pytest.mark.parametrize("text", BEST)
def test_the_best_lap_in_other_words(q_lake, text: str) -> None:
    full = _full(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    assert got.text.startswith(f"Your best lap was lap {best} in "), got.text
    assert abs(_said(got.text, best) - full[best]) < TOL_S


AVERAGE = [
    "why my average matters - whats my average?",
    "whats my average?",
    "whats the avg",
    "My coach says consistency is key. What's my average lap?",
    "Honestly I don't care about my best. What was my average?",
    "average lap speed? no i mean average lap time",
    "typical lap time today?",
    "mean laptime over the session?",
    "what was the average of all my laps",
]


@pytest.mark.parametrize("text", AVERAGE)
def test_the_average_lap_in_other_words(q_lake, text: str) -> None:
    full = _full(q_lake)
    mean = sum(full.values()) / len(full)
    got = answer_of(text, q_lake["sim"])
    m = re.match(r"Your average lap was (\d+):(\d{2}\.\d{3}) over (\d+) valid laps\.$", got.text)
    assert m, got.text
    assert abs(int(m.group(1)) * 60 + float(m.group(2)) - mean) < TOL_S and int(m.group(3)) == len(full)


# (phrasing, the lap it names: the best's number plus this, or ("slowest", step))
BESIDE = [
    ("the lap before my best", "fastest", -1),
    ("the lap after my best", "fastest", 1),
    ("what was the lap before my fastest one?", "fastest", -1),
    ("time for the lap just before my fastest", "fastest", -1),
    ("the lap right after my pb?", "fastest", 1),
    ("was the lap after my best lap any good?", "fastest", 1),
    ("the lap prior to my slowest lap", "slowest", -1),
    ("the one after my slowest lap", "slowest", 1),
]


@pytest.mark.parametrize(("text", "pick", "step"), BESIDE)
def test_the_lap_before_or_after_a_named_lap(q_lake, text: str, pick: str, step: int) -> None:
    full = _full(q_lake)
    base = (min if pick == "fastest" else max)(full, key=lambda n: full[n])
    assert parse(text).laps == (LapRef(pick=pick, offset=step),)  # type: ignore[arg-type]
    lap = base + step
    got = answer_of(text, q_lake["sim"])
    if lap not in full:  # an out or in lap, or none: said so, no time
        assert f"ap {lap}" in got.text and not _clocks(got.text.split(".")[0]), got.text
        return
    assert got.text.startswith(f"Lap {lap} took "), got.text
    assert abs(_said(got.text, lap) - full[lap]) < TOL_S


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("compare my best lap and the lap before it", -1),
        ("my best lap and the one after it, which was faster?", 1),
        ("how did the lap after my best compare to it?", 1),
        ("the lap right after my pb, how much did i lose?", 1),
    ],
)
def test_a_lap_beside_the_best_compared_with_the_best(q_lake, text: str, step: int) -> None:
    full = _full(q_lake)
    best = min(full, key=lambda n: full[n])
    other = best + step
    got = answer_of(text, q_lake["sim"])
    assert {got.args.get("lap_a"), got.args.get("lap_b")} == {best, other}, (got.args, got.text)
    if other in full:
        assert abs(_said(got.text, best) - full[best]) < TOL_S
        assert abs(_said(got.text, other) - full[other]) < TOL_S


VERSUS = [
    ("lap 3 vs lap 6, which was quicker and by how much?", (3, 6)),
    ("how much slower was lap 4 than lap 2", (4, 2)),
    ("gap between l3 and l7", (3, 7)),
    ("lap7 vs lap2", (7, 2)),
    ("lap 7 v lap 2", (7, 2)),
    ("diff between lap two and lap six?", (2, 6)),
    ("was lap 5 quicker or slower than lap 8?", (5, 8)),
    ("where did lap 4 lose time to lap 2?", (4, 2)),
    ("compare laps 3 & 8", (3, 8)),
]


@pytest.mark.parametrize(("text", "laps"), VERSUS)
def test_lap_against_lap_in_other_words(q_lake, text: str, laps: tuple[int, int]) -> None:
    full = _full(q_lake)
    got = answer_of(text, q_lake["sim"])
    assert {got.args.get("lap_a"), got.args.get("lap_b")} == set(laps), (got.args, got.text)
    for n in laps:
        assert abs(_said(got.text, n) - full[n]) < TOL_S
    slower, faster = sorted(laps, key=lambda n: -full[n])
    assert got.text.startswith(f"Lap {slower} was "), got.text  # the slower lap named as slower


OTHER = [
    "whats my pb from the other day",
    "fastest lap last session?",
    "compare my two times",
    "compare both sessions best laps",
    "difference between my two sessions",
    "compare this session with my previous one",
    "how did this session go compared to the last one?",
    "did i improve on my previous session's fastest lap??",
    "did i beat my time from last session",
    "my pb last time vs now",
    "which session was faster",
    "Was I faster in this session or the previous one?",
    "compare my best lap today with my best lap from the other day",
    "did I go quicker than yesterday?",
]


@pytest.mark.parametrize("text", OTHER)
def test_the_other_session_its_best_and_the_gap(q_lake, text: str) -> None:
    """Asked of the simulated session: the driver's other session at Sonoma is the VBOX one."""
    other = vbox_truth(q_lake["vbox_path"]).best.time_s
    mine = min(_full(q_lake).values())
    got = answer_of(text, q_lake["sim"])
    clocks = _clocks(got.text)
    assert any(abs(c - other) < 0.05 for c in clocks), (other, got.text)  # the VBOX lap from our own gate
    assert any(abs(c - mine) < TOL_S for c in clocks), (mine, got.text)
    gaps = [float(x) for x in re.findall(r"\b(\d+\.\d+) s (?:faster|slower)\b", got.text)]
    assert gaps and abs(gaps[0] - abs(other - mine)) < 0.06, got.text


@pytest.mark.parametrize(
    "text",
    [
        "did I lock any wheels?",
        "was there any lock up?",
        "did i flat spot anything",
        "how often did I lock a wheel, and where?",
        "I think I flat spotted a tyre, where did I lock up?",
        "did i lock up the fronts under braking anywhere",
    ],
)
def test_lockups_in_other_words(q_lake, text: str) -> None:
    locks = [e for e in q_lake["sim_obj"].truth.events if e["kind"] == "lockup"]
    (at,) = {e["corner_id"].upper() for e in locks}
    got = answer_of(text, q_lake["sim"])
    laps = _laps_worded([e["lap"] for e in locks])
    assert got.text == f"Yes, {len(locks)} lockup{'s' * (len(locks) > 1)}: at {at} on {laps}."


def test_one_lockup_on_one_lap_is_said_in_the_singular(q_lake) -> None:
    (e, *_) = [e for e in q_lake["sim_obj"].truth.events if e["kind"] == "lockup"]
    got = answer_of(f"lockups on lap {e['lap']}?", q_lake["sim"])
    assert got.text == f"Yes, 1 lockup: at {e['corner_id'].upper()} on lap {e['lap']}."


@pytest.mark.parametrize(
    "text", ["where do I coast?", "too much time off the pedals?", "where am i coasting?"]
)
def test_coasting_in_other_words(q_lake, text: str) -> None:
    (ev,) = [e for e in q_lake["sim_obj"].truth.events if e["kind"] == "coasting"]
    got = answer_of(text, q_lake["sim"])
    assert got.text.startswith(
        f"You coasted (neither pedal) into {ev['corner_id'].upper()} on lap {ev['lap']}"
    )


@pytest.mark.parametrize(
    "text",
    [
        "whats the theoretical best lap",
        "best possible lap if everything came together",
        "optimal lap time?",
        "ideal lap vs my best lap, how big is the gap",
    ],
)
def test_the_theoretical_best_in_other_words(q_lake, text: str) -> None:
    full = _full(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    assert "theoretical best" in got.text and abs(_said(got.text, best) - full[best]) < TOL_S, got.text
    assert all(c <= full[best] + TOL_S for c in _clocks(got.text))  # nothing above the best lap


@pytest.mark.parametrize(
    "text",
    [
        "what was my best lap?",
        "whats my fastest lap time",
        "my average lap?",
        "average lap please",
        "compare my best and worst laps",
        "compare lap 1 and lap 2",
        "what was lap 1?",
        "the lap after my best",
        "whats my theoretical best",
        "how many laps did i complete",
    ],
)
def test_a_session_with_no_complete_lap_says_so_and_gives_no_lap_time(no_full_lap: str, text: str) -> None:
    """The AiM XRK with one out lap: no lap's figure, whatever was asked about laps."""
    got = answer_of(text, no_full_lap)
    assert not _clocks(got.text), got.text
    said = r"[Nn]o valid (?:timed )?lap|no complete timed lap|0 valid timed laps|no valid full lap"
    assert re.search(said, got.text), got.text


# our own phrasings, read (no data): -> (intent, laps)
READ = [
    ("the lap before lap 5", ("lap_time", (LapRef(number=5, offset=-1),))),
    ("lap after lap 5?", ("lap_time", (LapRef(number=5, offset=1),))),
    ("the lap following my pb", ("lap_time", (LapRef(pick="fastest", offset=1),))),
    (
        "my best lap and the lap after it",
        ("compare", (LapRef(pick="fastest"), LapRef(pick="fastest", offset=1))),
    ),
    ("did I coast before the brakes at turn 10?", ("corner", ())),  # "before" no lap: no lap moved
    ("lap7 vs lap2", ("compare", (LapRef(number=7), LapRef(number=2)))),
    ("whats my pb from the other day", ("lap_time", (LapRef(pick="fastest", session="other"),))),
    ("compare this session with my previous one", ("sessions", (LapRef(session="other"),))),
    ("which session was faster", ("sessions", (LapRef(session="other"),))),
    ("not my average, my best lap please", ("lap_time", (LapRef(pick="fastest"),))),
    ("average lap time (not counting the first lap)?", ("lap_time", ())),  # the first lap set aside
    ("whats my fl time? i mean fastest lap", ("lap_time", (LapRef(pick="fastest"),))),  # "I mean": no mean
    ("why my average matters - whats my average?", ("lap_time", ())),
    ("Oil pressure looked low. Was it ok?", ("judge", ())),  # leans on the context: the whole is read
    ("why was lap 5 slow - what happened at t3?", ("why_slower", (LapRef(number=5),))),  # not the same laps
]


@pytest.mark.parametrize(("text", "want"), READ)
def test_our_phrasings_are_read(text: str, want: tuple[str, tuple[LapRef, ...]]) -> None:
    q = parse(text, {c: () for c in ("t1", "t2", "t3", "t10")})
    assert (q.intent, q.laps) == want, q


def test_the_lap_after_that_moves_the_lap_asked_before(q_lake) -> None:
    full = _full(q_lake)
    best = min(full, key=lambda n: full[n])
    sid = q_lake["sim"]
    _, state = plan_for("what was my best lap?", sid, None)
    after, state = plan_for("and the lap after that?", sid, None, state)
    assert after is not None and after["text"].startswith(f"Lap {best + 1} took "), after
    assert abs(_said(after["text"], best + 1) - full[best + 1]) < TOL_S
    back, _ = plan_for("what about the one before it?", sid, None, state)  # the lap before lap best + 1
    assert back is not None and abs(_said(back["text"], best) - full[best]) < TOL_S, back
    alone, _ = plan_for("the lap after that", sid, None)  # nothing asked before: no lap's time
    assert alone is not None and not _clocks(alone["text"]), alone

"""Where the time goes, top speed, braking and corner speed in drivers' own words (issue #32, "Questions
understood"): phrasings written for this test (forum and coaching style: context before the question,
typos, shorthand, British and American words, two questions in one), asked of a real paddock (no model
server: the data path) over the outside eval's sessions (``answer_run.prepare``: the simulated Sonoma
session, the VBOX, the MyChron kart) and scored against truth from the raw files and the simulator's
ground truth (``qeval_items.expect``), never against Pitwall's tools. A "where do I lose time?" names the
corners the simulator lost the most time at, in that order, and is never a lap against another lap."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from services.paddock.questions.parse import parse
from shared.netutil import free_port
from tests.support.answer_run import Prepared, missing_inputs, prepare, run
from tests.support.qeval_items import Item, questions
from tests.support.qeval_run import serve

L, T, B, C = "lose_time", "top_speed", "braking", "corner_speed"
SONOMA = tuple(f"t{i}" for i in range(1, 12))
# (session, kind, slots, text): each answered correctly
ANSWERED: list[tuple[str, str, dict[str, Any], str]] = [
    ("sim", L, {}, "where am i loosing the most time"),
    (
        "sim",
        L,
        {},
        "Been doing HPDE for two seasons now and I'm stuck at the same times. Where's the time hiding?",
    ),
    ("sim", L, {}, "which corner costs me the most?"),
    ("sim", L, {}, "what corner am I worst at"),
    ("sim", L, {}, "what should I work on next session?"),
    ("sim", L, {}, "what should i focus on to go quicker"),
    ("sim", L, {}, "biggest time loss on track?"),
    ("sim", L, {}, "where do i lose tenths"),
    ("sim", L, {}, "where are the easy tenths"),
    ("sim", L, {}, "if you had to pick one corner to fix, which would it be?"),
    ("sim", L, {}, "which turns am I slow in"),
    ("sim", L, {}, "where am I slowest compared with my best lap?"),
    ("sim", L, {}, "where's my weakest part of the lap"),
    ("sim", L, {}, "Not after lap times, just tell me where on the track I'm giving time away"),
    ("sim", L, {}, "any idea where i'm bleeding time? car feels fine"),
    ("sim", L, {}, "what's holding my lap time back?"),
    ("sim", L, {}, "where could I pick up a second"),
    ("sim", L, {}, "how do I go faster around here"),
    ("sim", L, {}, "what's costing me the most lap time"),
    ("sim", L, {}, "which part of the track am i slowest in"),
    ("sim", L, {}, "where am I slowing down too much?"),
    ("sim", L, {}, "am I slowing down too much in the fast corners?"),
    ("sim", L, {}, "am i slowing down in the quick bits? why?"),
    ("sim", L, {}, "do I slow down too much on the fast sections of the track"),
    ("sim", L, {}, "where am i slowing down on the fastest part of the lap"),
    ("sim", L, {}, "I'm a bit lost — what are my biggest mistakes?"),
    ("sim", L, {}, "what was my worst corner"),
    ("sim", L, {}, "what's my biggest weakness on this track"),
    ("sim", L, {}, "where am I losing time vs my fastest lap"),
    ("sim", L, {}, "coach me: what do I need to improve"),
    ("sim", L, {}, "where should I be looking for time?"),
    ("sim", L, {}, "where do i lose time on the lap, not comparing laps, just overall"),
    ("sim", L, {}, "which corners cost me tenths, and why?"),
    ("sim", L, {}, "where's the lap time going"),
    ("sim", L, {}, "what are the top 3 things to work on"),
    ("sim", L, {}, "where's my time going compared to my best?"),
    ("sim", L, {}, "why am I slow"),
    ("sim", L, {}, "why aren't I faster"),
    ("vbox", T, {}, "whats my vmax"),
    ("vbox", T, {}, "top speed down the back straight in mph please"),
    ("sim", T, {}, "how fast did i get on the straight"),
    ("sim", T, {}, "fastest speed i hit all session"),
    ("kart", T, {}, "whats the highest speed the kart did"),
    ("kart", T, {}, "top whack?"),
    ("sim", T, {"laps": [4]}, "terminal speed on lap 4"),
    ("vbox", T, {"laps": ["best"]}, "top speed on my fastest lap"),
    ("vbox", T, {}, "what was my peak speed, in kph"),
    ("sim", T, {}, "how quick was i going at the end of the straight, max"),
    ("kart", T, {"laps": [7]}, "top speed lap 7?"),
    ("vbox", T, {}, "v-max"),
    ("kart", T, {}, "what's the max speed you see in the data"),
    ("sim", B, {"corner": "t6"}, "am i braking too early for t6"),
    ("sim", B, {"corner": "t6"}, "where do i brake for turn six"),
    ("sim", B, {"corner": "t4"}, "am I braking too late into T4?"),
    ("sim", B, {"corner": "t4"}, "brake point turn 4?"),
    ("sim", B, {"corner": "t6"}, "I think I'm on the brakes way too soon for 6, am I?"),
    ("sim", B, {"corner": "t4"}, "do i overcook the braking into turn four"),
    ("sim", B, {"corner": "t6"}, "where's my braking marker for turn 6 and do I hit it"),
    ("sim", B, {"corner": "t4", "laps": [3]}, "where did I brake into t4 on lap 3"),
    ("sim", B, {"corner": "t6"}, "could I brake later into turn 6?"),
    ("sim", B, {"corner": "t4"}, "am i braking too deep into 4"),
    ("sim", C, {"corner": "t6", "laps": [4]}, "min speed t6 lap 4"),
    ("sim", C, {"corner": "t2", "laps": [3]}, "how much speed did i carry through turn 2 on lap 3"),
    ("vbox", C, {"corner": "t7", "laps": [2]}, "apex speed at turn 7 on lap 2"),
    ("vbox", C, {"corner": "t11", "laps": [3]}, "what was my minimum speed in the turn 11 on lap 3 in mph"),
    ("sim", C, {"corner": "t10", "laps": [5]}, "slowest speed in turn 10, lap five"),
    ("sim", C, {"corner": "t4", "laps": ["best"]}, "what's my mid-corner speed in t4 on my fastest lap"),
    ("vbox", C, {"corner": "t2", "laps": [6]}, "lap 6 turn 2 minimum speed?"),
    ("sim", C, {"corner": "t3", "laps": [7]}, "How slow was I at the apex of T3 on lap 7?"),
    ("sim", L, {}, "Quick one from a novice: compared to my pb lap, where am I dropping time?"),
    ("sim", L, {}, "where am i losing time compared to my fl"),
    ("sim", L, {}, "what are the two or three corners I should concentrate on?"),
    ("sim", L, {}, "Which bend is costing me most?"),
    ("sim", L, {}, "Where on the circuit am I slow?"),
    ("sim", L, {}, "what part of the lap needs the most work"),
    ("sim", L, {}, "I'm not asking about one lap. Over the whole session, where did I lose time?"),
    ("sim", L, {}, "where do I leave time on the table"),
    ("sim", L, {}, "where's the low hanging fruit?"),
    ("sim", L, {}, "low-hanging fruit in my driving?"),
    ("sim", L, {}, "whats the one thing I could change to be quicker"),
    (
        "sim",
        L,
        {},
        "I keep getting beaten by a mate in the same car. Where's he quicker than me, basically where am I slow?",
    ),
    ("sim", L, {}, "do I lift too much in the fast sweepers"),
    ("sim", L, {}, "Where am I over-slowing the car?"),
    ("sim", L, {}, "in which corners do I scrub off too much speed?"),
    ("sim", L, {}, "which corners should I attack more"),
    ("sim", L, {}, "what are my worst turns and why"),
    ("sim", L, {}, "tell me which corners im loosing tenths in"),
    ("sim", L, {}, "where could i shave off some time"),
    ("sim", L, {}, "where can I shave a few tenths?"),
    ("sim", L, {}, "how do I knock a second off my lap time"),
    ("sim", L, {}, "how can I drop my lap times"),
    ("sim", L, {}, "what's slowing me down"),
    ("sim", L, {}, "show me where I'm losing time, please don't just give me lap times"),
    ("sim", L, {}, "where did the time go on my slower laps?"),
    ("sim", L, {}, "what's the biggest area for improvement?"),
    ("sim", L, {}, "where's my biggest delta to my best lap?"),
    ("sim", L, {}, "which corners do I need to improve on?"),
    ("sim", L, {}, "Any corners where I'm consistently slow?"),
    ("sim", L, {}, "where am I giving away the most time in braking zones?"),
    ("sim", L, {}, "what's wrong with my driving"),
    ("sim", L, {}, "what corner do I suck at"),
    ("sim", L, {}, "rank my corners by time lost"),
    ("vbox", T, {}, "what's the quickest i went all day?"),
    ("sim", T, {}, "how fast was I at the end of the back straight?"),
    ("kart", T, {}, "top spd?"),
    ("vbox", T, {}, "maximum velocity?"),
    ("sim", T, {"laps": [6]}, "what speed did I top out at on lap 6?"),
    ("vbox", T, {}, "how many mph did I hit down the straight"),
    ("sim", T, {}, "top speed please, in miles per hour"),
    ("kart", T, {"laps": ["best"]}, "top speed on my pb lap"),
    ("vbox", T, {}, "whats the fastest I went"),
    ("sim", B, {"corner": "t6"}, "t6 braking - too early?"),
    ("sim", B, {"corner": "t4"}, "Into turn four am I braking too late? I feel like I overshoot."),
    ("sim", B, {"corner": "t6"}, "where am I getting on the brakes for the turn 6 and is that too early"),
    ("sim", B, {"corner": "t4"}, "braking into 4 on lap 4, early or late?"),
    ("sim", B, {"corner": "t6"}, "when do I brake for turn 6"),
    ("sim", B, {"corner": "t6", "laps": [5]}, "lap 5, turn 6: where did I brake?"),
    ("sim", B, {"corner": "t4"}, "do I leave my braking too late for turn 4"),
    ("sim", C, {"corner": "t6", "laps": [8]}, "what was my min speed through 6 on lap 8"),
    ("vbox", C, {"corner": "t4", "laps": [4]}, "minimum speed turn 4 lap 4 please"),
    ("sim", C, {"corner": "t11", "laps": [2]}, "how slow did I get in turn 11 on lap 2"),
    ("vbox", C, {"corner": "t10", "laps": [8]}, "what was my vmin at t10 on lap 8"),
    ("sim", C, {"corner": "t7", "laps": [1]}, "the slowest I went in turn seven, lap one?"),
    ("sim", L, {}, "Where am I losing the most time relative to my best lap?"),
    ("sim", L, {}, "where do i lose time compared to my quickest lap"),
    ("sim", L, {}, "where is most of my time lost"),
    ("sim", L, {}, "what are my problem corners?"),
    ("sim", L, {}, "problem areas?"),
    ("sim", L, {}, "what's the main thing I'm doing wrong out there"),
    ("sim", L, {}, "I'm consistent but slow. What should I be working on?"),
    ("sim", L, {}, "where do I need to brake later or carry more speed?"),
    ("sim", L, {}, "where are my biggest gains?"),
    ("sim", L, {}, "where's the time?"),
    ("sim", L, {}, "Where is the time lost in my laps?"),
    ("sim", L, {}, "Which parts of the lap are costing me?"),
    ("sim", L, {}, "what's costing me lap time, braking or corner speed?"),
    ("sim", L, {}, "what can I improve on?"),
    ("sim", L, {}, "How do I get faster?"),
    ("sim", L, {}, "how do I go quicker"),
    ("sim", L, {}, "where am I slow compared to my good laps"),
    ("sim", L, {}, "which corners am I losing time in on my slower laps"),
    ("sim", L, {}, "i keep running 1:36s, where's the rest of the time?"),
    ("sim", L, {}, "Where should I focus next time out?"),
    ("sim", L, {}, "what should I practise"),
    ("sim", L, {}, "what should i practice next time"),
    ("sim", L, {}, "where am I too slow mid corner?"),
    ("sim", L, {}, "I feel slow through the quick stuff - am I?"),
    ("sim", L, {}, "which corner has the most time to find"),
    ("sim", L, {}, "where do the slow laps lose out"),
    ("sim", L, {}, "tell me where my laps are slow, not the times"),
    ("sim", T, {}, "what's my top end?"),
    ("vbox", T, {}, "how fast did I go on the straights"),
    ("kart", T, {}, "max kph?"),
    ("vbox", T, {}, "what's the highest mph on the data"),
    ("sim", T, {"laps": ["last"]}, "top speed on the last lap"),
    ("kart", T, {}, "Fastest speed recorded?"),
    ("vbox", T, {}, "how fast am I going at the end of the straight?"),
    ("sim", T, {}, "top speed?? and where"),
    ("vbox", T, {"laps": [3]}, "lap 3 vmax"),
    ("sim", B, {"corner": "t6"}, "am I early on the brakes at t6"),
    ("sim", B, {"corner": "t4"}, "am I late on the brakes for turn 4?"),
    ("sim", B, {"corner": "t6"}, "turn 6 brake point: where is it and where should it be"),
    ("sim", B, {"corner": "t4"}, "do I brake too late at 4?"),
    ("sim", B, {"corner": "t6"}, "braking for T6 — am I leaving it too early?"),
    ("sim", B, {"corner": "t6"}, "how many metres early am I braking for turn 6?"),
    ("sim", B, {"corner": "t4"}, "where's my brake point into turn 4 compared to the marker"),
    ("sim", B, {"corner": "t6"}, "turn six brake marker?"),
    ("vbox", C, {"corner": "t6", "laps": [5]}, "corner speed in turn 6, lap 5"),
    ("sim", C, {"corner": "t2", "laps": [4]}, "what speed did I carry at the apex of t2 on lap 4"),
    ("vbox", C, {"corner": "t3", "laps": [7]}, "lap 7 T3 min speed in mph"),
    ("sim", L, {}, "Where could I be faster?"),
    ("sim", L, {}, "where could i go faster"),
    ("sim", L, {}, "How much faster could I be, and where?"),
    ("sim", L, {}, "where's my potential?"),
    ("sim", L, {}, "where is the time I could find?"),
    ("sim", L, {}, "what's my potential and where am I losing time"),
    ("sim", L, {}, "where's the perfect lap being lost"),
    ("sim", L, {}, "where am I capable of going faster"),
    ("sim", L, {}, "which corners could I do better"),
    ("sim", L, {}, "where could I do better"),
    ("sim", L, {}, "what's the best possible gain and where"),
    ("sim", L, {}, "Where do I have the most potential to improve?"),
    ("sim", L, {}, "where would an optimal lap be faster than mine"),
    ("sim", L, {}, "where can I find time compared to my theoretical best?"),
    ("sim", L, {}, "where am I off my best possible lap"),
    ("sim", L, {}, "where can I go quicker"),
    ("sim", L, {}, "can you show me where I'm leaving time on the table?"),
    ("sim", L, {}, "where is there time on the table"),
    ("sim", L, {}, "which corner has the biggest potential gain"),
    ("sim", L, {}, "where's my lap falling apart"),
    ("sim", L, {}, "what corners do I need to be better in"),
    ("sim", L, {}, "where could I carry more speed?"),
    ("sim", L, {}, "where do I lose out"),
    ("sim", L, {}, "why am I slower than my best lap?"),
    ("sim", L, {}, "why is my lap time not improving?"),
    ("sim", L, {}, "where is the delta coming from"),
    ("sim", L, {}, "what's my weakest corner and why"),
    ("vbox", T, {}, "what was my top speed on the front straight?"),
    ("sim", T, {}, "What's the fastest I got the car going?"),
    ("kart", T, {}, "what sort of speeds am I doing"),
    ("vbox", T, {}, "how fast does it go down the straight, mph"),
    ("sim", T, {}, "top speed and which lap?"),
    ("kart", T, {}, "what's my best top speed"),
    ("vbox", T, {}, "speed trap?"),
    ("sim", T, {}, "what was the max speed in km/h"),
    ("kart", T, {}, "Top speed at the end of the main straight?"),
    ("vbox", T, {}, "highest speed of the day"),
    ("sim", T, {}, "was I faster than 200kph anywhere?"),
    ("vbox", T, {}, "top speed on the straight - is it low?"),
    ("sim", B, {"corner": "t6"}, "brake point T6 - I think I'm lifting and braking early"),
    ("sim", B, {"corner": "t4"}, "turn 4: am I overshooting the braking zone?"),
    ("sim", B, {"corner": "t6"}, "is my braking into 6 consistent"),
    ("sim", B, {"corner": "t4"}, "when do I get on the brakes into turn 4?"),
    ("sim", B, {"corner": "t6"}, "My coach says I brake too early for turn 6. Is he right?"),
    ("sim", B, {"corner": "t4"}, "Late braking into T4 costing me?"),
    ("sim", B, {"corner": "t6"}, "where's my turn-in and braking for 6"),
]
# still read as something else or not understood, but never answered with a wrong figure
NEVER_WRONG: list[tuple[str, str, dict[str, Any], str]] = [
    ("sim", T, {}, "did I ever crack 200 km/h? what was the top speed"),
    ("sim", L, {}, "Am I slower than I should be in the high speed stuff?"),
    ("sim", L, {}, "where'm I slow"),
    ("sim", L, {}, "I'm a bit slower than last year, maybe. where am I slow today?"),
    ("kart", T, {}, "what did I top out at?"),
    ("sim", L, {}, "which corner would give me the most lap time if I fixed it"),
    ("kart", T, {}, "what's the kart topping out at"),
    ("sim", C, {"corner": "t6", "laps": [2]}, "how quick was I through turn 6 on lap 2? minimum"),
    ("sim", B, {"corner": "t6"}, "how early am I braking for turn 6 compared with my best lap"),
]


@pytest.fixture(scope="module")
def paddock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Prepared, str]]:
    why = missing_inputs()
    if why:
        pytest.fail(why)  # ../shared/data is part of the workspace: its absence is an error, not a skip
    root = tmp_path_factory.mktemp("where-time")
    prep = prepare(root)
    with serve(prep, f"http://127.0.0.1:{free_port()}/v1", root) as url:
        yield prep, url


def _answer(paddock: tuple[Prepared, str], row: tuple[str, str, dict[str, Any], str]) -> tuple[str, str]:
    """(the verdict against the truth, the answer's text)."""
    prep, url = paddock
    sess, kind, slots, text = row
    (got,) = run(url, prep, qs=questions([Item(text, kind, sess, slots)], prep.truths, "qloss"))
    return got.verdict, got.text


def _losses(prep: Prepared) -> list[str]:
    """The simulator's corners by the time its planted mistakes lost there over the session, most first."""
    lost: dict[str, float] = {}
    for e in prep.truths["sim"].events:
        if e.get("time_lost_s") and e.get("corner_id"):
            lost[e["corner_id"]] = lost.get(e["corner_id"], 0.0) + float(e["time_lost_s"])
    return sorted(lost, key=lambda c: -lost[c])


@pytest.mark.parametrize("row", ANSWERED, ids=[r[3] for r in ANSWERED])
def test_answered_against_the_truth(paddock: tuple[Prepared, str], row: tuple[str, str, dict, str]) -> None:
    verdict, text = _answer(paddock, row)
    assert verdict == "correct", text
    if row[1] == L:  # the corner that lost the most first, the opportunities in order, never lap against lap
        losses = _losses(paddock[0])
        assert re.findall(r"\bT\d+\b", text)[0].lower() == losses[0], text
        named = [c.lower() for c in re.findall(r"Opportunity \d+, (T\d+)", text)]
        assert named == losses[: len(named)], text
        assert not re.search(r"\bLap \d+ was [\d.]+ s slower than lap \d+", text), text


@pytest.mark.parametrize("row", NEVER_WRONG, ids=[r[3] for r in NEVER_WRONG])
def test_never_a_wrong_figure(paddock: tuple[Prepared, str], row: tuple[str, str, dict, str]) -> None:
    verdict, text = _answer(paddock, row)
    assert verdict != "wrong", text


@pytest.mark.parametrize(
    ("text", "intent", "laps", "corner"),
    [
        ("am I slowing down in the fastest part of the track? Why?", "why_slower", (), None),
        ("am I slowing down too much in the fast corners?", "where_time", (), None),
        ("where am i slowing down on the fastest part of the lap", "where_time", (), None),
        ("did I get slower as the session went on?", "compare", ("fastest", "last"), None),
        ("where am I losing time vs my fastest lap", "where_time", (), None),
        ("where did lap 5 lose time against lap 3?", "compare", (5, 3), None),
        ("where am I slowest compared with my best lap?", "where_time", (), None),
        ("which lap was my slowest", "lap_time", ("slowest",), None),
        ("which turns am I slow in", "where_time", (), None),
        ("where do I leave time on the table", "where_time", (), None),
        ("what lap time is on the table?", "potential", (), None),
        ("how do I knock a second off my lap time", "where_time", (), None),
        ("any idea where i'm bleeding time? car feels fine", "where_time", (), None),
        ("am i braking too deep into 4", "corner", (), "t4"),
        ("I think I'm on the brakes way too soon for 6, am I?", "corner", (), "t6"),
        ("what was my min speed through 6 on lap 8", "corner", (8,), "t6"),
        ("lap times for 6 laps", "lap_time", (), None),
        ("compare laps 3 through 6", "compare", (3, 4, 5, 6), None),
        ("where could I do better", "where_time", (), None),
        ("How much faster could I be, and where?", "where_time", (), None),
        ("how much faster could I be?", "potential", (), None),
        ("why am I slower than my best lap?", "why_slower", (), None),
        ("why was lap 5 slower than my best lap?", "why_slower", (5, "fastest"), None),
        ("do I brake too late at 4?", "corner", (), "t4"),
        ("what was my speed at 4000 rpm", "channel", (), None),
        ("did I get quicker as the session went on", "lap_time", (), None),
        ("was I faster than 200kph anywhere?", "channel", (), None),
    ],
)
def test_read_as(text: str, intent: str, laps: tuple[int | str, ...], corner: str | None) -> None:
    q = parse(text, SONOMA)
    assert (q.intent, tuple(x.number or x.pick for x in q.laps), q.corner) == (intent, laps, corner)

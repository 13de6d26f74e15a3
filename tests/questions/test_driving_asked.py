"""Where the time goes, braking, coasting, gears, lockups, consistency and speed in drivers' own words (issue
#32, "Questions understood"): phrasings written for this test (forum and coaching style: context before the
question, typos, shorthand, British and American words, slang, two questions in one), asked of a real paddock
(no model server: the data path) over the outside eval's sessions (``answer_run.prepare``: the simulated
Sonoma session, the VBOX, the MyChron kart) and scored against truth from the raw files and the simulator's
ground truth (``qeval_items.expect``, ``truth_corners``), never against Pitwall's tools. Where in the corner the
speed is off, the gear at every corner and the engine speed at the upshifts are checked against the
simulator's planted mistakes and the raw gear and rpm channels."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from services.paddock.questions.parse import parse
from tests.support.qeval_run import EvalPaddock
from tests.support.truth_corners import corners, slowest_point

L, T, B, C, G = "lose_time", "top_speed", "braking", "corner_speed", "gear"
CO, LK, CS = "coasting", "lockup", "consistency"
SONOMA = tuple(f"t{i}" for i in range(1, 12))
# (session, kind, slots, text): each answered correctly
ANSWERED: list[tuple[str, str, dict[str, Any], str]] = [
    # where the time goes
    ("sim", L, {}, "where do I need to be more agressive?"),
    ("sim", L, {}, "where can i be braver?"),
    ("sim", L, {}, "My instructor reckons I'm too cautious. Where should I be more aggressive?"),
    ("sim", L, {}, "where am I slowest compared to my best"),
    ("sim", L, {}, "where am i giving up the most time relative to my fastest lap"),
    ("sim", L, {}, "which corner should i attack more"),
    ("sim", L, {}, "where am i too timid"),
    ("sim", L, {}, "where should i push harder?"),
    ("sim", L, {}, "what corner is my worst, and by how much?"),
    ("sim", L, {}, "which corners do i lose the most on the exit"),
    ("sim", L, {}, "where am i slow on the way in to corners"),
    ("sim", L, {}, "am i too slow mid-corner anywhere?"),
    ("sim", L, {}, "where could i be more confident"),
    ("sim", L, {}, "Third trackday ever, car is stock. where do i lose the most time??"),
    ("vbox", L, {}, "where am I losing time"),
    ("vbox", L, {}, "where on the lap am i giving up time to myself"),
    # where in the corner: each part of the corner against the typical pass
    ("sim", L, {}, "Where in the corner is my speed the farthest off? At the entry, middle or end?"),
    ("sim", L, {}, "am I losing time on entry or on exit?"),
    ("sim", L, {}, "where do i lose time vs my best lap, entry or exit?"),  # the parts, not the corners
    ("sim", L, {}, "is it my corner entry speed or my exit speed that's costing me?"),
    ("sim", L, {}, "where in the corners am I slow - on the way in or on the way out?"),
    ("sim", L, {}, "turn-in, apex or exit: which one is my weak spot?"),
    # top speed
    ("vbox", T, {}, "did the back straight-away allow the car to stretch it's legs?"),
    ("vbox", T, {}, "did the car get to stretch its legs on the back straight?"),
    ("sim", T, {}, "top speed in the fastest sector"),
    ("sim", T, {}, "what was my top speed over the whole session"),
    ("vbox", T, {}, "what speed did i reach at the end of the front straight"),
    ("kart", T, {}, "how fast did the kart go max"),
    ("sim", T, {"laps": [5]}, "what was my top speed on lap 5"),
    ("sim", T, {"laps": [3]}, "how fast was I at the end of the back straight on lap 3"),
    ("sim", T, {"laps": ["best"]}, "how fast was I going on the main straight on my best lap?"),
    ("sim", T, {"laps": [6]}, "max speed on the back straight, lap 6?"),
    ("sim", T, {"laps": [4]}, "top speed on my slowest lap?"),
    ("sim", T, {"laps": [8]}, "top speed on my last lap"),
    ("vbox", T, {}, "did i hit 120 mph anywhere?"),
    ("sim", T, {}, "whats the vmax on the straightaway"),
    # braking
    ("sim", B, {"corner": "t4"}, "am i braking too deep into t4?"),
    ("sim", B, {"corner": "t6", "laps": [4]}, "brake point for turn 6 on lap 4?"),
    ("sim", B, {"corner": "t6"}, "brake point into the carousel"),
    ("sim", B, {"corner": "t6"}, "I feel like I'm on the anchors way too soon for 6, am I?"),
    # coasting
    ("sim", CO, {}, "Do I ever coast, or am I always on the gas, on the brake or maintenance throttling?"),
    ("sim", CO, {}, "do i coast anywhere"),
    ("sim", CO, {}, "where am I coasting?"),
    ("sim", CO, {}, "any coasting between the throttle and the brake?"),
    ("sim", CO, {}, "am i rolling into any corners off both pedals"),
    ("sim", CO, {}, "did i ever coast into a corner"),
    # gears
    ("sim", G, {"corner": "t6"}, "what gear for T6"),
    ("sim", G, {"corner": "t11"}, "what gear should I be in for turn 11?"),
    ("sim", G, {"corner": "t4"}, "which gear do i use in t4"),
    ("sim", G, {"corner": "t3"}, "what gear was i in at the apex of turn 3"),
    ("sim", G, {"corner": "t4"}, "am i using too high a gear in turn 4?"),
    ("sim", G, {"corner": "t6"}, "am I in the right gear for turn 6?"),
    ("sim", G, {"corner": "t6"}, "is 3rd the right gear for turn 6?"),
    ("sim", G, {"corner": "t11"}, "do I short shift out of T11?"),
    # corner speed
    ("sim", C, {"corner": "t4", "laps": [3]}, "what was my minimum speed in turn 4 on lap 3"),
    ("sim", C, {"corner": "t11", "laps": ["best"]}, "apex speed at t11 on my best lap"),
    ("sim", C, {"corner": "t10", "laps": [4]}, "how fast was I through turn 10 on lap 4?"),
    # lockups
    ("sim", LK, {}, "did i lock up anywhere?"),
    ("sim", LK, {}, "any lockups today?"),
    ("sim", LK, {}, "did I flat spot the tyres?"),
    ("sim", LK, {}, "where did i lock a wheel"),
    ("sim", LK, {}, "did I ever lock up?"),
    # consistency
    ("sim", CS, {}, "how consistent were my laps?"),
    ("sim", CS, {}, "how consistent am i lap to lap"),
    ("kart", CS, {}, "how consistant was I?"),
    ("vbox", CS, {}, "whats my spread of lap times"),
]
# still read as something else or not understood, but never answered with a wrong figure
NEVER_WRONG: list[tuple[str, str, dict[str, Any], str]] = [
    ("sim", T, {}, "top speed in sector 2?"),
    ("sim", T, {}, "whats the fastest i went through t10"),
    ("sim", L, {}, "how much time am i losing on lap 4"),
    ("sim", L, {}, "where did I lose time on my slowest lap"),
    ("vbox", L, {}, "where did i give up time on lap 9?"),
    ("kart", L, {}, "where in the corner am I slowest, on the way in or on the way out?"),
]


@pytest.mark.parametrize("row", ANSWERED, ids=[r[3] for r in ANSWERED])
def test_answered_against_the_truth(eval_paddock: EvalPaddock, row: tuple[str, str, dict, str]) -> None:
    verdict, text = eval_paddock.answer(*row)
    assert verdict == "correct", text


@pytest.mark.parametrize("row", NEVER_WRONG, ids=[r[3] for r in NEVER_WRONG])
def test_never_a_wrong_figure(eval_paddock: EvalPaddock, row: tuple[str, str, dict, str]) -> None:
    verdict, text = eval_paddock.answer(*row)
    assert verdict != "wrong", text


def _ask(paddock: EvalPaddock, sess: str, text: str) -> str:
    return paddock.answer(sess, "lose_time", {}, text)[1]


def test_where_in_the_corner_leads_with_the_planted_mid_corner_loss(eval_paddock: EvalPaddock) -> None:
    """The simulator's late braking into T4 costs the most speed of any planted mistake at one part of a corner
    (its minimum speed, against the same corner's clean pass): the answer leads with mid-corner at T4, by that
    much, names the lap it happened on, and says that lap's minimum and the median of every racing lap's there
    (our own slowest point from the raw file)."""
    st = eval_paddock.prep.truths["sim"]
    planted = [e for e in st.events if e.get("clean_min_kmh") is not None and e.get("min_kmh") is not None]
    worst = max(planted, key=lambda e: e["clean_min_kmh"] - e["min_kmh"])
    text = _ask(
        eval_paddock, "sim", "Where in the corner is my speed the farthest off? Entry, middle or exit?"
    )
    assert text.startswith("Your speed is farthest off at mid-corner"), text
    got = re.search(
        r"at mid-corner \(the minimum speed\), (T\d+) on lap (\d+): [\d.]+ km/h \([\d.]+ mph\), ([\d.]+)",
        text,
    )
    assert got is not None, text
    assert got.group(1).lower() == worst["corner_id"], text
    laps = {e["lap"] for e in planted if e["corner_id"] == worst["corner_id"] and e["kind"] == worst["kind"]}
    assert int(got.group(2)) in laps, text
    assert float(got.group(3)) == pytest.approx(worst["clean_min_kmh"] - worst["min_kmh"], abs=1.0), text
    # the figures themselves: that lap's slowest point there, and the median of every racing lap's (raw file)
    typical = float(np.median([slowest_point(st, lp.lap, worst["corner_id"])[0] for lp in st.racing]))
    mine = slowest_point(st, int(got.group(2)), worst["corner_id"])[0]
    said = re.search(rf"{got.group(1)} on lap \d+: ([\d.]+) km/h.*?typical ([\d.]+) km/h", text)
    assert said is not None, text
    assert (float(said.group(1)), float(said.group(2))) == (
        pytest.approx(mine, abs=0.25),
        pytest.approx(typical, abs=0.25),
    ), text


def test_a_lap_named_is_that_lap_against_the_best(eval_paddock: EvalPaddock) -> None:
    """ "How much time am I losing on lap 4?": lap 4 against the best lap (the raw laps' difference), never the
    session's opportunities."""
    st = eval_paddock.prep.truths["sim"]
    text = _ask(eval_paddock, "sim", "how much time am i losing on lap 4")
    gap = st.lap(4).time_s - st.best.time_s
    got = re.match(r"Lap 4 was ([\d.]+) s slower than lap (\d+)", text)
    assert got is not None, text
    assert (float(got.group(1)), int(got.group(2))) == (pytest.approx(gap, abs=0.02), st.best.lap), text
    assert "Opportunity" not in text, text


def test_the_gear_at_every_corner(eval_paddock: EvalPaddock) -> None:
    """ "Am I in the wrong gear anywhere?": every corner's usual gear at its slowest point, from the raw gear
    channel at each racing lap's slowest point there (``truth_corners``), in driving order."""
    st = eval_paddock.prep.truths["sim"]
    text = _ask(eval_paddock, "sim", "am i in the wrong gear anywhere, or is it all fine?")
    said = dict(re.findall(r"\b(T\d+A?) (\d)(?:st|nd|rd|th)\b", text))
    assert said, text
    for c in corners():
        gears = [round(slowest_point(st, lp.lap, c, "Gear")[1] or 0) for lp in st.racing]
        assert said.get(c.upper()) == str(Counter(gears).most_common(1)[0][0]), (c, text)
    order = [c.upper() for c in corners()]
    assert [x for x in re.findall(r"\b(T\d+A?) \d", text)] == order, text


def test_short_shifting_says_the_rpm_at_each_upshift(eval_paddock: EvalPaddock) -> None:
    """ "Am I short shifting?": the engine speed just before each upshift, the median over the racing laps,
    read from the raw gear and rpm channels."""
    st = eval_paddock.prep.truths["sim"]
    gear, rpm = st.channels["Gear"], st.channels["RPM"]
    racing = np.zeros(len(gear), bool)
    for lp in st.racing:
        racing |= st.in_lap(lp)
    up = np.flatnonzero((gear[1:] == gear[:-1] + 1) & racing[1:] & (gear[:-1] > 0)) + 1
    text = _ask(eval_paddock, "sim", "I never hit the limiter, so am I short shifting??")
    for g in sorted({int(gear[i - 1]) for i in up}):
        want = float(np.median([rpm[i - 1] for i in up if int(gear[i - 1]) == g]))
        got = re.search(rf"\b{g}\w\w to {g + 1}\w\w at ([\d,]+) rpm", text)
        assert got is not None, (g, text)
        assert float(got.group(1).replace(",", "")) == pytest.approx(want, abs=40), (g, text)


@pytest.mark.parametrize(
    ("text", "intent", "measure", "laps", "corner"),
    [
        (
            "Where in the corner is my speed the farthest off? At the entry, middle or end?",
            "where_time",
            "corner_phases",
            (),
            None,
        ),
        ("am I losing time on entry or on exit?", "where_time", "corner_phases", (), None),
        ("what are my entry and exit speeds at turn 6", "corner", "speed", (), "t6"),
        ("Do I ever coast, or am I always on the gas?", "channel", "coasting", (), None),
        ("whats my best lap ever", "sessions", "lap_time", (), None),
        ("did the back straight-away allow the car to stretch it's legs?", "channel", "top_speed", (), None),
        ("top speed in the fastest sector", "channel", "top_speed", (), None),
        ("how fast was I at the end of the back straight on lap 3", "channel", "top_speed", (3,), None),
        ("how fast was lap 3", "lap_time", "lap_time", (3,), None),
        ("where do I need to be more agressive?", "where_time", None, (), None),
        ("am I short shifting?", "channel", "shift_rpm", (), None),
        ("am i in the wrong gear anywhere", "channel", "corner_gears", (), None),
        ("what gear for T6", "corner", "gear", (), "t6"),
        ("what gear was i in mostly", "channel", "gear", (), None),
        ("where did i lose time on lap 4", "where_time", None, (4,), None),
    ],
)
def test_read_as(
    text: str, intent: str, measure: str | None, laps: tuple[int, ...], corner: str | None
) -> None:
    q = parse(text, SONOMA)
    got = (q.intent, q.measure, tuple(x.number or x.pick for x in q.laps), q.corner)
    assert got == (intent, measure, laps, corner)

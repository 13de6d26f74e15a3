"""Sets of laps and the lap-time readings drivers use (issue #32): "my last 3 laps", "laps 2 to 5", "my 3
best laps", "my second best lap", "the previous lap", "within half a second", "did I get slower", "my best
at this track", read from the words and answered over the simulated session, every figure checked against
the simulator's ground truth (its lap times) or the raw VBOX file, never against the tools."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.grounding import facts_of, grounding_check
from services.paddock.questions.model import Answer, LapRef, Question
from services.paddock.questions.parse import parse
from services.paddock.questions.plan import plan
from shared.display import lap_time
from tests.support.truth import vbox_truth

Q = LapRef

READ = [
    ("lap times for my final four laps", "lap_time", (Q(pick="last", count=4),), None),
    ("my first 6 laps", "lap_time", (Q(pick="first", count=6),), None),
    ("show my two quickest laps", "lap_time", (Q(pick="fastest", count=2),), None),
    ("the mean of my top 3 laps", "lap_time", (Q(pick="fastest", count=3),), None),
    ("what was my third fastest lap?", "lap_time", (Q(pick="fastest", rank=3),), None),
    ("the second to last lap", "lap_time", (Q(pick="last", rank=2),), None),
    ("my best lap against the previous one", "compare", (Q(pick="fastest"), Q(pick="previous")), None),
    ("were my laps within a second of each other?", "lap_time", (), 1.0),
    ("how many of my laps were inside two tenths of the best?", "lap_time", (Q(pick="fastest"),), 0.2),
    ("did my pace drop off as the stint went on?", "compare", (Q(pick="fastest"), Q(pick="last")), None),
    ("what did my quickest lap do differently?", "compare", (Q(pick="fastest"),), None),
    ("what's my quickest lap around this track?", "sessions", (), None),
    ("best lap in qualifying versus the race", "compare", (Q(pick="fastest", session="other"),), None),
    ("did I beat my previous best?", "sessions", (), None),
    ("what's my median lap?", "consistency", (), None),  # the race pace: the median of the valid laps
    ("is that a new lap record for me?", "sessions", (), None),
    (
        "how was the afternoon compared with the morning session?",
        "sessions",
        (Q(session="when:part=morning"),),
        None,
    ),
    ("my quickest lap from yesterday", "lap_time", (Q(pick="fastest", session="when:day=-1"),), None),
    ("lap times of my sessions compared", "sessions", (), None),  # the sessions here, each one's best
    ("how did my other sessions go?", "sessions", (), None),
]


@pytest.mark.parametrize(("text", "intent", "laps", "within"), READ, ids=[r[0] for r in READ])
def test_a_set_a_rank_a_closeness_and_a_fade_are_read(text: str, intent: str, laps: Any, within: Any) -> None:
    q = parse(text)
    assert (q.intent, q.laps, q.within_s) == (intent, laps, within)


def test_several_lap_figures_at_once_and_plain_lap_times_are_every_laps_time() -> None:
    for text in ("my best and my mean lap", "analyse my lap times", "what's the lap time delta today?"):
        q = parse(text)
        assert (q.intent, q.laps, q.aggregation) == ("lap_time", (), "each_lap"), text
    assert parse("my best lap against my slowest").intent == "compare"  # two picks, no average: compared
    # no lap: not the previous lap, the session before, as "my other session" reads
    for said in ("this session against my previous one", "this session against my other session"):
        assert (parse(said).intent, parse(said).laps) == ("sessions", (Q(session="other"),)), said
    peak = parse("and the peak one?", previous=parse("what's my average lap?"))
    assert (peak.intent, peak.aggregation) == ("lap_time", "min")  # a "peak" lap time is the best
    assert parse("and my top one?").laps == (Q(pick="fastest"),)


def _ask(text: str, sid: str) -> Answer:
    got = plan(parse(text), sid)
    assert grounding_check(got.text, facts_of(got.text, [got.result])) == [], got.text
    return got


def _full(q_lake: dict[str, Any]) -> list[dict[str, Any]]:
    return [x for x in q_lake["sim_obj"].truth.laps if x["kind"] == "full"]


TOL_S = 0.01  # Pitwall times a lap from the logged samples (a sample apart), the simulator from its clock


def _clock(t: str) -> float:
    m, sec = t.split(":")
    return int(m) * 60 + float(sec)


def _said(text: str, laps: list[dict[str, Any]]) -> None:
    """Each lap's time named in ``text`` as "lap N m:ss.sss", within the timing tolerance of the truth."""
    said = {int(n): _clock(t) for n, t in re.findall(r"\blap (\d+) (\d+:\d{2}\.\d{3})\b", text)}
    for x in laps:
        assert abs(said[x["lap"]] - x["time_s"]) < TOL_S, (x["lap"], text)


def _figure(text: str, pattern: str) -> float:
    m = re.search(pattern, text)
    assert m is not None, (pattern, text)
    return _clock(m.group(1)) if ":" in m.group(1) else float(m.group(1))


@pytest.mark.parametrize("text", ["times of my last 3 laps", "laps {a} to {b}", "my 3 best laps"])
def test_a_set_of_laps_gives_each_time_and_the_sets_best_average_and_spread(q_lake, text: str) -> None:
    full = _full(q_lake)
    if text.startswith("times"):
        want = full[-3:]
    elif text.startswith("my"):
        want = sorted(sorted(full, key=lambda x: x["time_s"])[:3], key=lambda x: x["lap"])
    else:
        want = full[1:5]
        text = text.format(a=want[0]["lap"], b=want[-1]["lap"])
    got = _ask(text, q_lake["sim"])
    assert sorted(got.result["laps"]) == [x["lap"] for x in want]
    _said(got.text, want)
    named = {int(n) for n in re.findall(r"\blap (\d+) \d+:", got.text)}
    assert named == {x["lap"] for x in want}  # no other lap's time
    times = np.array([x["time_s"] for x in want])
    best = want[int(np.argmin(times))]
    assert abs(_figure(got.text, rf"Best lap {best['lap']} in (\S+),") - best["time_s"]) < TOL_S
    assert abs(_figure(got.text, r"average (\S+),") - times.mean()) < TOL_S
    assert abs(_figure(got.text, r"Best to slowest: (\d+\.\d+) s") - (times.max() - times.min())) < 2 * TOL_S


def test_every_lap_with_the_spread_when_lap_times_are_asked_plainly(q_lake) -> None:
    full = _full(q_lake)
    got = _ask("analyse my lap times", q_lake["sim"])
    _said(got.text, full)
    times = np.array([x["time_s"] for x in full])
    assert got.text.startswith(f"Your {len(full)} valid laps: ")
    assert abs(_figure(got.text, r"Best to slowest: (\d+\.\d+) s") - (times.max() - times.min())) < 2 * TOL_S


@pytest.mark.parametrize("within", [0.3, 1.0])
def test_the_laps_within_a_closeness_of_the_best(q_lake, within: float) -> None:
    full = _full(q_lake)
    best = min(full, key=lambda x: x["time_s"])
    close = [x["lap"] for x in full if x["time_s"] - best["time_s"] <= within]
    words = {0.3: "three tenths", 1.0: "a second"}[within]
    got = _ask(f"how many laps did I run inside {words} of my best?", q_lake["sim"])
    assert got.result["laps_within"] == close
    assert got.text.startswith(f"{len(close)} of your {len(full)} valid laps ")
    assert (
        abs(
            _figure(got.text, rf"within {within:g} s of your best \(lap {best['lap']}, (\S+)\)")
            - best["time_s"]
        )
        < TOL_S
    )


def _m_ss(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:06.3f}"


@pytest.mark.parametrize("between", [0, 3, None])
def test_the_laps_under_a_lap_time_asked(q_lake, between: int | None) -> None:
    """ "how many laps under 1:35.5?": the valid laps quicker than it, named, from the simulator's times;
    the time set halfway between two of them (``between``: after the nth quickest), or below the best."""
    full = _full(q_lake)
    times = sorted(x["time_s"] for x in full)
    under = times[0] - 0.5 if between is None else (times[between] + times[between + 1]) / 2
    quick = [x["lap"] for x in full if x["time_s"] < under]
    got = _ask(f"how many laps were under {_m_ss(under)}?", q_lake["sim"])
    assert got.result["laps_under"] == quick and len(quick) == (0 if between is None else between + 1)
    if quick:
        assert got.text.startswith(f"{len(quick)} of your {len(full)} valid laps ")
        assert str(quick[-1]) in got.text
    else:
        gap = _figure(got.text, r"was (\d+\.\d+) s off it")
        assert got.text.startswith(f"None of your {len(full)} valid laps was under ")
        assert abs(gap - 0.5) < 2 * TOL_S
    assert parse("did I get under a 1:36?").under_s is None  # of the best alone: the best lap


@pytest.mark.parametrize(("words", "off_s"), [("did I break", -0.5), ("how close did I get to a", 0.25)])
def test_the_best_lap_against_a_lap_time_aimed_at(q_lake, words: str, off_s: float) -> None:
    """ "did I break 1:35.8?", "how close did I get to a 1:35?": the best lap, how far under or off the time
    (from the simulator's times), and the laps under it."""
    full = _full(q_lake)
    best = min(full, key=lambda x: x["time_s"])
    aim = round(best["time_s"] - off_s, 3)
    got = _ask(f"{words} {_m_ss(aim)}?", q_lake["sim"])
    assert got.result["best_lap"] == best["lap"] and got.result["laps_under"] == [
        x["lap"] for x in full if x["time_s"] < aim
    ]
    said = _figure(got.text, r"was (\d+\.\d+) s (?:under|off) ")
    assert abs(said - abs(off_s)) < 2 * TOL_S
    assert (" s under " in got.text) == (off_s < 0)
    assert got.text.startswith(
        ("Yes: " if off_s < 0 else "Not yet: ") + f"your best lap, lap {best['lap']} in "
    )
    assert parse("did I get into the 1:34s?").target_s == 95.0  # a 1:34-something: under 1:35
    assert parse("did I crack 58.5 seconds?").target_s == 58.5


def test_the_second_best_lap_is_the_second_quickest(q_lake) -> None:
    second = sorted(_full(q_lake), key=lambda x: x["time_s"])[1]
    got = _ask("what was my second best lap?", q_lake["sim"])
    assert (
        abs(_figure(got.text, rf"^Your second best lap was lap {second['lap']} in (\S+),") - second["time_s"])
        < TOL_S
    )


def test_the_previous_lap_is_the_one_before_the_lap_named_and_the_best_alone_meets_the_last(q_lake) -> None:
    full = _full(q_lake)
    best = min(full, key=lambda x: x["time_s"])
    assert best["lap"] - 1 in [x["lap"] for x in full] and full[-1] != best, "the seed's best is mid-session"
    got = _ask("my best lap versus the previous lap", q_lake["sim"])
    assert (got.args["lap_a"], got.args["lap_b"]) == (best["lap"], best["lap"] - 1)
    assert re.search(rf"\blap {best['lap']} \d:\d\d\.\d{{3}} \(your best\)", got.text), got.text
    delta = _ask("what's my fastest lap delta?", q_lake["sim"])
    assert (delta.args["lap_a"], delta.args["lap_b"]) == (best["lap"], full[-1]["lap"])
    fade = _ask("did I get slower as the session went on?", q_lake["sim"])
    assert (fade.args["lap_a"], fade.args["lap_b"]) == (best["lap"], full[-1]["lap"])


def test_my_best_at_this_track_is_the_best_of_every_session_here(q_lake) -> None:
    vb = vbox_truth(q_lake["vbox_path"])
    got = _ask("what's my quickest lap around this track?", q_lake["sim"])
    best = min(_full(q_lake), key=lambda x: x["time_s"])
    assert (
        abs(
            _figure(got.text, rf"this session: \d+ valid laps, best (\S+) \(lap {best['lap']}\)")
            - best["time_s"]
        )
        < TOL_S
    )
    other = next(g for g in got.result["sessions"] if not g["this"])
    assert other["best_lap"] == vb.best.lap and abs(other["best_s"] - vb.best.time_s) < 0.02
    assert lap_time(other["best_s"]) in got.text


def test_a_set_named_in_a_question_object_is_answered_as_a_set(q_lake) -> None:
    full = _full(q_lake)
    q = Question("my first two laps", "lap_time", laps=(Q(pick="first", count=2),), measure="lap_time")
    got = plan(q, q_lake["sim"])
    assert sorted(got.result["laps"]) == [x["lap"] for x in full[:2]]
    _said(got.text, full[:2])
    two = sorted(full, key=lambda x: x["time_s"])[:2]
    pair = _ask("the delta between my two best laps", q_lake["sim"])  # two laps asked to compare: compared
    assert {pair.args["lap_a"], pair.args["lap_b"]} == {x["lap"] for x in two}

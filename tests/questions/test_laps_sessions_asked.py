"""This session against the driver's other one said as improvement ("did I drop several seconds off my best
time?", "session to session", "before this session", "a new PB?"), the session's trend ("faster and
faster"), several lap figures in one question, the lap times within reach, a break from driving that is no
brake (#32). Asked of the simulated session (the driver's newest at Sonoma; their other one is the real
VBOX file); every figure is checked against the simulator's ground truth or our own reading of the VBOX
file (``tests/support/truth.py``)."""

from __future__ import annotations

import re

import pytest

from tests.questions.said import CLOCK, TOL_S, clock, lap_said, sim_laps
from tests.support.asking import answer_of
from tests.support.truth import vbox_truth

# ---- this session against the driver's other one, said as improvement
ACROSS = [
    "did I drop several seconds off my best time?",
    "did I shave another second off my time?",
    "did i knock a couple seconds off my time from the last event?",
    "how much have I improved my lap times by the end of the event?",
    "did my full-course lap time drop from 1:50 to 1:35?",
    "My PB at this track (before this session)?",
    "did I improve from session to session?",
    "did my laptimes improve between sessions?",
    "was this session better than my previous one, and by how much?",
    "was my second session any better than the first?",
    "yesterdays best vs todays best",
    "so compared to the other day, was i quicker or slower overall?",
    "hows today stack up vs my last outing here?",
    "did i beat my pb from last time?",
    "how much time did i find since last session?",
    "first session vs this one - gap?",
    "i felt slow today compared to the last track day. was I?",
    "did I take a second off my PB?",
    "am I getting any faster from one session to the next?",
    "Have I improved since my first time here?",
    "How much slower was I today than before?",
    "which of my sessions had the best lap?",
    "is this my fastest session at sonoma?",
    "how much quicker was I this time round?",
    "Was I faster or slower than my previous trackday?",
]


@pytest.mark.parametrize(
    "text",
    [
        "did I set a new PB today?",
        "is that a new track record for me?",
        "Am I getting quicker at this track?",
    ],
)
def test_the_sessions_here_end_with_this_best_against_the_best_before(q_lake, text: str) -> None:
    other = vbox_truth(q_lake["vbox_path"]).best.time_s
    mine = min(sim_laps(q_lake).values())
    got = answer_of(text, q_lake["sim"])
    m = re.search(
        r"This session's best, (\S+), was (\d+\.\d+) s faster than your best here until now, (\S+) in",
        got.text,
    )
    assert m, got.text
    assert abs(clock(m.group(1)) - mine) < TOL_S and abs(clock(m.group(3)) - other) < 0.05
    assert abs(float(m.group(2)) - (other - mine)) < 0.06


@pytest.mark.parametrize("text", ACROSS)
def test_this_session_against_the_other_with_the_gap(q_lake, text: str) -> None:
    """The simulated session's best against the VBOX session's (the driver's other one at Sonoma): both
    times, the gap, and which was better (the simulated laps are the quicker)."""
    other = vbox_truth(q_lake["vbox_path"]).best.time_s
    mine = min(sim_laps(q_lake).values())
    assert mine < other
    got = answer_of(text, q_lake["sim"])
    clocks = [int(a) * 60 + float(b) for a, b in CLOCK.findall(got.text)]
    assert any(abs(c - other) < 0.05 for c in clocks), (other, got.text)  # the VBOX lap from our own gate
    assert any(abs(c - mine) < TOL_S for c in clocks), (mine, got.text)
    # which is better: this session's lap said faster, or the other session's said slower
    this = r"\bYour (?:best lap here|best here|lap \d+)\b(?:[^.]|\.\d)*? was (\d+\.\d+) s faster\b"
    that = r"\bLap \d+ of your other session was (\d+\.\d+) s slower than your lap\b"
    gap = re.search(this, got.text) or re.search(that, got.text)
    assert gap and abs(float(gap.group(1)) - (other - mine)) < 0.06, got.text


@pytest.mark.parametrize(
    "text",
    [
        "did the car just keep getting faster and faster?",
        "was I getting slower and slower?",
        "did I keep getting faster as the session went on",
        "better and better each lap, or not?",
    ],
)
def test_the_session_trend_is_the_last_lap_against_the_best(q_lake, text: str) -> None:
    full = sim_laps(q_lake)
    best, last = min(full, key=lambda n: full[n]), max(full)
    got = answer_of(text, q_lake["sim"])
    assert {got.args.get("lap_a"), got.args.get("lap_b")} == {best, last}, (got.args, got.text)
    m = re.match(rf"Lap {last} was (\d+\.\d+) s slower than lap {best}\b", got.text)
    assert m and abs(float(m.group(1)) - (full[last] - full[best])) < 2 * TOL_S, got.text


@pytest.mark.parametrize(
    "text",
    [
        "the number of laps, best lap and average lap I completed?",
        "how many laps did i do and what was the average?",
        "how many laps, my best and my average?",
        "number of laps and my best lap?",
    ],
)
def test_several_lap_figures_in_one_question(q_lake, text: str) -> None:
    full = sim_laps(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    assert got.text.startswith(f"Your {len(full)} valid laps: "), got.text
    m = re.search(rf"Best lap {best} in (\S+), median \S+, average (\S+), slowest", got.text)
    assert m, got.text
    assert abs(clock(m.group(1)) - full[best]) < TOL_S
    assert abs(clock(m.group(2)) - sum(full.values()) / len(full)) < TOL_S


@pytest.mark.parametrize(
    "text",
    [
        "what lap times can I in fact hit, based on what I can actually do?",
        "realistically what lap time could i run if i put it all together?",
        "what lap time could I realistically hit, based on what I can actually do?",
    ],
)
def test_the_lap_times_within_reach_are_the_achievable_lap(q_lake, text: str) -> None:
    full = sim_laps(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    assert got.text.startswith("Your achievable lap"), got.text
    assert f"lap {best} in " in got.text and abs(lap_said(got.text, best) - full[best]) < TOL_S
    clocks = [int(a) * 60 + float(b) for a, b in CLOCK.findall(got.text)]
    assert all(c <= full[best] + TOL_S for c in clocks), got.text  # nothing above the best lap


@pytest.mark.parametrize(
    "text",
    [
        "Best lap time this session, after my almost eight week break?",
        "first day back after a long winter break, whats my best lap",
        "after a 3 month break what was my fastest lap?",
        "coming back from a summer break - best lap today?",
    ],
)
def test_a_break_from_driving_is_no_brake(q_lake, text: str) -> None:
    full = sim_laps(q_lake)
    best = min(full, key=lambda n: full[n])
    got = answer_of(text, q_lake["sim"])
    assert got.text.startswith(f"Your best lap was lap {best} in "), got.text
    assert abs(lap_said(got.text, best) - full[best]) < TOL_S

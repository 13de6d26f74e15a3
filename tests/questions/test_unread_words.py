"""What a question's reader did not read, and the answer headed with what it was read as (issue #32, item
1: "when unsure, say what was understood"). ``unread.unread`` is the measure: the content words beside what a
slot read that the vocabulary does not know. A question with such a word gets "I read this as …, leaving
aside “…”:" before its figures; a plain question never does. Phrasings from public pages (cited beside
each); the figures are checked against the simulator's own laps (``said.sim_laps``), never Pitwall's."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.paddock.agents.evidence import plan_for
from services.paddock.questions import words as w
from services.paddock.questions.parse import parse
from services.paddock.questions.slots import read_slots
from services.paddock.questions.unread import unread
from tests.questions.said import CLOCK, TOL_S, clock, sim_laps

# johnstrackdays.blogspot.com/2015/01 ("Lately I've hit a lap time plateau at Laguna Seca")
PLATEAU = "have I hit a lap time plateau?"
# statelessimmigrant.com/2011/11/digit-counters-fall.html ("unsure whether my improvement was sustainable
# or just a fluke")
FLUKE = "was my best lap time a fluke?"
# adagia.org/content/4178 ("improving your own personal best lap time")
PLAIN = "what was my personal best lap time?"

UNREAD = [
    (PLATEAU, ("plateau",)),
    (FLUKE, ("fluke",)),
    (PLAIN, ()),
    # race-technology.com/wiki/index.php/RTAnalysisTechnical/BestTheoreticalLap
    ("what is my best theoretical lap?", ()),
    # the same blog post: the story before the question is far from anything read
    ("my data logger decided to not log the morning sessions, what was my best lap?", ()),
    # the same blog post ("Getting on the gas sooner (much sooner in 9 ...)"): a form of a known word
    ("was I getting on the gas sooner in turn 9?", ()),
    # johnstrackdays.blogspot.com/2015/01 ("a lap time plateau at Laguna Seca"): the track of another
    # session is read by the session reader; a place nothing reads is said ("this session is at Sonoma")
    ("what was my best lap last time at Laguna?", ()),
    ("what was my fastest lap time at Laguna?", ("laguna",)),
]


@pytest.mark.parametrize(("text", "want"), UNREAD)
def test_the_unread_words_are_the_unknown_ones_beside_what_was_read(text: str, want: tuple[str, ...]) -> None:
    assert parse(text).unread == want


def test_a_word_is_unread_only_beside_a_word_a_slot_read() -> None:
    toks = w.tokens("have I hit a plateau? what was my best lap")
    s = read_slots(toks, ())
    assert unread(s.toks, s.used) == ()  # "plateau" is three words from "best"
    near = w.tokens("best lap plateau")
    assert unread(near, [True, True, False]) == ("plateau",)
    assert unread(near, [False, False, False]) == ()


def test_a_form_of_a_known_word_filler_and_adverbs_are_read() -> None:
    toks = ["lapped", "hitting", "slightly", "mate", "psi", "plateaus"]
    assert unread(toks, [True] * len(toks)) == ("plateaus",)


def test_the_track_s_corner_names_are_read() -> None:
    toks = ["carousel", "zzcorner"]
    assert unread(toks, [True, True], ("the zzcorner",)) == ()


def _ask(files_lake: dict[str, Any], text: str) -> str:
    got, _ = plan_for(text, files_lake["sim"], None)
    assert got is not None, text
    return str(got["text"])


def test_an_answer_with_a_word_left_aside_says_what_it_was_read_as(files_lake) -> None:
    laps = sim_laps(files_lake)
    best = min(laps, key=laps.__getitem__)
    got = _ask(files_lake, FLUKE)
    head = "I read this as a lap time on your fastest lap, leaving aside “fluke”: "
    assert got.startswith(head + f"Your best lap was lap {best} in "), got
    said = CLOCK.search(got)
    assert said is not None and abs(clock(said.group(0)) - laps[best]) <= TOL_S, got


def test_a_plain_question_is_answered_without_a_heading(files_lake) -> None:
    laps = sim_laps(files_lake)
    best = min(laps, key=laps.__getitem__)
    got = _ask(files_lake, PLAIN)
    assert got.startswith(f"Your best lap was lap {best} in "), got
    assert "I read this as" not in got


# speedsecrets.com/q-how-do-i-get-faster-when-i-feel-like-ive-plateaued-with-my-driving/ ("When you say
# you're on a plateau, are you? Maybe your fastest lap time is not improving much")
PROGRESS = "am I improving, or am I on a plateau?"


def test_progress_asked_with_no_other_session_says_there_is_only_this_one(files_lake) -> None:
    got, _ = plan_for(PROGRESS, files_lake["kart"], None)
    assert got is not None
    laps = {lp.lap: lp.time_s for lp in files_lake["truth"]["kart"].racing}  # our own reading of the file
    best = min(laps, key=laps.__getitem__)
    text = str(got["text"])
    assert text.startswith("I read this as your sessions here, and this is your only one"), text
    said = re.search(rf"best (\d+:\d{{2}}\.\d{{3}}) \(lap {best}\)", text)
    assert said is not None and abs(clock(said.group(1)) - laps[best]) <= 0.05, text

"""The answer eval's yardstick: the scorer (correct / wrong / evasive, wrong figures shown as model text)
and the independent truth it is fed (own lap split, own coordinate parsing)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.answer_eval import Expect, Fig, figures, score
from tests.support.truth import _dm, gate_crossings

LAPS = [106.984, 107.825, 109.035, 111.593, 107.477]
BEST = Expect(need=[[Fig("time", 106.984)]], check={"time": LAPS})


@pytest.mark.parametrize(
    "text",
    [
        "Your best was lap 2 in 1:46.984.",
        "Best lap: 106.98 s.",
        "Best lap 2, a 1:47.",  # rounded as a driver reads it: the truth rounds to it
        "Lap 2 was best at 1:46.98, lap 6 was 1:47.477.",
    ],
)
def test_the_expected_lap_time_in_any_driver_format_is_correct(text: str) -> None:
    assert score(BEST, text, "llm").kind == "correct", text


@pytest.mark.parametrize(
    "text",
    [
        "Your best was 1:47.984.",
        "Best lap: 105.9 s.",
        "Best 1:46.984, but lap 4 was 1:52.100.",
        "Best 1:47.1.",
    ],
)
def test_a_lap_time_the_session_does_not_have_is_wrong(text: str) -> None:
    v = score(BEST, text, "llm")
    assert v.kind == "wrong" and v.wrong_as_model_text, (text, v)


def test_a_figure_rounded_coarser_than_the_tolerance_is_right_when_the_truth_rounds_to_it() -> None:
    e = Expect(need=[[Fig("time", 107.3)]], check={"time": [107.3]})
    assert score(e, "Lap 3 was a 1:47.", "llm").kind == "correct"  # 107.3 rounds to 1:47
    assert score(e, "Lap 3 was a 1:47.0.", "llm").kind == "wrong"  # stated to a tenth: 0.3 s off
    assert score(e, "Lap 3 was a 1:48.", "llm").kind == "wrong"


def test_a_wrong_figure_from_the_data_narrator_is_wrong_but_not_model_text() -> None:
    v = score(BEST, "Best 1:47.984.", "data")
    assert v.kind == "wrong" and not v.wrong_as_model_text


@pytest.mark.parametrize("text", ["", "Your best lap was a good one, keep pushing.", "Lap 5 was 1:51.593."])
def test_no_expected_figure_and_nothing_false_is_evasive(text: str) -> None:
    assert score(BEST, text, "llm").kind == "evasive"


VS = Expect(need=[[Fig("gap", 4.609), Fig("time", 111.593)]], check={"time": LAPS}, slower=(5, 2))


@pytest.mark.parametrize(
    "text,kind",
    [
        ("Lap 5 was 4.609 s slower than lap 2: most of it at T4.", "correct"),
        ("Lap 2 was 4.61 s quicker than lap 5.", "correct"),
        ("Lap 5: +4.609 s against lap 2.", "correct"),
        ("Lap 2: −4.609 s against lap 5.", "correct"),  # a signed gap: its size, the direction from words
        ("Lap 5 was 4.609 s faster than lap 2.", "wrong"),  # the direction contradicts the truth
        ("Lap 2 was slower than lap 5 by 4.609 s.", "wrong"),
        ("Lap 5 was 3.2 s slower than lap 2.", "wrong"),  # the size of the total contradicts it
        ("Lap 5 was 1:51.593, you lost 0.4 s at T4.", "correct"),
        ("Lap 5 was slower, mostly in turn 4.", "evasive"),
    ],
)
def test_lap_versus_lap_sign_and_size(text: str, kind: str) -> None:
    assert score(VS, text, "llm").kind == kind, text


def test_units_are_converted_as_a_driver_reads_them() -> None:
    top = Expect(need=[[Fig("kmh", 185.7)]], check={"kmh": [185.7, 187.5]})
    assert score(top, "Top speed 115.4 mph.", "llm").kind == "correct"
    assert score(top, "Top speed 186 km/h.", "llm").kind == "correct"
    assert score(top, "Top speed 125 mph.", "llm").kind == "wrong"
    assert score(top, "Top speed 51.6 m/s.", "llm").kind == "correct"  # 185.8 km/h
    assert score(top, "Top speed 190.2 km/h.", "llm").kind == "wrong"
    oil = Expect(need=[[Fig("bar", 2.1)]], check={"bar": [2.1, 4.5]})
    assert score(oil, "It fell to 30.5 psi.", "llm").kind == "correct"  # 2.10 bar
    hot = Expect(need=[[Fig("c", 96.4)]], check={"c": [96.4, 80.0]})
    assert score(hot, "Coolant peaked at 205.5 °F.", "llm").kind == "correct"
    assert score(hot, "Coolant peaked at 101 °C.", "llm").kind == "wrong"
    assert [f.unit for f in figures("7,702 rpm, 2.1 % and 3547 m; 0.5 s; 45 s")] == [
        "rpm",
        "pct",
        "m",
        "gap",
        "time",
    ]


def test_a_range_expectation_takes_any_figure_inside_it() -> None:
    theo = Expect(
        need_range={"time": (105.3, 106.984)}, check={"time": LAPS}, ranges={"time": (105.3, 106.984)}
    )
    assert score(theo, "Theoretical best 1:45.871.", "llm").kind == "correct"
    assert score(theo, "Theoretical best 1:44.2.", "llm").kind == "wrong"
    assert score(theo, "Your best was 1:46.984.", "llm").kind == "correct"  # the best lap is in range too


NO_LAP = Expect(
    restraint="no_lap", topic=r"\blap 42\b", allowed_numbers=[42, 0, 1, 2, 3, 4, 5, 10], check={"time": LAPS}
)
NOT_RECORDED = Expect(
    restraint="not_recorded", topic=r"tyre|tpms", forbid=r"\bcount: ?0\b", allowed_numbers=[0, 1, 2, 3]
)
DECLINE = Expect(restraint="decline", allowed_numbers=[2021, 17, 23, 1, 2, 3], check={"time": LAPS})


@pytest.mark.parametrize(
    "e,text,kind",
    [
        (NO_LAP, "There is no lap 42 in this session: it has 10 laps, 0 to 5 shown.", "correct"),
        (NO_LAP, "Lap 42 of 20261123-160604-62e37f has no telemetry.", "correct"),  # an id is no figure
        (NO_LAP, "Lap 42 was a 1:48.2.", "wrong"),
        (NO_LAP, "Hmm, let me look at that for you.", "evasive"),
        (NOT_RECORDED, "Tyre pressures were not recorded in this session.", "correct"),
        (NOT_RECORDED, "This file has no TPMS channel.", "correct"),
        (NOT_RECORDED, "Your tyres were at 2.1 bar.", "wrong"),
        (NOT_RECORDED, "The tyres looked fine.", "evasive"),
        (DECLINE, "I can only help with your driving and your sessions.", "correct"),
        (DECLINE, "17 times 23 is 391.", "wrong"),
        (DECLINE, "Sorry, I can't help with the 2021 season.", "correct"),
        (DECLINE, "Paris.", "evasive"),
        (NO_LAP, "No lap 42 here; your best was lap 2, 1:46.984.", "correct"),  # a true figure, said beside
        (NO_LAP, "Lap 42 doesn't exist. Lap 2 was 1:52.3.", "wrong"),  # any false lap time is still wrong
        (NOT_RECORDED, "No TPMS channel in this session. Recorded at 8:39:20.", "correct"),  # a clock time
        (NOT_RECORDED, "Traction events: count: 0; events: [].", "wrong"),  # unmeasurable, so not zero
        (DECLINE, "Best lap 2 in 1:46.984. That is all I know.", "evasive"),  # true, but no decline
        (DECLINE, "The most time to find: 17 times 23 seconds.", "evasive"),  # the question's own numbers
    ],
)
def test_restraint_names_the_absence_and_states_no_figure(e: Expect, text: str, kind: str) -> None:
    assert score(e, text, "llm").kind == kind, text


def test_a_denial_of_what_the_data_shows_is_wrong() -> None:
    lock = Expect(words=[r"\b(?:t4|turn 4)\b"], forbid=r"\bno (?:lock ?ups?)\b")
    assert score(lock, "You locked the front left into Turn 4 on laps 3 to 5.", "llm").kind == "correct"
    assert score(lock, "No lockups this session.", "llm").kind == "wrong"
    assert score(lock, "Some lockups.", "llm").kind == "evasive"


def test_context_keeps_a_figure_or_word_to_what_was_asked() -> None:
    lock = Expect(words=[r"\b(?:t4|turn 4)\b"], context=r"lock")
    assert score(lock, "Lockups: front left at T4 on lap 3.", "llm").kind == "correct"
    assert score(lock, "Most time to find: T4 0.043 s. No comment on brakes.", "llm").kind == "evasive"
    theo = Expect(need_range={"time": (105.3, 106.984)}, context=r"theoretical")
    assert (
        score(theo, "Best lap 2 in 106.984 s.", "llm").kind == "evasive"
    )  # the best lap, not the theoretical
    assert score(theo, "Theoretical best 1:45.9, best lap 1:46.984.", "llm").kind == "correct"


def test_degrees_and_decimal_minutes() -> None:
    assert _dm("38°9.631176 N") == pytest.approx(38 + 9.631176 / 60)
    assert _dm("122°27.228036 W") == pytest.approx(-(122 + 27.228036 / 60))


def test_own_gate_crossing_interpolates_between_samples() -> None:
    """A car driving north-west at 50 m/s over the Sonoma line, sampled at 10 Hz: the crossing times are
    where the line is, between samples, and only forward crossings near the line count."""
    lat0, lon0, hdg = 38.16152, -122.45472, 309.8
    k = 111_320.0
    t = np.arange(0, 20, 0.1)
    along = 50.0 * (t - 3.03)  # on the line at 3.03 s
    ux, uy = math.sin(math.radians(hdg)), math.cos(math.radians(hdg))
    lat = lat0 + along * uy / k
    lon = lon0 + along * ux / (k * math.cos(math.radians(lat0)))
    hits = gate_crossings(t, lat, lon)
    assert len(hits) == 1 and hits[0][0] == pytest.approx(3.03, abs=1e-6)
    assert gate_crossings(t[::-1], lat[::-1], lon[::-1]) == []  # backwards is no lap
    assert gate_crossings(t, lat + 100 / k, lon) == []  # 100 m beside the line is no crossing


@pytest.mark.parametrize(
    "text,off",
    [
        ("Lap 5 was 1:51.593.", True),  # a figure of another question, said as if it answered this one
        ("Your top speed was 208.0 km/h (129.3 mph), on lap 3.", True),
        ("Your best lap was a good one, keep pushing.", False),  # no figure: evasive, not another answer
        ("", False),
        (
            "I read this as a question about lap 5, which this session's data cannot answer; I can answer "
            "lap times (lap 5 was 1:51.593).",
            False,
        ),  # what was understood and what can be answered, with a figure of its own
        ("I can only answer questions about your driving data.", False),
    ],
)
def test_an_evasive_answer_with_figures_and_no_word_of_what_was_understood_is_off(
    text: str, off: bool
) -> None:
    v = score(BEST, text, "data")
    assert v.kind == "evasive" and v.off is off, text


def test_a_correct_or_wrong_answer_is_never_off() -> None:
    assert not score(BEST, "Best 1:46.984.", "data").off
    assert not score(BEST, "Best 1:47.984.", "data").off

"""The one vocabulary: every measure a phrase names exists and every measure has a phrase; every
telemetry column a driver could name is some measure's; typos of driving words are fixed and plain
words left alone; shorthand spelled out once."""

from __future__ import annotations

import pytest

from services.paddock import measures as ms
from services.paddock.questions import words as w
from shared.signals import WIDE_COLUMNS

# columns no driver names: time, position on the lap and the map, the brake light switch
TECHNICAL = {"t_s", "dist_m", "lat", "lon", "heading_deg", "brake_switch"}


def test_phrases_and_measures_match() -> None:
    # every measure a phrase names exists; every measure has a phrase but "temps", which only a judge
    # question without a single reading gets ("are my temps fine?")
    assert set(ms.MEASURE_WORDS.values()) | {"temps"} == set(ms.MEASURES)
    assert "temps" not in ms.MEASURE_WORDS.values()


def test_every_column_a_driver_names_is_a_measure() -> None:
    named = {c for m in ms.MEASURES.values() for c in m.columns}
    assert named <= set(WIDE_COLUMNS)  # no measure reads a column the telemetry does not have
    assert set(WIDE_COLUMNS) - named == TECHNICAL


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("throtle", "throttle"),
        ("brakng", "braking"),
        ("fastets", "fastest"),
        ("presure", "pressure"),
        ("coolent", "coolant"),
        ("temprature", "temperature"),
        ("sectr", "sector"),
        ("slowets", "slowest"),
        ("understear", "understeer"),
        ("looking", "looking"),  # a plain word, one letter from "locking"
        ("later", "later"),  # ... from "lateral"
        ("brave", "brave"),  # ... from "brake"
        ("place", "place"),  # ... from "pace"
        ("weather", "weather"),  # ... from "water"
        ("xyzzy", "xyzzy"),  # close to nothing
        ("rpm", "rpm"),
        ("lapp", "lap"),  # a letter doubled
        ("gaer", "gear"),  # two letters swapped
        ("fule", "fuel"),  # ... a driving word before a plain one ("file")
        ("tiems", "times"),
        ("whaat", "what"),  # a plain word too
        ("tiire", "tire"),  # (``tokens`` then spells it as the vocabulary does: "tyre")
        ("temths", "tenths"),  # a key beside the right one, in a word of six letters or more
        ("actualy", "actually"),  # a letter dropped, ... six letters or more
        ("loiks", "loiks"),  # ... not in a shorter word, where many real words are one key apart:
        ("march", "march"),  # "match"
        ("wet", "wet"),  # "went"
        ("etc", "etc"),  # too short: no "ect" (coolant temperature)
        ("speef", "speef"),  # one letter off a five-letter word (0.8 alike): no sure typo either
    ],
)
def test_fix(typed: str, meant: str) -> None:
    assert w.fix(typed) == meant


@pytest.mark.parametrize(
    ("text", "toks"),
    [
        ("T11", ["turn", "11"]),
        ("hot tiire pressures", ["hot", "tyre", "pressure"]),  # a typo fixed, then spelled
        ("find 6 sec in sec 2", ["find", "6", "seconds", "in", "sector", "2"]),  # seconds, not a sector
        ("t3A", ["turn", "3a"]),
        ("C4 L5 S2", ["corner", "4", "lap", "5", "sector", "2"]),
        ("3rd lap", ["3", "th", "lap"]),
        ("laps 3-5", ["laps", "3", "through", "5"]),
        ("my other session's PB", ["my", "other", "session", "personal", "best"]),
        ("bo's lap 4 vs what's mine", ["@bo", "lap", "4", "versus", "what", "mine"]),
        ("what's my 1:48.222 lap", ["what", "my", "lap"]),
        ("averaging 1:49?", ["averaging", "lap", "time"]),  # a lap time written is the words
        ("at 2:30 pm", ["at", "pm"]),  # a time of day is none
        ("what were my pressures", ["what", "were", "my", "tyre", "pressure"]),
        ("oil pressures", ["oil", "pressure"]),
        ("did I lock in my best time", ["did", "i", "set", "my", "best", "time"]),
        ("Whats my vs", ["what", "is", "my", "versus"]),
        ("lap 20260601-101500-ab12cd", ["lap", "20260601-101500-ab12cd"]),
        ("rpms & kph", ["rpm", "and", "kmh"]),  # "my 2nd & 3rd lap": and
        ("knock off another 1.1 sec", ["knock", "off", "another", "seconds"]),  # never "sector" (sec 2 is)
    ],
)
def test_tokens(text: str, toks: list[str]) -> None:
    assert w.tokens(text) == toks

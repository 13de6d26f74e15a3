"""Bad input never breaks the reader: empty, punctuation, control characters, emoji, a pasted essay,
absurd numbers, a path where a session id goes. Each gets a ``Question`` (never an exception), and what
it holds is exact."""

from __future__ import annotations

import random
import string

import pytest

from services.paddock.questions.model import LapRef
from services.paddock.questions.parse import parse
from services.paddock.questions.words import MAX_WORDS
from tests.questions.test_parse import expected, fields


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("", "unrelated"),
        ("   \n\t ", "unrelated"),
        ("???!!!", "unrelated"),
        ("\x00lap\x00 5", "lap_time laps=5 measure=lap_time"),
        ("🏎️ lap 4 🔥", "lap_time laps=4 measure=lap_time"),
        ("lap 99999999999999999999 time", "lap_time measure=lap_time"),  # no lap has such a number
        ("DROP TABLE laps; lap 3", "lap_time laps=3 measure=lap_time"),
        ("lap 3 of session ../../etc/passwd", "lap_time laps=3 measure=lap_time"),  # not a session id
        ("laps 1 to 1000000", "lap_time laps=1 measure=lap_time"),  # the end is no lap number
        ("laps 5 to 3", "compare laps=5,3"),  # backwards: the two laps, not a range
        ("lap 1:48.222", "lap_time measure=lap_time"),  # a lap time is no lap number: the lap times
        ("vs vs vs", "compare"),
        ("t99999999", "unrelated"),
    ],
)
def test_bad_input_reads_plainly(text: str, spec: str) -> None:
    assert fields(parse(text, ("t1", "t2"))) == expected(spec)


def test_an_essay_is_read_up_to_its_first_words() -> None:
    rng = random.Random(7)
    noise = " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 12))) for _ in range(3000))
    assert parse(noise).intent == "unrelated"
    q = parse(" ".join(f"lap {i}" for i in range(1, 5000)))
    assert q.intent == "compare" and q.laps == tuple(LapRef(i) for i in range(1, MAX_WORDS // 2 + 1))
    assert parse("lap 3 " * 5000).laps == (LapRef(3),)  # the same lap named again is one lap
    late = parse("x " * 2000 + "what was my top speed on lap 4?")  # past the words read: not read
    assert late.laps == () and late.intent == "unrelated"

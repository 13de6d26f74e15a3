"""A lap time the driver says ("was my best a 1:35.2?") is checked against the simulator's own laps: yes
when the lap falls within the time as said (to its last digit), else by how much it misses. The driver's
figure is never said back as a figure of Pitwall's."""

from __future__ import annotations

import math
import re

import pytest

from services.paddock.questions.parse import parse
from tests.questions.said import TOL_S, sim_laps
from tests.support.asking import ask_planned

MISS = re.compile(r" (\d+\.\d{3}) s (slower|quicker) than the time you said\.$")


def _said(t: float, decimals: int) -> str:
    """``t`` written as a driver would, cut (not rounded) to ``decimals``: 95.274 -> "1:35.2"."""
    cut = math.floor(t * 10**decimals) / 10**decimals
    m, s = divmod(cut, 60)
    return f"{int(m)}:{s:0{3 + decimals if decimals else 2}.{decimals}f}"


def test_the_best_lap_said_to_a_tenth_is_confirmed(q_lake) -> None:
    best = min(sim_laps(q_lake).values())
    said = _said(best, 1)
    assert abs(best * 10 - round(best * 10)) > 0.05, best  # not at a tenth's edge: the truth decides
    got = ask_planned(q_lake["sim"], f"was my best a {said}?")
    assert got.text.endswith(" Yes, your best lap was the time you said."), got.text
    assert not re.search(r"\d:\d\d", got.text.split(". Yes")[1])  # the driver's figure is never echoed


@pytest.mark.parametrize("off", [0.5, -1.3])
def test_a_lap_time_said_wrong_is_missed_by_the_truths_gap(q_lake, off: float) -> None:
    laps = sim_laps(q_lake)
    n = sorted(laps)[len(laps) // 2]
    said = _said(laps[n] - off, 1)
    got = ask_planned(q_lake["sim"], f"was lap {n} a {said}?")
    m = MISS.search(got.text)
    assert m is not None, got.text
    claimed = int(said.split(":")[0]) * 60 + float(said.split(":")[1])
    assert abs(float(m.group(1)) - abs(laps[n] - claimed)) <= TOL_S
    assert m.group(2) == ("slower" if laps[n] > claimed else "quicker")
    assert got.text.startswith(f"Lap {n} took ")


def test_an_average_said_to_the_second(q_lake) -> None:
    times = list(sim_laps(q_lake).values())
    mean = sum(times) / len(times)
    got = ask_planned(q_lake["sim"], f"was I averaging {_said(mean, 0)}?")
    if mean % 1 < 0.98:  # the mean is inside the second said
        assert got.text.endswith(" Yes, your average was the time you said."), got.text


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("was my best a 1:46.5?", "1:46.5"),
        ("I was averaging 1:49 through traffic, right?", "1:49"),
        ("did my lap time drop from 1:30 to 1:27?", None),  # two times: compared, no claim
        ("did I break 1:47?", None),  # a target: the best against it (lap_set)
        ("how many laps under 1:36?", None),
        ("at 2:30 pm was I on track?", None),  # a time of day
    ],
)
def test_a_stated_time_is_read_once(text: str, stated: str | None) -> None:
    assert parse(text).stated == stated

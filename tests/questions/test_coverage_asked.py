"""A question that names something the chosen family does not read (a second channel, a lap, a sector, a
measure) is never answered with that family's figures as if it were the question: the plan says what it
read and what it can answer (``coverage``), or picks a family that reads it all. Our own phrasings, forum
style; the understood wording is written out here, the figures are our own crossings of the raw VBOX file."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from services.paddock.questions import coverage
from services.paddock.questions.families import balance, channels, coaching, gears, sectors
from services.paddock.questions.model import LapRef, Question
from services.paddock.questions.plan import CAN
from services.paddock.tools.sectors import sector_times
from tests.support.asking import ask_planned
from tests.support.truth import gate_crossings, vbox_truth

# our own phrasings on the simulated session -> what the answer says it read
READ: list[tuple[str, str]] = [
    # a lap named where the family reads none
    ("was the car understeering on lap 4?", "the car's balance (understeer or oversteer) on lap 4"),
    (
        "bit of push on lap 6, was it understeer or just me?",
        "the car's balance (understeer or oversteer) on lap 6",
    ),
    ("did the rear step out on lap 3? felt loose", "the car's balance (understeer or oversteer) on lap 3"),
    ("was I short shifting on lap 3?", "a channel's figures about engine speed at the upshifts on lap 3"),
    (
        "shift points on lap 5, was I changing up too early?",
        "a channel's figures about engine speed at the upshifts on lap 5",
    ),
    (
        "did I short shift a lot on my fastest lap?",
        "a channel's figures about engine speed at the upshifts on your fastest lap",
    ),
    ("understeer at turn 6 on lap 2?", "the car's balance (understeer or oversteer) on lap 2 at T6"),
    # a sector named where the family reads none
    ("any lockups in sector 2?", "warnings and events about lockups in sector 2"),
    ("did I lock a wheel anywhere in sector 3 mate?", "warnings and events about lockups in sector 3"),
    ("any lockups on lap 4 in sector 1?", "warnings and events about lockups on lap 4 in sector 1"),
    ("any wheelspin in sector 5?", "warnings and events about wheelspin in sector 5"),
    ("what was my rpm in sector 3?", "sector times about engine speed in sector 3"),
    ("where did I brake in sector 2?", "sector times about brake marker in sector 2"),
    ("what gear was I in for sector 4?", "sector times about gear in sector 4"),
    ("was 4th the right gear in sector 2 on lap 4?", "sector times about gear on lap 4 in sector 2"),
    ("understeer in sector 3?", "the car's balance (understeer or oversteer) in sector 3"),
    ("oversteer in sector 1 on lap 5?", "the car's balance (understeer or oversteer) on lap 5 in sector 1"),
    ("did I coast on lap 5 in sector 1?", "sector times about time coasting on lap 5 in sector 1"),
    ("did I ever coast in sector 3?", "sector times about time coasting in sector 3"),
    ("in sector 2, how was my throttle?", "sector times about throttle in sector 2"),
    ("water temp in sector 2?", "sector times about coolant temperature in sector 2"),
    ("shifting early in sector 1?", "sector times about engine speed at the upshifts in sector 1"),
    ("top speed in sector 4?", "sector times about top speed in sector 4"),
    # a measure named where the family reads none, or another kind of it
    ("where am I losing time, is it the fuel level?", "where the time is about fuel level"),
    ("how consistent was my top speed?", "consistency about top speed"),
    ("was I consistent on my top speed over the session?", "consistency about top speed"),
    ("what's my potential top speed?", "what lap time is possible about top speed"),
    (
        "how much time could I find in sector 2 on lap 4 with a better throttle?",
        "where the time is about throttle on lap 4 in sector 2",
    ),
]


@pytest.mark.parametrize(("text", "read"), READ, ids=[t for t, _ in READ])
def test_what_a_family_does_not_read_is_said_as_understood(
    q_lake: dict[str, Any], text: str, read: str
) -> None:
    got = ask_planned(q_lake["sim"], text)
    assert got.text == f"I read this as {read}, which this session's data cannot answer; I can answer {CAN}."
    assert got.result == {"understood": True}


def test_enough_phrasings() -> None:
    assert len(READ) >= 25
    assert len({t for t, _ in READ}) == len(READ)


def _lap_max(sim: Any, lap: int, channel: str) -> float:
    """The simulator's own highest value of ``channel`` over lap ``lap`` (its clock's lap bounds)."""
    (x,) = [x for x in sim.truth.laps if x["lap"] == lap]
    t = sim.wide["t_s"]
    return float(np.max(sim.wide[channel][(t >= x["t_start_s"]) & (t <= x["t_end_s"])]))


# two channels of one lap, named where no one family answers both: each figure, checked against the raw file
TWO_ON_A_LAP: list[tuple[str, int, tuple[str, ...]]] = [
    ("what was my top speed and peak rpm on lap 3?", 3, ("speed_kmh", "rpm")),
    ("peak revs and top speed, lap 7?", 7, ("rpm", "speed_kmh")),
    ("oil temp and top speed on lap 5?", 5, ("oil_temp_c", "speed_kmh")),
    ("my brake pressure and top speed on lap 4?", 4, ("brake_bar", "speed_kmh")),
]
_UNIT = {"speed_kmh": "km/h", "rpm": "rpm", "oil_temp_c": "°C", "brake_bar": "bar"}


@pytest.mark.parametrize(("text", "lap", "channels_asked"), TWO_ON_A_LAP, ids=[t for t, *_ in TWO_ON_A_LAP])
def test_two_channels_of_a_lap_are_each_answered_in_the_order_named(
    q_lake: dict[str, Any], text: str, lap: int, channels_asked: tuple[str, ...]
) -> None:
    got = ask_planned(q_lake["sim"], text)
    assert "understood" not in got.result, got.text
    where = []
    for ch in channels_asked:
        said = [
            float(v.replace(",", ""))
            for v in re.findall(rf"(\d[\d,]*(?:\.\d+)?) ?{re.escape(_UNIT[ch])}\b", got.text)
        ]
        true = _lap_max(q_lake["sim_obj"], lap, ch)
        assert any(v == pytest.approx(true, rel=0.01, abs=0.6) for v in said), (ch, true, got.text)
        where.append(got.text.find(_UNIT[ch]))
    assert where == sorted(where), got.text  # in the order the driver named them


# two figures of one corner: each answered as asked alone, joined in the order named
TWO_AT_A_CORNER: list[tuple[str, tuple[str, str]]] = [
    (
        "throttle and steering at turn 3 on lap 2?",
        ("what was my throttle at turn 3 on lap 2?", "what was my steering at turn 3 on lap 2?"),
    ),
    (
        "did I get on the gas early at t7 and not carry enough speed in?",
        ("my throttle at t7?", "my speed at t7?"),
    ),
    (
        "what speed did I carry through T5, and what was the throttle like?",
        ("my speed at T5?", "my throttle at T5?"),
    ),
]


@pytest.mark.parametrize(("text", "alone"), TWO_AT_A_CORNER, ids=[t for t, _ in TWO_AT_A_CORNER])
def test_two_figures_of_a_corner_are_the_answers_to_each_alone(
    q_lake: dict[str, Any], text: str, alone: tuple[str, str]
) -> None:
    got = ask_planned(q_lake["sim"], text)
    parts = [ask_planned(q_lake["sim"], x).text for x in alone]
    assert got.text == " ".join(parts)


def test_one_of_two_measures_no_family_answers_makes_the_whole_understood(q_lake: dict[str, Any]) -> None:
    """ "top speed in sector 4 and my rpm on lap 2": no sector's speed is kept, so neither part is answered
    alone as if it were the question."""
    got = ask_planned(q_lake["sim"], "top speed and rpm in sector 4?")
    assert got.result == {"understood": True}, got.text


def test_a_numbered_sector_after_that_sector_is_read_and_answered_from_the_lap(
    q_lake: dict[str, Any],
) -> None:
    """ "that sector ... sector 5 lap N": sector 5 on lap N against the best sector 5, our own crossings of the
    sector lines in the raw VBOX file (the family reads the sector and the lap: no achievable lap instead)."""
    vb = vbox_truth(q_lake["vbox_path"])
    lap = [x.lap for x in vb.racing][3]
    gates = [(g["lat"], g["lon"], g["heading_deg"]) for g in sector_times(q_lake["vbox"])["gates"]]
    la, lo = vb.channels["Latitude"], vb.channels["Longitude"]

    def sector5(n: int) -> float:
        idx = np.flatnonzero(vb.in_lap(vb.lap(n)))
        # sector k runs from the line at corner k-1's entry to the next (sector 1 starts at the finish line)
        ((t0, *_),) = gate_crossings(vb.t[idx], la[idx], lo[idx], gates[3])
        ((t1, *_),) = gate_crossings(vb.t[idx], la[idx], lo[idx], gates[4])
        return float(t1 - t0)

    ours = sector5(lap)
    best = min(sector5(x.lap) for x in vb.racing)
    got = ask_planned(q_lake["vbox"], f"was that sector any better than my optimal? sector 5, lap {lap}")
    assert got.text.startswith(f"Lap {lap}, sector 5 ("), got.text
    assert got.result["lap_sectors_s"][5] == pytest.approx(ours, abs=0.03)
    said = float(got.text.split(": ", 1)[1].split(" s;")[0])
    assert said == pytest.approx(ours, abs=0.03)
    assert float(got.text.split("your best is ")[1].split(" s")[0]) == pytest.approx(best, abs=0.03)


def test_the_families_declare_what_they_read() -> None:
    """The coverage data itself, on typed questions (no parser): a lap, a sector, a second channel."""
    lap4 = (LapRef(number=4),)
    assert not coverage.reads(balance.answer, Question("x", "balance", laps=lap4))
    assert coverage.reads(balance.answer, Question("x", "balance", corner="t3"))
    assert not coverage.reads(gears.answer, Question("x", "channel", laps=lap4, measure="shift_rpm"))
    assert not coverage.reads(channels.answer, Question("x", "channel", sector=2, measure="rpm"))
    assert not coverage.reads(channels.answer, Question("x", "channel", measure="rpm", also=("top_speed",)))
    assert coverage.reads(sectors.answer, Question("x", "sector", laps=lap4, sector=2))
    # the best lap alone is what the session analysis is against; another lap is not
    best = (LapRef(pick="fastest"),)
    assert coverage.reads(coaching.potential, Question("x", "potential", laps=best))
    assert not coverage.reads(coaching.potential, Question("x", "potential", laps=lap4))
    # where the time is reads the speeds and the braking, never a vital
    assert coverage.reads(coaching.where_time, Question("x", "where_time", measure="min_speed"))
    assert not coverage.reads(coaching.where_time, Question("x", "where_time", measure="oil_temp"))
    # a second measure the first stands for is read with it; one it does not stand for is not
    both = Question("x", "channel", laps=lap4, measure="top_speed", also=("speed",))
    assert coverage.named(both) == {"laps", "measure"}
    two = Question("x", "channel", laps=lap4, measure="top_speed", also=("rpm",))
    assert coverage.named(two) == {"laps", "measure", "also"}
    assert not coverage.reads(channels.answer, two) and coverage.reads(channels.answer, both)
    vital = Question("x", "judge", measure="oil_pressure", also=("rpm",))  # "oil pressure above 4000 rpm"
    assert coverage.named(vital) == {"measure"}


def test_a_reading_not_recorded_is_said_so_after_what_was_understood(q_lake: dict[str, Any]) -> None:
    """No family reads boost as a cause of lost time, and the simulated file records no boost: what was
    understood, then that boost is not recorded, never the list of what can be answered instead."""
    got = ask_planned(q_lake["sim"], "losing time cos of the boost??")
    read = "I read this as where the time is about boost pressure, but boost pressure is not recorded in this"
    assert got.text.startswith(f"{read} session's file."), got.text
    assert got.result["understood"] is True and got.result["recorded"] is False

"""More drivers' words for channels, engine health, warning lights and what a file does not record, asked of
the simulated session and the real VBOX, MyChron and AiM files (forum style: context first, typos, shorthand,
lights and gauges instead of channel names, the car itself instead of a reading). Every figure is checked
against the simulator's samples or our own reading of the raw file (the ``raw`` fixture), never against
Pitwall's tools."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.support.asking import answer_of

Raw = Callable[[str, str, int | None, str], float]


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _lap_of(sim: Any, t: float) -> int:
    return next(int(x["lap"]) for x in sim.truth.laps if x["t_start_s"] <= t < x["t_end_s"])


# a channel in a driver's words: the first figure said is the channel's true one (on the lap named)
CHANNEL = [
    (
        "sim",
        "Been chasing a weird smell after the session - did the oil temp get silly at any point?",
        "oil_temp_c",
        "max",
        None,
    ),
    ("sim", "whats the hottest the oil got, and on what lap", "oil_temp_c", "max", None),
    ("sim", "highest oil temperature on lap 5?", "oil_temp_c", "max", 5),
    ("sim", "lowest oil pressure all session", "oil_press_bar", "min", None),
    ("sim", "whats the lowest oil pressure on lap 5", "oil_press_bar", "min", 5),
    ("sim", "min fuel pressure?", "fuel_press_bar", "min", None),
    ("sim", "peak revs lap 6?", "rpm", "max", 6),
    ("sim", "what rpm did i hit?", "rpm", "max", None),
    ("sim", "throttle position max on lap 2", "throttle_pct", "max", 2),
    ("sim", "lowest battery voltage?", "battery_v", "min", None),
    ("sim", "what was the highest water temperature and on which lap?", "water_temp_c", "max", None),
    ("sim", "coolant temp min and max", "water_temp_c", "max", None),
    ("sim", "oil pressure range on lap 3", "oil_press_bar", "max", 3),
    ("sim", "what was the min and max oil pressure over the session", "oil_press_bar", "max", None),
    ("vbox", "what was my peak coolant temp?", "Coolant Temperature (°C)", "max", None),
    ("vbox", "coolant temperature peaked at?", "Coolant Temperature (°C)", "max", None),
    ("vbox", "wots the max h2o temp", "Coolant Temperature (°C)", "max", None),
    ("vbox", "max water temp lap 3", "Coolant Temperature (°C)", "max", 3),
    ("vbox", "was my coolant over 100 degrees at any point?", "Coolant Temperature (°C)", "max", None),
    ("vbox", "water temp in fahrenheit?", "Coolant Temperature (°C)", "max", None),
    ("vbox", "oil pressure lowest on lap 2", "Oil Pressure (bar)", "min", 2),
    ("vbox", "oil pressure psi max", "Oil Pressure (bar)", "max", None),
    ("vbox", "oil temp lap 5 highest?", "Oil Temperature (°C)", "max", 5),
    ("vbox", "max engine speed", "Engine Speed (rpm)", "max", None),
    ("vbox", "what's the highest rpm i saw on lap 4", "Engine Speed (rpm)", "max", 4),
    ("vbox", "what revs was i pulling on lap 2", "Engine Speed (rpm)", "max", 2),
    ("vbox", "highest rpm of the session", "Engine Speed (rpm)", "max", None),
    ("vbox", "max brake pressure lap 3", "Brake Pressure (bar)", "max", 3),
    ("vbox", "min battery volts", "Battery Voltage (V)", "min", None),
    ("kart", "water temp max?", "Water Temp", "max", None),
    ("kart", "whats the max water temp on lap 8", "Water Temp", "max", 8),
    ("kart", "did the water get over 55 degrees?", "Water Temp", "max", None),
    ("kart", "what was my max rpm on lap 5?", "RPM", "max", 5),
    ("kart", "how high did the rpm go", "RPM", "max", None),
    ("kart", "lowest rpm on lap 6?", "RPM", "min", 6),
    ("kart", "did i hit 15000 rpm?", "RPM", "max", None),
    ("kart", "is my max value smaller than the average value?", "GPS Speed", "max", None),
]


@pytest.mark.parametrize(("sess", "text", "channel", "fn", "lap"), CHANNEL)
def test_a_channel_in_drivers_words_gives_its_true_figure(
    files_lake: dict[str, Any], raw: Raw, sess: str, text: str, channel: str, fn: str, lap: int | None
) -> None:
    got = answer_of(text, files_lake[sess])
    figs = [_num(v) for v in re.findall(r"(-?[\d,]+(?:\.\d+)?) (?:°C|bar|rpm|km/h|V|%)", got.text)]
    assert figs, got.text
    tol = 1.0 if "rpm" in channel.lower() else 0.06
    assert figs[0] == pytest.approx(raw(sess, channel, lap, fn), abs=tol), got.text
    if lap is not None:
        assert f"lap {lap}" in got.text, got.text


EACH_LAP = [
    ("sim", "oil temp each lap pls", "oil_temp_c"),
    ("sim", "quick one: oil temps per lap?", "oil_temp_c"),
    ("sim", "max rpm per lap please", "rpm"),
    ("vbox", "water temp per lap", "Coolant Temperature (°C)"),
    ("kart", "what's the peak rpm each lap?", "RPM"),
]


@pytest.mark.parametrize(("sess", "text", "channel"), EACH_LAP)
def test_a_channel_per_lap_gives_every_laps_true_peak(
    files_lake: dict[str, Any], raw: Raw, sess: str, text: str, channel: str
) -> None:
    got = answer_of(text, files_lake[sess])
    said = {int(n): _num(v) for n, v in re.findall(r"\blap (\d+) ([\d,]+(?:\.\d+)?)", got.text)}
    assert len(said) >= 5, got.text
    tol = 1.0 if "rpm" in channel.lower() else 0.06
    for n, v in said.items():
        assert v == pytest.approx(raw(sess, channel, n, "max"), abs=tol), (n, got.text)


# the oil light: no logger records the lamp; the oil pressure's drop under load is what it shows
OIL_LIGHT = [
    "did the oil light come on on lap {lap}?",
    "oil pressure warning light on lap {lap}, did it flash?",
    "did the low oil light flicker on lap {lap} in the fast left?",
    "I saw the oil pressure light blink mid session, was that real?",
    "does the low oil pressure light alert me to potential problems?",
    # a vital lost: its drop, never time lost
    "did I lose oil pressure at some point?",
    "was there no oil pressure anywhere??",
]


@pytest.mark.parametrize("text", OIL_LIGHT)
def test_the_oil_light_asked_is_the_oil_pressures_drop_with_its_lap(
    files_lake: dict[str, Any], text: str
) -> None:
    sim = files_lake["sim_obj"]
    oil = sim.wide["oil_press_bar"]
    low = float(np.nanmin(oil))  # our own reading: the drop's floor and the lap it was on
    lap = _lap_of(sim, float(sim.wide["t_s"][int(np.nanargmin(oil))]))
    got = answer_of(text.format(lap=lap), files_lake["sim"])  # "{lap}": the lap of this seed's drop
    assert "oil pressure was not OK" in got.text, got.text
    assert f"lap {lap}," in got.text and f"lowest {low:.2f} bar" in got.text, got.text


def test_the_oil_light_of_a_file_with_no_drop_is_ok_with_the_true_range(
    files_lake: dict[str, Any], raw: Raw
) -> None:
    ch = "Oil Pressure (bar)"
    lo, hi = raw("vbox", ch, None, "min"), raw("vbox", ch, None, "max")
    got = answer_of("did the oil light come on?", files_lake["vbox"])
    assert got.text.startswith("Your oil pressure was OK: never below"), got.text
    assert f"ranged from {lo:.2f} bar to {hi:.2f} bar" in got.text, got.text


# what no logger channel holds: the track, the air, the car itself; named, "not recorded", never a figure
NOT_RECORDED = [
    ("sim", "whats the track temp?", "Track and air temperature is"),
    ("sim", "what was the ambient temperature?", "Track and air temperature is"),
    ("sim", "how hot was it outside?", "Track and air temperature is"),
    ("sim", "how hot was the asphalt?", "Track and air temperature is"),
    ("sim", "what was the track temperature today?", "Track and air temperature is"),
    ("vbox", "did the track get over 140 degrees?", "Track and air temperature is"),
    ("kart", "did the track get hot?", "Track and air temperature is"),
    ("kart", "what was the air temperature?", "Track and air temperature is"),
    ("sim", "is the chassis twisted?", "Chassis straightness and alignment is"),
    ("sim", "what camber am i running?", "Chassis straightness and alignment is"),
    ("sim", "what's my camber and toe?", "Chassis straightness and alignment is"),
    ("vbox", "is the chassis straight?", "Chassis straightness and alignment is"),
    ("kart", "is the chassis twisted ( tweaked )?", "Chassis straightness and alignment is"),
    ("kart", "is my axle bent?", "Chassis straightness and alignment is"),
    ("sim", "how heavy is my car?", "The weight of the car or kart is"),
    ("vbox", "how much did the car weigh?", "The weight of the car or kart is"),
    ("kart", "is my kart too heavy?", "The weight of the car or kart is"),
    ("sim", "how much horsepower does the car make?", "Engine power and torque is"),
    ("sim", "how much hp does it put out?", "Engine power and torque is"),
    ("sim", "whats my final drive ratio?", "Gearing (sprockets and ratios) is"),
    ("kart", "what gearing was i running?", "Gearing (sprockets and ratios) is"),
    ("kart", "what sprocket should I run?", "Gearing (sprockets and ratios) is"),
    ("sim", "did the gearbox get hot?", "Gearbox and differential temperature is"),
    ("sim", "did the brakes fade?", "Brake temperatures are"),
    ("vbox", "brake temps?", "Brake temperatures are"),
    ("vbox", "am I over cooking the brakes?", "Brake temperatures are"),  # never the coolant (stop 51)
    ("vbox", "were the brakes too hot?", "Brake temperatures are"),  # never the brake markers
    ("kart", "What PSI am I running?", "Tyre pressures are"),
    ("sim", "what were my intake air temps?", "Intake air temperature is"),
    ("sim", "was the car running rich?", "Lambda (air-fuel ratio) is"),
    ("vbox", "what was my air fuel ratio on the best lap?", "Lambda (air-fuel ratio) is"),
    ("sim", "did the motor knock?", "Engine knock is"),
    ("vbox", "what was the boost doing?", "Boost pressure is"),
    ("sim", "what were my shock speeds?", "Suspension travel is"),
    ("vbox", "what tyre pressures was I running?", "Tyre pressures are"),
    ("vbox", "exhaust temp max?", "Exhaust gas temperature is"),
    ("kart", "what was my CHT?", "Cylinder head temperature is"),
    ("kart", "how LATE am I applying FULL power?", "Throttle is"),
    ("vbox", "battery soc at the end?", "Battery state of charge and current is"),
]


@pytest.mark.parametrize(("sess", "text", "said"), NOT_RECORDED)
def test_what_no_channel_holds_is_named_as_not_recorded(
    files_lake: dict[str, Any], sess: str, text: str, said: str
) -> None:
    got = answer_of(text, files_lake[sess])
    assert got.text.startswith(f"{said} not recorded in this session's file."), got.text
    assert not re.search(r"\d", got.text.replace("air-fuel", "")), got.text  # no figure of another channel


# a reading asked by its spread or its consistency that the file does not record: named as not recorded,
# never "I can answer lap times ..." alone
UNDERSTOOD_NOT_RECORDED = [
    ("vbox", "are my tyre pressures all over the place from lap to lap?", "tyre pressures are"),
    ("kart", "was the boost consistent?", "boost pressure is"),
]


@pytest.mark.parametrize(("sess", "text", "said"), UNDERSTOOD_NOT_RECORDED)
def test_a_reading_asked_another_way_is_still_named_as_not_recorded(
    files_lake: dict[str, Any], sess: str, text: str, said: str
) -> None:
    got = answer_of(text, files_lake[sess])
    assert f"{said} not recorded in this session's file." in got.text.lower(), got.text

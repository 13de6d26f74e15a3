"""Channels, measures not recorded, engine speed, health and alarms, asked in drivers' words (forum style:
shorthand, the logger's own channel spellings, typos, context before the question) of the simulated
session and the real VBOX, MyChron and AiM XRK files. Every figure is checked against our own reading of
the raw file (``tests/support/truth.py``) or the simulator's samples, never against Pitwall's tools."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.support.asking import ask_planned

LABELS = {  # our own words for each file's raw channels (the answer's names of what is recorded)
    "vbox": {
        "Coolant Temperature (°C)": "coolant temperature",
        "Oil Temperature (°C)": "oil temperature",
        "Oil Pressure (bar)": "oil pressure",
        "Water Press (Calc) (psi)": "coolant pressure",
        "Brake Pressure (bar)": "brake pressure",
        "Engine Speed (rpm)": "engine speed",
        "Throttle Position (%)": "throttle",
        "Brake Position (%)": "brake pedal",
        "Steering Angle (Degrees)": "steering angle",
        "Battery Voltage (V)": "battery voltage",
        "Lateral acceleration (g)": "lateral g",
    },
    "kart": {
        "Water Temp": "coolant temperature",
        "RPM": "engine speed",
        "Int Batt Voltage": "battery voltage",
        "GyroZ": "yaw rate",
        "GPS LatAcc": "lateral g",
    },
}


def _num(text: str) -> float:
    return float(text.replace(",", ""))


# a channel asked of a set of laps: every lap of the set, then the set's own figure
SETS = [
    ("sim", "what was the max oil temp on laps 3 to 5?", "oil_temp_c", "max", [3, 4, 5]),
    ("sim", "min oil pressure laps 2-4", "oil_press_bar", "min", [2, 3, 4]),
    ("sim", "highest water temp on each of my last 3 laps", "water_temp_c", "max", None),
    ("sim", "what's the highest rpm on the last 4 laps", "rpm", "max", None),
    ("sim", "avg revs over laps 2 thru 6, seems low?", "rpm", "avg", [2, 3, 4, 5, 6]),
    ("sim", "top speed on laps 2 to 4 pls", "speed_kmh", "max", [2, 3, 4]),
    (
        "sim",
        "so the car felt flat late on: lowest fuel press on laps 5, 6 and 7?",
        "fuel_press_bar",
        "min",
        [5, 6, 7],
    ),
    ("vbox", "coolant temp on laps 5 through 7", "Coolant Temperature (°C)", "max", [5, 6, 7]),
    ("vbox", "lowest oil pressure on laps 3, 4 and 5", "Oil Pressure (bar)", "min", [3, 4, 5]),
    ("vbox", "average oil temperature laps 4-6?", "Oil Temperature (°C)", "avg", [4, 5, 6]),
    ("kart", "H2O max on laps 4 to 7", "Water Temp", "max", [4, 5, 6, 7]),
    ("kart", "max RPM laps 10-13, was the gearing right?", "RPM", "max", [10, 11, 12, 13]),
]


def _tol(channel: str, fn: str) -> float:
    """Rounding of the answer (0.1, a whole rpm), and for a mean a lap's edges resampled."""
    base = 1.0 if channel.lower() == "rpm" else 0.06
    return base * 20 if fn == "avg" else base


@pytest.mark.parametrize(("sess", "text", "channel", "fn", "laps"), SETS)
def test_a_channel_over_a_set_of_laps_gives_every_lap_and_the_sets_figure(
    files_lake, raw, sess: str, text: str, channel: str, fn: str, laps: list[int] | None
) -> None:
    if laps is None:  # "my last 3 laps": the last full laps of the simulator's truth
        full = [x["lap"] for x in files_lake["sim_obj"].truth.laps if x["kind"] == "full"]
        laps = full[-int(re.search(r"last (\d) laps", text).group(1)) :]  # type: ignore[union-attr]
    got = ask_planned(files_lake[sess], text)
    *each, whole = got.text.split("; ")
    said = {int(n): _num(v) for n, v in re.findall(r"\blap (\d+) ([\d,]+(?:\.\d+)?)", "; ".join(each))}
    assert list(said) == laps, got.text
    for n in laps:
        assert said[n] == pytest.approx(raw(sess, channel, n, fn), abs=_tol(channel, fn)), (
            n,
            got.text,
        )
    word = {"max": "highest", "min": "lowest", "avg": "average"}[fn]
    m = re.match(rf"(?:{word}|over) (?:of )?the {len(laps)} laps ([\d,]+(?:\.\d+)?)", whole)
    assert m, got.text
    if fn == "avg":  # the mean of every sample of the set: between its laps' own means
        assert min(said.values()) - 0.1 <= _num(m.group(1)) <= max(said.values()) + 0.1, got.text
        return
    truth = {n: raw(sess, channel, n, fn) for n in laps}
    at = (max if fn == "max" else min)(laps, key=lambda n: truth[n])
    assert _num(m.group(1)) == pytest.approx(truth[at], abs=_tol(channel, fn)), got.text
    assert whole.endswith(f", on lap {at}.") or said[at] == _num(m.group(1)), got.text


# a channel named in the logger's own spelling or the forums' shorthand: its figure, on the lap or the session
ONE = [
    ("sim", "OilP lowest on lap 4", "oil_press_bar", "min", 4),
    ("sim", "Oil Press min lap 6", "oil_press_bar", "min", 6),
    ("sim", "whats the H2O temp max", "water_temp_c", "max", None),
    ("sim", "Water Temp peak?", "water_temp_c", "max", None),
    ("sim", "EOP min?", "oil_press_bar", "min", None),
    ("sim", "Water Press max", "water_press_bar", "max", None),
    ("sim", "peak brake press on lap 3, think i'm not pushing the pedal hard enough", "brake_bar", "max", 3),
    ("sim", "Fuel Press lowest lap 3", "fuel_press_bar", "min", 3),
    ("sim", "what was the max rpm on lap 5", "rpm", "max", 5),
    ("sim", "max revs l7?", "rpm", "max", 7),
    ("vbox", "Water Temp max", "Coolant Temperature (°C)", "max", None),
    ("vbox", "Oil Press lowest", "Oil Pressure (bar)", "min", None),
    ("vbox", "what was my oil pressure on lap 4, lowest? (in psi is fine)", "Oil Pressure (bar)", "min", 4),
    ("vbox", "max rpm", "Engine Speed (rpm)", "max", None),
    ("vbox", "how hot did the oil get on lap 6", "Oil Temperature (°C)", "max", 6),
    ("kart", "H2O peak on lap 5", "Water Temp", "max", 5),
    ("kart", "Water Temp max", "Water Temp", "max", None),
    ("kart", "whats the lowest water temp", "Water Temp", "min", None),
    ("kart", "RPM on lap 4", "RPM", "max", 4),
    ("kart", "the top RPM I turned all session?", "RPM", "max", None),
    ("kart", "did i hit 16k rpm anywhere", "RPM", "max", None),
    ("kart", "avg rpm?", "RPM", "avg", None),
]


@pytest.mark.parametrize(("sess", "text", "channel", "fn", "lap"), ONE)
def test_a_channel_in_the_loggers_own_spelling_gives_its_figure(
    files_lake, raw, sess: str, text: str, channel: str, fn: str, lap: int | None
) -> None:
    got = ask_planned(files_lake[sess], text)
    figs = [_num(v) for v in re.findall(r"(-?[\d,]+(?:\.\d+)?) (?:°C|bar|rpm|km/h)", got.text)]
    assert figs, got.text
    want = raw(sess, channel, lap, fn)
    tol = (1.0 if "rpm" in channel.lower() else 0.06) * (20 if fn == "avg" else 1)
    if lap is None and fn == "avg":  # over the racing laps: our own mean of their samples
        st = files_lake["truth"][sess]
        want = float(np.nanmean(np.concatenate([st.channels[channel][st.in_lap(x)] for x in st.racing])))
        tol = 0.01 * want
    assert figs[0] == pytest.approx(want, abs=tol), got.text
    if lap is not None:
        assert f"lap {lap}" in got.text, got.text


# our own units of the labels: a measure the file lacks is answered with what it records in the same unit
ALIKE = {
    "c": {"coolant temperature", "oil temperature", "tyre temperatures"},
    "bar": {"oil pressure", "coolant pressure", "fuel pressure", "tyre pressures", "brake pressure"},
}
NOT_RECORDED = [
    ("kart", "what was my EGT reading at the top of the straight?", "Exhaust gas temperature is", "c"),
    (
        "kart",
        "whats the exhaust temp doing, my egt seems low, jetting too lean?",
        "Exhaust gas temperature is",
        "c",
    ),
    ("kart", "what were my tyre temps after the session", "Tyre temperatures are", "c"),
    ("kart", "tire pressures?", "Tyre pressures are", "bar"),
    ("kart", "am I getting full throttle down the straight or lifting?", "Throttle is", None),
    ("kart", "oil pressure ok? the x30 has no oil pump i think", "Your oil pressure: not recorded", "bar"),
    ("kart", "what was my lambda", "Lambda (air-fuel ratio) is", None),
    ("kart", "whats my brake pressure peak", "Brake pressure is", "bar"),
    ("kart", "suspension travel?", "Suspension travel is", None),
    ("kart", "how was my ride height, bottoming out at t3?", "Suspension travel is", None),
    ("kart", "how much steering lock am I using in the hairpin", "Steering angle is", None),
    ("vbox", "boost?", "Boost pressure is", "bar"),
    ("vbox", "EGT max?", "Exhaust gas temperature is", "c"),
    ("vbox", "knock?", "Engine knock is", None),
    ("vbox", "tyre temps after lap 5", "Tyre temperatures are", "c"),
    ("vbox", "whats my lambda / AFR", "Lambda (air-fuel ratio) is", None),
    ("vbox", "what was the turbo doing on the back straight", "Boost pressure is", "bar"),
    ("vbox", "trans temp ok?", "Gearbox and differential temperature is", "c"),
    ("vbox", "how hot did the battery get", "Battery temperature is", "c"),
    ("vbox", "what were the pyrometer readings after the session", "Tyre temperatures are", "c"),
    ("vbox", "whats the diff temp", "Gearbox and differential temperature is", "c"),
    ("vbox", "brake fluid temp? pedal went long", "Brake temperatures are", "c"),
    ("vbox", "is the engine going lean up top?", "Lambda (air-fuel ratio) is", None),
    ("kart", "spark plug temp? the washer sensor", "Cylinder head temperature is", "c"),
]


@pytest.mark.parametrize(("sess", "text", "said", "unit"), NOT_RECORDED)
def test_a_measure_the_file_lacks_is_not_recorded_with_what_it_records_instead(
    files_lake, sess: str, text: str, said: str, unit: str | None
) -> None:
    got = ask_planned(files_lake[sess], text)
    assert got.text.startswith(said) and "not recorded" in got.text, got.text
    assert not re.search(r"\d", got.text.replace("air-fuel", "")), got.text  # no figure of another channel
    chans = files_lake["truth"][sess].channels
    have = {name for ch, name in LABELS[sess].items() if ch in chans and np.nanmax(np.abs(chans[ch])) > 0}
    m = re.search(r"It records (.+) instead\.$", got.text)
    assert m, got.text
    named = set(re.split(r", | and ", m.group(1)))
    alike = have & ALIKE.get(unit or "", set())
    if alike:
        assert named == alike, got.text
    else:
        assert named <= have and len(named) == min(6, len(have)), got.text


def test_a_vital_the_xrk_lacks_says_so_and_judges_none(files_lake) -> None:
    chans = files_lake["truth"]["agx"].channels
    assert not [c for c in chans if re.search(r"water|coolant|oil|tyre|tire", c, re.I)]  # our own reading
    assert ask_planned(files_lake["agx"], "temps ok?").text == (
        "Not recorded in this session: coolant temperature, oil temperature, tyre temperatures."
    )
    got = ask_planned(files_lake["agx"], "water temp?")
    assert got.text.startswith("Coolant temperature is not recorded in this session's file."), got.text
    assert not re.search(r"\d", got.text), got.text


HEALTH = [
    ("kart", "engine ok?"),
    ("kart", "engine temps fine?"),
    ("kart", "was the motor ok temperature wise? water looked high on the dash"),
    ("kart", "so I ran the X30 today in the heat and I'm a bit worried: did the water temp get over 60c?"),
    ("vbox", "engine ok?"),
    ("vbox", "temps ok?"),
    ("vbox", "hows the health of the engine after that stint, anything to worry about?"),
    ("vbox", "did the engine overheat"),
    ("vbox", "is my cooling system ok"),
    ("vbox", "any red flags in the engine data?"),
    ("vbox", "did driving at high speeds make my car run hot?"),
    ("vbox", "was the car overheating towards the end?"),
    ("vbox", "how's the car holding up"),
    ("vbox", "is the engine healthy?"),
    ("sim", "did it run hot?"),
    ("sim", "did the car run hot at all today?"),
    ("sim", "engine temps all good? first time out with the new rad"),
    ("sim", "did the coolant go above 100c?"),
    ("kart", "how hot did the motor get?"),
    ("kart", "is my water temp too low? I taped the radiator"),
    ("kart", "did the temp light come on?"),
]


@pytest.mark.parametrize(("sess", "text"), HEALTH)
def test_engine_health_gives_the_coolants_true_range(files_lake, raw, sess: str, text: str) -> None:
    ch = {"kart": "Water Temp", "vbox": "Coolant Temperature (°C)", "sim": "water_temp_c"}[sess]
    lo, hi = (raw(sess, ch, None, fn) for fn in ("min", "max"))
    got = ask_planned(files_lake[sess], text)
    assert f"Over the session it ranged from {lo:.1f} °C to {hi:.1f} °C." in got.text, got.text
    if text == "engine ok?":  # every vital judged; what the file lacks said in one line
        lacking = {"kart": "oil pressure, oil temperature, tyre temperatures", "vbox": "tyre temperatures"}
        assert got.text.endswith(f"Not recorded in this session: {lacking[sess]}."), got.text


@pytest.mark.parametrize(("sess", "text"), [("kart", "any warnings on the dash?"), ("kart", "any alarms?")])
def test_a_file_with_no_alarm_channel_says_so(files_lake, sess: str, text: str) -> None:
    chans = files_lake["truth"][sess].channels
    assert not [c for c in chans if re.search(r"alarm|warn", c, re.I)]  # our own reading of the file
    assert ask_planned(files_lake[sess], text).text.startswith(
        "No alarm or warning channel was recorded in this session's file"
    )

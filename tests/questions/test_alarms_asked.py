"""Warnings, the engine warning light, the rev limit and every lap's peak revs, asked in drivers' words of
the simulated session (its TPMS alarm and engine speed known sample by sample) and the real VBOX file;
every figure checked against the simulator's samples or our own reading of the raw file."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from tests.support.asking import ask_planned
from tests.support.truth import vbox_truth

SIDE = {"fl": "front-left", "fr": "front-right", "rl": "rear-left", "rr": "rear-right"}


def _alarm(sim: Any) -> tuple[str, int, float]:
    """Our own reading of the simulator's TPMS alarm columns: the wheel, the lap it came on, how long."""
    on = {k: sim.wide["t_s"][sim.wide[k] > 0.5] for k in sim.wide if k.startswith("tpms_alarm_")}
    ((wheel, t),) = [(k[-2:], v) for k, v in on.items() if len(v)]
    lap = next(x["lap"] for x in sim.truth.laps if x["t_start_s"] <= t[0] < x["t_end_s"])
    return SIDE[wheel], lap, float(t[-1] - t[0])


@pytest.mark.parametrize(
    "text",
    [
        "any alarms?",
        "did the car throw any warnings during the session",
        "were there any tpms alerts",
        "did any warning lights come on",
        "did the dash show any faults or error codes",
        "did any alarm go off and when",
        "any low tire pressure warning?",
        "did the tpms go off",
        "did my tpms light come on?",
        "tyre pressure warning on the dash - which tyre was it?",
        "my dash lit up at some point, what was it?",
        "were there any fault codes?",
        "was there a tyre pressure alert at any point?",
        "did the tyre pressure light come on?",
        "did the TPMS symbol come on on the dashboard?",
    ],
)
def test_the_files_own_alarm_is_named_with_its_lap(q_lake, text: str) -> None:
    side, lap, secs = _alarm(q_lake["sim_obj"])
    got = ask_planned(q_lake["sim"], text)
    assert got.text.startswith(f"Yes, 1 warning: the {side} tyre pressure alarm was on for "), got.text
    assert f" s on lap {lap}" in got.text, got.text
    said = float(re.search(r"on for ([\d.]+) s", got.text).group(1))  # type: ignore[union-attr]
    assert said == pytest.approx(secs, abs=1.0), got.text


def test_the_engine_light_asked_is_answered_first_and_the_other_warning_beside_it(q_lake) -> None:
    sim = q_lake["sim_obj"]
    assert np.nanmax(sim.wide["mil"]) < 0.5  # our own reading: the light never came on
    side, lap, _ = _alarm(sim)
    got = ask_planned(q_lake["sim"], "did the check engine light come on")
    assert got.text.startswith("The engine warning light never came on. Other warnings: 1 warning: "), (
        got.text
    )
    assert f"the {side} tyre pressure alarm" in got.text and f"on lap {lap}" in got.text, got.text


def test_a_file_with_no_alarm_channel_says_so(q_lake) -> None:
    raw = vbox_truth(q_lake["vbox_path"]).channels
    assert not [c for c in raw if re.search(r"alarm|warn", c, re.I)]  # our own reading of the file
    for text in ("any alarms?", "did any warning light come on during the session?"):
        assert ask_planned(q_lake["vbox"], text).text.startswith(
            "No alarm or warning channel was recorded"
        ), text


@pytest.mark.parametrize("text", ["peak revs per lap?", "highest rpm each lap", "max revs on each lap pls"])
def test_peak_revs_per_lap_are_every_valid_laps_own(q_lake, text: str) -> None:
    sim = q_lake["sim_obj"]
    got = ask_planned(q_lake["sim"], text)
    said = {int(n): float(v) for n, v in re.findall(r"lap (\d+) (\d+) rpm", got.text)}
    full = [x for x in sim.truth.laps if x["kind"] == "full"]
    assert sorted(said) == [x["lap"] for x in full], got.text
    for x in full:
        m = (sim.wide["t_s"] >= x["t_start_s"]) & (sim.wide["t_s"] <= x["t_end_s"])
        assert said[x["lap"]] == pytest.approx(float(np.nanmax(sim.wide["rpm"][m])), abs=1.0), got.text


@pytest.mark.parametrize(
    "text",
    ["did I overrev it anywhere", "was i bouncing off the limiter on the straight?", "did i redline it"],
)
def test_the_rev_limit_asked_gives_the_highest_engine_speed(q_lake, text: str) -> None:
    raw = vbox_truth(q_lake["vbox_path"]).channels["Engine Speed (rpm)"]
    got = ask_planned(q_lake["vbox"], text)
    assert f"highest {float(np.nanmax(raw)):,.0f} rpm" in got.text, got.text


def _lap_mask(sim: Any, n: int) -> np.ndarray:
    x = next(y for y in sim.truth.laps if y["lap"] == n)
    return (sim.wide["t_s"] >= x["t_start_s"]) & (sim.wide["t_s"] <= x["t_end_s"])


def test_a_range_asked_never_calls_the_lowest_the_highest(q_lake) -> None:
    sim = q_lake["sim_obj"]
    lap6 = sim.wide["rpm"][_lap_mask(sim, 6)]
    hi, low = float(np.nanmax(lap6)), float(np.nanmin(lap6))
    got = ask_planned(q_lake["sim"], "whats the rpm range of my engine from min to max on lap 6")
    assert got.text == f"Engine speed on lap 6: highest {hi:.0f} rpm, lowest {low:.0f} rpm.", got.text
    lo = float(np.nanmin(sim.wide["speed_kmh"]))
    got = ask_planned(q_lake["sim"], "lowest top speed?")
    assert got.text.startswith(f"Your lowest speed was {lo:.1f} km/h"), got.text


@pytest.mark.parametrize("text", ["oil temp and water temp on lap 6?", "oil and coolant temps lap 6 pls"])
def test_oil_and_water_asked_together_are_each_said(q_lake, text: str) -> None:
    sim, m = q_lake["sim_obj"], _lap_mask(q_lake["sim_obj"], 6)
    got = ask_planned(q_lake["sim"], text)
    for col, words in (("water_temp_c", "coolant temperature"), ("oil_temp_c", "oil temperature")):
        lo, hi = float(np.nanmin(sim.wide[col][m])), float(np.nanmax(sim.wide[col][m]))
        assert re.search(rf"your {words} .*?ranged from {lo:.1f} °C to {hi:.1f} °C", got.text), got.text


def test_ever_of_a_vital_is_any_point_of_this_session_and_engine_oil_is_the_oil(q_lake) -> None:
    sim = q_lake["sim_obj"]
    lo, hi = float(np.nanmin(sim.wide["oil_press_bar"])), float(np.nanmax(sim.wide["oil_press_bar"]))
    got = ask_planned(q_lake["sim"], "did oil pressure ever go to zero")  # not the other sessions' best laps
    assert got.text == f"Oil pressure this session: highest {hi:.1f} bar, lowest {lo:.1f} bar.", got.text
    assert ask_planned(q_lake["sim"], "engine oil pressure?").text == got.text
    m = _lap_mask(sim, 8)
    lo, hi = float(np.nanmin(sim.wide["oil_temp_c"][m])), float(np.nanmax(sim.wide["oil_temp_c"][m]))
    got = ask_planned(q_lake["sim"], "how hot did the engine oil run on lap 8")
    assert got.text.startswith(f"On lap 8 your oil temperature ranged from {lo:.1f} °C to {hi:.1f} °C."), (
        got.text
    )


def test_no_abs_intervention_is_said_with_the_lockups_the_wheels_show(q_lake) -> None:
    """ "did ABS kick in as I pressed harder?": the simulator's ABS channel never comes on, so none, and the
    wheels' own lock-ups beside it, at the corners and on the laps the simulator planted them."""
    sim = q_lake["sim_obj"]
    assert float(np.nanmax(sim.wide["abs_active"])) == 0.0
    planted = [(e["lap"], e["corner_id"].upper()) for e in sim.truth.events if e["kind"] == "lockup"]
    got = ask_planned(q_lake["sim"], "did ABS start to kick in as I pressed harder?")
    assert got.text.startswith(f"No ABS interventions this session. {len(planted)} lockups, though: at ")
    (corner,) = {c for _, c in planted}
    laps = sorted(n for n, _ in planted)
    assert f"at {corner} on laps {', '.join(map(str, laps[:-1]))} and {laps[-1]}" in got.text


def test_abs_asked_beside_a_stab_of_the_pedal_is_the_abs(q_lake) -> None:
    """ "a stab of the brake pedal" made the question one of smoothness (every input at once): the ABS
    named beside it is what is asked. The VBOX file has no ABS channel (our own reading of its header):
    not recorded; the simulator's never comes on: none."""
    text = "did the front left tire give up the ghost at any stab of the brake pedal, causing ABS to kick in?"
    raw = vbox_truth(q_lake["vbox_path"]).channels
    assert not [c for c in raw if re.search(r"\babs\b|anti.?lock", c, re.I)]
    got = ask_planned(q_lake["vbox"], text).text
    assert re.search(r"ABS\b.{0,60}not recorded|not recorded.{0,60}ABS\b|no ABS", got, re.I), got
    assert ask_planned(q_lake["sim"], text).text.startswith("No ABS interventions this session.")


def test_a_warning_of_what_no_file_records_is_that_reading_not_another_warning(q_lake) -> None:
    """ "did I get a trans high temp warning?" on the simulated session (its only warning a tyre pressure
    alarm) said "Yes, 1 warning: the front-left tyre pressure alarm": the gearbox temperature asked is
    not recorded, and no other warning is given as its answer."""
    got = ask_planned(q_lake["sim"], "did I get a trans high temp warning?").text
    assert re.search(r"gearbox.{0,80}not recorded", got, re.I), got
    assert not got.startswith("Yes")

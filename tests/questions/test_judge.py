"""The judge family ("was my oil pressure ok?") against the simulator's ground truth and its own signals."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.questions.families import judge
from services.paddock.questions.model import LapRef, Question
from services.paddock.tools.base import session_row
from services.paddock.tools.limits import VITALS
from tests.support.truth import vbox_truth

# Sonoma's track file: T5 ends at 1261.2 m, T6 starts at 1406.2 m (shared/profiles/tracks/sonoma.yaml)
T5_END, T6_START = 1261.2, 1406.2


def _ask(sid: str, measure: str | None, text: str = "was it ok?", laps: tuple[LapRef, ...] = ()) -> Any:
    got = judge.answer(Question(text=text, intent="judge", measure=measure, laps=laps), session_row(sid))
    assert got is not None
    return got


def test_oil_pressure_drop_is_not_ok_with_lap_place_and_time(q_lake) -> None:
    sim = q_lake["sim_obj"]
    drop = sim.truth.events_of("oil_pressure_drop")[0]
    assert T5_END < drop["dist_m"] < T6_START  # the truth's place: after T5, before T6
    w = sim.wide
    # our own count: under 1.0 bar (the E46 profile's limit) while over 3000 rpm and 10 % throttle
    low = (w["oil_press_bar"] < 1.0) & (w["rpm"] > 3000) & (w["throttle_pct"] > 10)
    own_s = float(low.sum()) * 0.02
    assert 0.5 < own_s <= drop["t_end_s"] - drop["t_start_s"] + 0.02
    got = _ask(q_lake["sim"], "oil_pressure", "was my oil pressure ok?")
    res = got.result["vitals"][0]
    assert res["limit"]["value"] == 1.0 and res["limit"]["source"] == "the car profile's limit"
    assert abs(res["outside_s"] - own_s) < 0.021
    (c,) = res["crossings"]
    assert c["lap"] == drop["lap"] and abs(c["t_s"] - drop["t_start_s"]) < 0.05
    assert abs(c["dist_m"] - drop["dist_m"]) < 15 and c["corner"] == "t5" and not c["in_corner"]
    assert c["worst"] == 0.6
    assert [x["lap"] for x in res["laps"] if x["outside_s"]] == [drop["lap"]]
    assert got.text.startswith("Your oil pressure was not OK: it went below 1.00 bar under load")
    assert f"lap {drop['lap']}, " in got.text and "after T5 (lowest 0.60 bar" in got.text
    assert f"{own_s:.2f} s in total" in got.text
    assert "oil_press" not in got.text


def test_coolant_is_ok_and_its_figures_are_the_files(q_lake) -> None:
    w = q_lake["sim_obj"].wide["water_temp_c"]
    got = _ask(q_lake["sim"], "coolant_temp", "is my coolant too hot?")
    res = got.result["vitals"][0]
    assert res["crossings"] == [] and res["outside_s"] == 0.0
    assert res["max"] == round(float(np.max(w)), 1) and res["min"] == round(float(np.min(w)), 1)
    assert float(np.max(w)) < 105.0  # our own check that the verdict is right
    assert got.text == (
        "Your coolant temperature was OK: never above 105.0 °C (the car profile's limit). Over the session it "
        f"ranged from {np.min(w):.1f} °C to {np.max(w):.1f} °C."
    )


def test_per_lap_maximum_matches_our_own_lap_windows(q_lake) -> None:
    sim = q_lake["sim_obj"]
    t, w = sim.wide["t_s"], sim.wide["oil_temp_c"]
    res = _ask(q_lake["sim"], "oil_temp").result["vitals"][0]
    by_lap = {x["lap"]: x for x in res["laps"]}
    for lp in sim.truth.laps:
        if lp["kind"] != "full":
            continue
        inside = (t >= lp["t_start_s"] + 0.1) & (t < lp["t_end_s"] - 0.1)
        assert abs(by_lap[lp["lap"]]["max"] - float(np.max(w[inside]))) < 0.3, lp["lap"]


def test_a_vital_without_a_limit_gets_figures_and_no_verdict(q_lake) -> None:
    w = q_lake["sim_obj"].wide["oil_temp_c"]
    got = _ask(q_lake["sim"], "oil_temp")
    res = got.result["vitals"][0]
    assert res["limit"] is None and res["outside_s"] is None
    assert f"ranged from {np.min(w):.1f} °C to {np.max(w):.1f} °C" in got.text
    assert "no limit for oil temperature on this car, so no verdict" in got.text
    assert "OK" not in got.text


def test_a_vital_the_file_lacks_is_not_recorded(q_lake) -> None:
    got = _ask(q_lake["vbox"], "tyre_temp", "are my tyre temps fine?")
    # and what the VBOX file records instead in degrees (our own reading: its coolant and oil channels)
    raw = vbox_truth(q_lake["vbox_path"]).channels
    assert "Coolant Temperature (°C)" in raw and "Oil Temperature (°C)" in raw
    assert got.text == (
        "Your tyre temperatures: not recorded in this session. "
        "It records coolant temperature and oil temperature instead."
    )
    assert got.result["vitals"][0]["recorded"] is False


def test_temps_in_general_judge_each_and_list_what_is_missing(q_lake) -> None:
    got = _ask(q_lake["vbox"], None, "are my temps fine?")
    # every vital is looked at; of the ones the file lacks only the general ones are named
    assert [x["measure"] for x in got.result["vitals"]][: len(judge.GENERAL)] == list(judge.GENERAL)
    assert {x["measure"] for x in got.result["vitals"]} == set(VITALS)
    assert got.text.endswith("Not recorded in this session: tyre temperatures.")
    assert "fuel" not in got.text  # not recorded, and no general vital: not named
    assert "Your coolant temperature was OK: never above 105.0 °C (Pitwall's default limit)." in got.text
    # our own reading of the file: the oil pressure dips under 1 bar, but never under load
    raw = vbox_truth(q_lake["vbox_path"]).channels
    oil, rpm, thr = raw["Oil Pressure (bar)"], raw["Engine Speed (rpm)"], raw["Throttle Position (%)"]
    assert np.nanmin(oil) < 1.0 and np.nanmin(oil[(rpm > 3000) & (thr > 10)]) >= 1.0
    assert "Your oil pressure was OK: never below 1.00 bar under load (Pitwall's default limit)." in got.text


def test_a_measure_that_is_no_vital_is_left_to_another_family(q_lake) -> None:
    assert (
        judge.answer(
            Question(text="throttle ok?", intent="judge", measure="throttle"), session_row(q_lake["sim"])
        )
        is None
    )


def test_the_drivers_own_car_profile_sets_the_limit(q_lake) -> None:
    sim = q_lake["sim_obj"]
    w, t = sim.wide["water_temp_c"], sim.wide["t_s"]
    hot = w > 90.0  # the profile's coolant_max_c
    got = _ask(q_lake["own_car"], "coolant_temp", "is my coolant too hot?")
    res = got.result["vitals"][0]
    assert res["limit"] == {
        "value": 90.0,
        "side": "max",
        "source": "the car profile's limit",
        "under_load": False,
    }
    assert abs(res["outside_s"] - float(hot.sum()) * 0.02) < 0.021
    first = float(t[np.flatnonzero(hot)[0]])
    assert abs(res["crossings"][0]["t_s"] - first) < 0.03
    assert got.text.startswith(
        "Your coolant temperature was not OK: it went above 90.0 °C (the car profile's limit)"
    )


def test_engine_speed_against_the_profiles_redline(q_lake) -> None:
    rpm = q_lake["sim_obj"].wide["rpm"]
    assert float(np.max(rpm)) < 7900  # the E46 profile's redline
    got = _ask(q_lake["sim"], "rpm")
    assert got.text == (
        "Your engine speed was OK: never above 7,900 rpm (the car profile's redline). Over the session it "
        f"ranged from {np.min(rpm):,.0f} rpm to {np.max(rpm):,.0f} rpm."
    )


def test_a_generic_car_has_no_redline_to_judge_by(q_lake) -> None:
    got = _ask(q_lake["vbox"], "rpm")
    assert got.result["vitals"][0]["limit"] is None and "so no verdict" in got.text


def test_a_named_lap_is_judged_on_its_own(q_lake) -> None:
    sim = q_lake["sim_obj"]
    drop = sim.truth.events_of("oil_pressure_drop")[0]
    w, t = sim.wide, sim.wide["t_s"]
    low = (w["oil_press_bar"] < 1.0) & (w["rpm"] > 3000) & (w["throttle_pct"] > 10)
    laps = {lp["lap"]: lp for lp in sim.truth.laps}
    bad, good = drop["lap"], drop["lap"] - 1
    on_bad = (t >= laps[bad]["t_start_s"]) & (t < laps[bad]["t_end_s"])
    got = _ask(q_lake["sim"], "oil_pressure", laps=(LapRef(number=bad), LapRef(number=good)))
    first, second = got.text.split(f". On lap {good} ")
    assert first.startswith(f"On lap {bad} your oil pressure was not OK: it went below 1.00 bar under load")
    assert f"for {float((low & on_bad).sum()) * 0.02:.2f} s: lap {bad}, " in first
    on_good = (t >= laps[good]["t_start_s"] + 0.05) & (t < laps[good]["t_end_s"] - 0.05)
    lo, hi = float(np.min(w["oil_press_bar"][on_good])), float(np.max(w["oil_press_bar"][on_good]))
    assert second.startswith(
        "your oil pressure was OK: never below 1.00 bar under load (the car profile's limit)."
    )
    fig = next(x for x in got.result["vitals"][0]["laps"] if x["lap"] == good)
    assert abs(fig["min"] - lo) < 0.1 and abs(fig["max"] - hi) < 0.1
    assert second.endswith(f"On that lap it ranged from {fig['min']:.2f} bar to {fig['max']:.2f} bar.")

"""Driver questions asked in words on the data path (parse, then the plan), checked against the simulator's
own truth (its lap times and its channels), not against the tools: best, slowest and average lap, top
speed, rpm, consistency, other sessions, a lap the session does not have, and a channel the file does not
record."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.grounding import facts_of, grounding_check
from services.paddock.lake import configure_lake
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.asking import answer_of, plan_of


def _no_oil_sim() -> Any:
    sim = copy.copy(cached_sim(laps=10, seed=7))
    sim.wide = dict(sim.wide)
    sim.wide["oil_press_bar"] = np.full_like(sim.wide["t_s"], np.nan)
    return sim


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from services.paddock import lake as lake_mod

    settings = settings_for(tmp_path_factory.mktemp("routes") / "data")
    sim = cached_sim(laps=10, seed=7)  # room for every kind of event the scenario draws
    sid = import_sim(sim, settings, driver_id="ana").session_id
    other = import_sim(cached_sim(laps=3, seed=9), settings, driver_id="ana").session_id
    no_oil = import_sim(_no_oil_sim(), settings, driver_id="cy").session_id
    configure_lake(settings)
    yield {"sid": sid, "other": other, "no_oil": no_oil, "sim": sim}
    if lake_mod._LAKE is not None:
        lake_mod._LAKE.con.close()
        lake_mod._LAKE = None


def _times(text: str) -> list[float]:
    return [int(m) * 60 + float(s) for m, s in re.findall(r"\b(\d+):(\d{2}\.\d{3})\b", text)]


def _full(sim: Any) -> list[dict[str, Any]]:
    return [x for x in sim.truth.laps if x["kind"] == "full"]


def _answer(q: str, sid: str) -> Any:
    got = answer_of(q, sid)
    assert got is not None, q
    # every figure the answer states is in its own result: the narrator's facts and the check agree
    assert grounding_check(got.text, facts_of(got.text, [got.result])) == []
    return got


@pytest.mark.parametrize(
    "q",
    [
        "what was my best lap?",
        "fastest lap time?",
        "my PB today",
    ],
)
def test_best_lap(lake, q: str) -> None:
    best = min(_full(lake["sim"]), key=lambda x: x["time_s"])
    got = _answer(q, lake["sid"])
    assert f"lap {best['lap']}" in got.text and _times(got.text)[0] == pytest.approx(best["time_s"], abs=0.05)


def test_slowest_and_average_lap(lake) -> None:
    full = _full(lake["sim"])
    slow = max(full, key=lambda x: x["time_s"])
    got = _answer("which was my slowest lap?", lake["sid"])
    assert f"lap {slow['lap']}" in got.text and _times(got.text)[0] == pytest.approx(slow["time_s"], abs=0.05)
    mean = sum(x["time_s"] for x in full) / len(full)
    got = _answer("what was my average lap time?", lake["sid"])
    assert _times(got.text)[0] == pytest.approx(mean, abs=0.05) and f"{len(full)} valid laps" in got.text


def test_top_speed_and_rpm(lake) -> None:
    wide = lake["sim"].wide
    got = _answer("what was my top speed?", lake["sid"])
    kmh = float(re.search(r"([\d.]+) km/h", got.text).group(1))  # type: ignore[union-attr]
    assert kmh == pytest.approx(float(np.nanmax(wide["speed_kmh"])), abs=0.1)
    mph = float(re.search(r"([\d.]+) mph", got.text).group(1))  # type: ignore[union-attr]
    assert mph == pytest.approx(kmh / 1.609344, abs=0.1)
    got = _answer("how high did I rev, max rpm?", lake["sid"])
    rpm = float(re.search(r"(\d+) rpm", got.text).group(1))  # type: ignore[union-attr]
    assert rpm == pytest.approx(float(np.nanmax(wide["rpm"])), abs=1)


def test_consistency(lake) -> None:
    t = np.array([x["time_s"] for x in _full(lake["sim"])])
    got = _answer("how consistent was I?", lake["sid"])
    spread = float(re.search(r"spread by ([\d.]+) s", got.text).group(1))  # type: ignore[union-attr]
    assert spread == pytest.approx(float(np.std(t)), abs=0.02)


def test_a_lap_that_does_not_exist_and_an_out_lap(lake) -> None:
    n = max(x["lap"] for x in lake["sim"].truth.laps) + 5
    got = _answer(f"why was lap {n} slow?", lake["sid"])
    assert got.text.startswith(f"There is no lap {n} in this session")
    got = _answer("how was lap 0?", lake["sid"])
    assert "out lap" in got.text and "not a timed lap" in got.text, got.text


def test_a_channel_the_file_lacks_is_not_recorded(lake) -> None:
    got = _answer("what was my oil pressure?", lake["no_oil"])
    assert got.text.startswith("Oil pressure is not recorded in this session's file. It records ")
    got = answer_of("what was my oil pressure?", lake["sid"])  # recorded: its range, from the samples
    assert got is not None and "highest" in got.text and "not recorded" not in got.text


def test_other_sessions_of_the_same_driver_track_and_car(lake) -> None:
    got = _answer("how did my other sessions go?", lake["sid"])
    assert got.text.startswith("You have 2 sessions of your own at "), got.text  # not cy's
    assert lake["other"] not in got.text  # sessions by their date, never by internal id
    best = min(x["time_s"] for x in _full(cached_sim(laps=3, seed=9)))
    assert _times(got.text)[0] == pytest.approx(best, abs=0.05)


def test_a_lap_comparison_is_not_taken_by_the_best_lap_answer(lake) -> None:
    plan = plan_of("why was lap 3 slower than lap 2?", lake["sid"], None)
    assert plan is not None and plan["tool"] == "get_lap_delta"
    assert plan["args"] == {"session_id": lake["sid"], "lap_a": 2, "lap_b": 3}  # lap 2 is the reference


def test_a_question_about_something_else_is_declined_without_a_figure(lake: dict[str, Any]) -> None:
    for q in ("What is the capital of France?", "Write me a poem about my cat.", "What is 17 times 23?"):
        got = _answer(q, lake["sid"])
        assert "only answer questions about your driving" in got.text and not re.search(r"\d", got.text)
    assert "only answer" not in answer_of("Why was lap 4 slower than lap 2?", lake["sid"]).text


def test_a_question_with_a_picked_intent_or_a_pace_word_is_never_declined(lake: dict[str, Any]) -> None:
    """The tablet's topic picker says what a question is about; "pace" is a driving word."""
    vague = "how is it looking?"  # ("how is it holding up?" is the car's health, judged)
    unsure = answer_of(vague, lake["sid"])  # read as about the data, not understood: said so, no figure
    assert unsure.result == {"understood": True} and unsure.text.startswith("I read this as")
    assert not re.search(r"\d", unsure.text)
    for q, intent in ((vague, "race_pace"), ("how is my pace holding up?", None)):
        got = answer_of(q, lake["sid"], intent)
        assert "only answer" not in got.text, (q, intent)
    assert answer_of(vague, lake["sid"], "race_pace").tool == "get_race_pace_model"


def test_highest_and_lowest_of_a_recorded_channel_match_the_raw_samples(lake: dict[str, Any]) -> None:
    sim = lake["sim"]
    hi, lo = float(np.nanmax(sim.wide["oil_temp_c"])), float(np.nanmin(sim.wide["oil_temp_c"]))
    got = _answer("What was the highest oil temperature?", lake["sid"])
    at = sim.wide["t_s"][int(np.nanargmax(sim.wide["oil_temp_c"]))]  # our own: the lap of the hottest sample
    on = next(x["lap"] for x in sim.truth.laps if x["t_start_s"] <= at < x["t_end_s"])
    assert got.text == f"Your highest oil temperature was {hi:.1f} °C, on lap {on}."
    got = _answer("What was my oil temperature?", lake["sid"])
    assert f"highest {hi:.1f} °C" in got.text and f"lowest {lo:.1f} °C" in got.text
    lap = _full(sim)[1]
    m = (sim.wide["t_s"] >= lap["t_start_s"]) & (sim.wide["t_s"] <= lap["t_end_s"])
    got = _answer(f"What was my lowest oil pressure on lap {lap['lap']}?", lake["sid"])
    want = float(np.nanmin(sim.wide["oil_press_bar"][m]))
    m = re.fullmatch(rf"Your lowest oil pressure on lap {lap['lap']} was ([\d.]+) bar\.", got.text)
    assert m and abs(float(m.group(1)) - want) <= 0.15, got.text


def test_theoretical_best_is_between_the_sum_of_best_corners_and_the_best_lap(lake: dict[str, Any]) -> None:
    got = _answer("What is my theoretical best lap?", lake["sid"])
    theo, best = got.result["theoretical_best_s"], got.result["best_lap_s"]
    assert "theoretical best" in got.text and _times(got.text)
    truth_best = min(x["time_s"] for x in _full(lake["sim"]))
    assert abs(best - truth_best) < 0.05 and theo <= best


def test_a_named_lap_and_a_corner_on_it_match_the_simulators_truth(lake: dict[str, Any]) -> None:
    """The time of a named lap, a corner's minimum speed and brake point on a named lap: the simulator's
    own figures, with the answer first (the sentence the narrator must lead with)."""
    sim = lake["sim"]
    lap = _full(sim)[2]
    got = _answer(f"How long did lap {lap['lap']} take?", lake["sid"])
    first = got.text.split(". ")[0]
    assert _times(first) and abs(_times(first)[0] - lap["time_s"]) < 0.05, got.text
    e = next(x for x in sim.truth.events if x["kind"] == "late_brake")
    got = _answer(f"What was my minimum speed in turn {e['corner_id'][1:]} on lap {e['lap']}?", lake["sid"])
    speeds = [float(x) for x in re.findall(r"([\d.]+) km/h", got.text.split(". ")[0])]
    assert speeds and abs(speeds[0] - e["min_kmh"]) <= 1.0 and "braking" not in got.text, got.text
    got = _answer(f"Where did I brake for turn {e['corner_id'][1:]} on lap {e['lap']}?", lake["sid"])
    # in driver terms: metres before the corner and its apex, never a distance from the line
    m = re.search(
        rf"On lap {e['lap']} you braked \d+ m (?:into|before) T\w+ \((\d+) m before the apex\)", got.text
    )
    apex = next(c.apex_m for c in sim.track.corners if c.id == e["corner_id"])
    assert m and abs(float(m.group(1)) - (apex - e["brake_point_m"])) <= 10, got.text
    assert not re.search(r"braking at [\d.]+ m", got.text), got.text


def test_car_events_are_named_by_corner_and_lap(lake: dict[str, Any]) -> None:
    """Lockups at the corners and on the laps the simulator planted them; a drop names its lap."""
    sim = lake["sim"]
    locks = [x for x in sim.truth.events if x["kind"] == "lockup"]
    got = _answer("Did I lock any wheels?", lake["sid"])
    assert locks, "the scenario has lockups to find"
    assert got.text.startswith(f"Yes, {len(locks)} lockup"), got.text
    for x in locks:
        assert x["corner_id"].upper() in got.text and str(x["lap"]) in got.text
    got = _answer("Did my oil pressure drop at any point?", lake["no_oil"])
    assert "not recorded" in got.text  # a channel the file lacks is never "held"
    got = _answer("How many sessions have I driven here?", lake["sid"])
    assert got.text.startswith("You have 2 sessions of your own at "), (
        got.text
    )  # this one and the other; not cy's

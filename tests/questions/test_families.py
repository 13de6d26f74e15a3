"""The question families over a typed ``Question`` (no parser in the way), each figure checked against our
own calculation from the simulator's ground truth (its lap times, its channels, the events it planted)
or from the raw VBOX file at Sonoma (our own crossings of the sector lines), never against the tools."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.grounding import facts_of, grounding_check
from services.paddock.questions.model import Answer, LapRef, Question
from services.paddock.questions.plan import DECLINE, plan
from services.paddock.tools.sectors import sector_times
from shared.ingest import import_file, import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.truth import gate_crossings, vbox_truth
from tests.support.truth_corners import corners as track_zones

VBOX = Path(__file__).resolve().parents[3] / "shared" / "data" / "vbox" / "sonoma_vbox0240.csv"


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory, paddock_lake: Any) -> Iterator[dict[str, Any]]:
    settings = settings_for(tmp_path_factory.mktemp("families") / "data")
    sim = cached_sim(laps=10, seed=7)
    no_oil = copy.copy(sim)
    no_oil.wide = dict(sim.wide) | {"oil_press_bar": np.full_like(sim.wide["t_s"], np.nan)}
    env = {"sim": sim, "sid": import_sim(sim, settings, driver_id="ana").session_id}
    env["no_oil"] = import_sim(no_oil, settings, driver_id="cy").session_id
    if not VBOX.is_file():
        pytest.fail(f"{VBOX} is part of the workspace and missing")
    env["vbox"] = import_file(VBOX, settings, driver_id="vb").session_id
    with paddock_lake(settings):  # the other question tests' lake, given back after this module
        yield env


def ask(q: Question, sid: str) -> Answer:
    got = plan(q, sid)
    # every figure the answer states is in its own result: the narrator's facts and the check agree
    assert grounding_check(got.text, facts_of(got.text, [got.result])) == [], got.text
    return got


def _full(sim: Any) -> list[dict[str, Any]]:
    return [x for x in sim.truth.laps if x["kind"] == "full"]


def _lap(sim: Any, n: int) -> dict[str, Any]:
    return next(x for x in sim.truth.laps if x["lap"] == n)


def _times(text: str) -> list[float]:
    return [int(m) * 60 + float(s) for m, s in re.findall(r"\b(\d+):(\d{2}\.\d{3})\b", text)]


def _on_lap(sim: Any, n: int, col: str) -> np.ndarray:
    x = _lap(sim, n)
    m = (sim.wide["t_s"] >= x["t_start_s"]) & (sim.wide["t_s"] <= x["t_end_s"])
    return sim.wide[col][m]


def test_lap_times_best_slowest_average_count_and_one_lap(lake) -> None:
    sim, sid = lake["sim"], lake["sid"]
    full = _full(sim)
    best, slow = min(full, key=lambda x: x["time_s"]), max(full, key=lambda x: x["time_s"])
    got = ask(Question("my best lap?", "lap_time", laps=(LapRef(pick="fastest"),)), sid)
    assert got.text.startswith(f"Your best lap was lap {best['lap']} in ")
    assert _times(got.text)[0] == pytest.approx(best["time_s"], abs=0.05)
    got = ask(Question("slowest?", "lap_time", aggregation="max"), sid)
    assert f"lap {slow['lap']}" in got.text and _times(got.text)[0] == pytest.approx(slow["time_s"], abs=0.05)
    got = ask(Question("average?", "lap_time", aggregation="avg"), sid)
    mean = sum(x["time_s"] for x in full) / len(full)
    assert _times(got.text)[0] == pytest.approx(mean, abs=0.05) and f"over {len(full)} valid laps" in got.text
    got = ask(Question("how many laps?", "lap_time", aggregation="count"), sid)
    assert got.text.startswith(f"You have {len(full)} valid timed laps this session")
    assert f"{len(sim.truth.laps)} laps recorded" in got.text
    one = full[3]
    got = ask(Question("lap?", "lap_time", laps=(LapRef(one["lap"]),)), sid)
    assert got.text.startswith(f"Lap {one['lap']} took ") and _times(got.text)[0] == pytest.approx(
        one["time_s"], abs=0.05
    )
    gap = float(re.search(r"([\d.]+) s quicker", got.text).group(1))  # type: ignore[union-attr]
    assert gap == pytest.approx(one["time_s"] - best["time_s"], abs=0.05)


def test_a_lap_the_session_lacks_and_an_out_lap_are_said_so(lake) -> None:
    n = max(x["lap"] for x in lake["sim"].truth.laps) + 5
    for intent in ("lap_time", "compare", "channel"):
        got = ask(Question("?", intent, laps=(LapRef(n),), measure="top_speed"), lake["sid"])  # type: ignore[arg-type]
        assert got.text.startswith(f"There is no lap {n} in this session"), got.text
    got = ask(Question("?", "lap_time", laps=(LapRef(0),)), lake["sid"])
    out = next(x for x in lake["sim"].truth.laps if x["lap"] == 0)  # the simulator's out lap and its time
    assert out["kind"] == "out"
    assert got.text.startswith("Lap 0 was an out lap (") and got.text.endswith(
        "), not a timed lap to compare."
    )
    assert _times(got.text)[0] == pytest.approx(out["time_s"], abs=0.05), got.text


def test_channel_figures_over_the_session_and_on_a_lap(lake) -> None:
    sim, sid = lake["sim"], lake["sid"]
    got = ask(Question("top speed?", "channel", measure="top_speed"), sid)
    top = float(np.nanmax(sim.wide["speed_kmh"]))
    at = sim.wide["t_s"][int(np.nanargmax(sim.wide["speed_kmh"]))]  # our own: the lap of the fastest sample
    lap = next(x["lap"] for x in sim.truth.laps if x["t_start_s"] <= at < x["t_end_s"])
    assert got.text == f"Your top speed was {top:.1f} km/h ({top / 1.609344:.1f} mph), on lap {lap}."
    got = ask(Question("max rpm on lap 3?", "channel", measure="rpm", laps=(LapRef(3),)), sid)
    assert (
        got.text
        == f"Your highest engine speed on lap 3 was {float(np.nanmax(_on_lap(sim, 3, 'rpm'))):.0f} rpm."
    )
    hi, lo = float(np.nanmax(sim.wide["oil_temp_c"])), float(np.nanmin(sim.wide["oil_temp_c"]))
    got = ask(Question("oil temp?", "channel", measure="oil_temp"), sid)
    assert got.text == f"Oil temperature this session: highest {hi:.1f} °C, lowest {lo:.1f} °C."
    got = ask(Question("top speed each lap", "channel", measure="top_speed", aggregation="each_lap"), sid)
    for x in _full(sim):
        assert f"lap {x['lap']} {float(np.nanmax(_on_lap(sim, x['lap'], 'speed_kmh'))):.1f} km/h" in got.text


def test_a_channel_the_file_lacks_is_not_recorded(lake) -> None:
    # what the file records instead: the simulator's other pressures (it writes every one of them)
    got = ask(Question("oil pressure?", "channel", measure="oil_pressure"), lake["no_oil"])
    assert got.text == (
        "Oil pressure is not recorded in this session's file. "
        "It records coolant pressure, fuel pressure, tyre pressures and brake pressure instead."
    )
    got = ask(Question("lambda?", "channel", measure="lambda"), lake["sid"])
    assert got.text.startswith("Lambda (air-fuel ratio) is not recorded in this session's file. It records ")
    got = ask(Question("gear?", "channel", measure="gear"), lake["vbox"])  # the VBOX has no gear channel
    assert got.text.startswith("Gear is not recorded in this session's file. It records ")


def test_top_speed_lap_3_vs_lap_5(lake) -> None:
    sim = lake["sim"]
    a, b = (float(np.nanmax(_on_lap(sim, n, "speed_kmh"))) for n in (3, 5))
    got = ask(
        Question("top speed lap 3 vs lap 5", "compare", laps=(LapRef(3), LapRef(5)), measure="top_speed"),
        lake["sid"],
    )
    assert got.text.startswith(
        f"Top speed: lap 3 {a:.1f} km/h ({a / 1.609344:.1f} mph), lap 5 {b:.1f} km/h"
    ), got.text
    assert got.result["difference"] == pytest.approx(b - a, abs=0.05)


def test_lap_4_vs_lap_6_in_sector_2_is_our_own_crossing_of_the_sector_lines(lake) -> None:
    vb = vbox_truth(VBOX)
    racing = [x.lap for x in vb.racing]
    a, b = racing[2], racing[4]
    d = sector_times(lake["vbox"])
    la, lo = vb.channels["Latitude"], vb.channels["Longitude"]

    def sector2(n: int) -> float:
        idx = np.flatnonzero(vb.in_lap(vb.lap(n)))
        g0, g1 = ((g["lat"], g["lon"], g["heading_deg"]) for g in d["gates"][:2])
        ((t0, *_),) = gate_crossings(vb.t[idx], la[idx], lo[idx], g0)
        ((t1, *_),) = gate_crossings(vb.t[idx], la[idx], lo[idx], g1)
        return t1 - t0

    q = Question(f"lap {a} vs lap {b} in sector 2", "compare", laps=(LapRef(a), LapRef(b)), sector=2)
    got = ask(q, lake["vbox"])
    ta, tb = sector2(a), sector2(b)
    assert got.text.startswith("In sector 2 (")
    assert got.result[f"lap_{a}_sector_s"] == pytest.approx(ta, abs=0.03)
    assert got.result[f"lap_{b}_sector_s"] == pytest.approx(tb, abs=0.03)
    slow, fast = (b, a) if tb > ta else (a, b)
    assert (
        f"lap {slow} was {abs(tb - ta):.3f} s slower than lap {fast}" in got.text
        or abs(got.result["gap_s"] - (tb - ta)) < 0.03
    )


def test_where_did_lap_5_lose_time_against_lap_3(lake) -> None:
    sim = lake["sim"]
    t5, t3 = _lap(sim, 5)["time_s"], _lap(sim, 3)["time_s"]
    got = ask(
        Question("where did lap 5 lose time against lap 3?", "where_time", laps=(LapRef(5), LapRef(3))),
        lake["sid"],
    )
    assert got.tool == "get_lap_delta"
    slow, fast = ("Lap 5", "lap 3") if t5 > t3 else ("Lap 3", "lap 5")
    m = re.match(rf"{slow} was ([\d.]+) s slower than {fast}", got.text)
    assert m and float(m.group(1)) == pytest.approx(abs(t5 - t3), abs=0.05), got.text
    assert _times(got.text) == pytest.approx([t3, t5], abs=0.05)  # lap 3, the one it is against, first
    got = ask(Question("lap 5 vs lap 3", "compare", laps=(LapRef(5), LapRef(3))), lake["sid"])
    assert _times(got.text) == pytest.approx(
        [t5, t3], abs=0.05
    )  # a comparison: the first named is the reference


def _corner_time(sim: Any, n: int, corner: str) -> float:
    """Time through the corner's zone (the track file's extents) on the simulator's own trace: distance by
    integrating its speed over the lap, scaled to the track's length."""
    from tests.support.truth_corners import _track

    x = _lap(sim, n)
    m = (sim.wide["t_s"] >= x["t_start_s"]) & (sim.wide["t_s"] <= x["t_end_s"])
    t, v = sim.wide["t_s"][m], sim.wide["speed_kmh"][m] / 3.6
    d = np.concatenate([[0.0], np.cumsum((v[1:] + v[:-1]) / 2 * np.diff(t))])
    d *= float(_track()["length_m"]) / d[-1]
    lo, hi = track_zones()[corner]
    return float(np.interp(hi, d, t) - np.interp(lo, d, t))


def test_why_was_a_lap_slower_than_another_at_a_corner(lake) -> None:
    """The lap with the lockup the simulator planted, against a clean lap, at that corner."""
    sim = lake["sim"]
    e = next(x for x in sim.truth.events if x["kind"] == "lockup")
    hit = {x["lap"] for x in sim.truth.events if x.get("corner_id") == e["corner_id"]}
    clean = next(x["lap"] for x in _full(sim) if x["lap"] not in hit)
    q = Question("why?", "why_slower", laps=(LapRef(e["lap"]), LapRef(clean)), corner=e["corner_id"])
    got = ask(q, lake["sid"])
    ours = _corner_time(sim, e["lap"], e["corner_id"]) - _corner_time(sim, clean, e["corner_id"])
    assert ours > 0.03  # the lockup cost time there
    m = re.search(rf"Lap {e['lap']} was ([\d.]+) s slower than lap {clean} there", got.text)
    assert m and float(m.group(1)) == pytest.approx(ours, abs=0.03), got.text
    # "lap 5 slower than lap 1": lap 1 is the reference, named first
    assert got.text.startswith(f"At {e['corner_id'].upper()}, lap {clean} against lap {e['lap']}:")
    assert got.result["cause"] == "lockup"


def test_why_one_lap_was_slower_names_the_gap_to_the_best_and_the_planted_cause(lake) -> None:
    sim = lake["sim"]
    e = next(x for x in sim.truth.events if x["kind"] == "lockup")
    best = min(_full(sim), key=lambda x: x["time_s"])
    got = ask(Question("why was it slow?", "why_slower", laps=(LapRef(e["lap"]),)), lake["sid"])
    m = re.match(rf"Lap {e['lap']} was ([\d.]+) s slower than lap {best['lap']}", got.text)
    assert m and float(m.group(1)) == pytest.approx(_lap(sim, e["lap"])["time_s"] - best["time_s"], abs=0.05)
    assert re.search(
        rf"lap {e['lap']} lost the most at .*\b{e['corner_id'].upper()} [\d.]+ s, a wheel locked", got.text
    )
    assert next(x for x in got.result["losses"] if x["corner"] == e["corner_id"].upper())["cause"] == "lockup"


def test_lockups_by_corner_and_lap_and_the_oil_drop_by_lap(lake) -> None:
    sim = lake["sim"]
    locks = [x for x in sim.truth.events if x["kind"] == "lockup"]
    got = ask(Question("did I lock up?", "events", measure="lockup"), lake["sid"])
    assert got.text.startswith(f"Yes, {len(locks)} lockups:"), got.text
    for x in locks:
        assert x["corner_id"].upper() in got.text and str(x["lap"]) in got.text
    got = ask(Question("did my oil pressure drop?", "events", measure="oil_pressure"), lake["no_oil"])
    assert "not recorded" in got.text


def test_consistency_is_the_spread_of_the_lap_times(lake) -> None:
    t = np.array([x["time_s"] for x in _full(lake["sim"])])
    got = ask(Question("how consistent?", "consistency"), lake["sid"])
    spread = float(re.search(r"spread by ([\d.]+) s", got.text).group(1))  # type: ignore[union-attr]
    assert spread == pytest.approx(float(np.std(t)), abs=0.02)


def test_unrelated_is_declined_and_an_unanswered_question_says_what_was_understood(lake) -> None:
    got = ask(Question("capital of France?", "unrelated"), lake["sid"])
    assert got.text == DECLINE and not re.search(r"\d", got.text)
    got = ask(Question("how is it?", "unknown", corner="t3", laps=(LapRef(4),)), lake["sid"])
    assert got.text.startswith("I read this as a question about your driving data on lap 4 at T3")
    assert "I can answer lap times" in got.text and got.result == {"understood": True}

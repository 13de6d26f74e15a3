"""The brake-marker family against the simulator's ground truth (the brake points its scripted late and
early braking put into the signals) and the track file's corners."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from services.paddock.questions.families import markers
from services.paddock.questions.model import LapRef, Question
from services.paddock.tools.base import session_row
from tests.support.asking import ask_planned
from tests.support.truth import vbox_truth
from tests.support.truth_corners import odometer

SONOMA = Path(__file__).resolve().parents[2] / "shared" / "profiles" / "tracks" / "sonoma.yaml"

# Sonoma's track file (shared/profiles/tracks/sonoma.yaml): T3 entry and apex
T3_ENTRY, T3_APEX = 651.8, 696.3


def _ask(sid: str, corner: str | None, laps: tuple[LapRef, ...] = ()) -> Any:
    q = Question(
        text="how late can I brake?", intent="corner", corner=corner, measure="brake_point", laps=laps
    )
    got = markers.answer(q, session_row(sid))
    assert got is not None
    return got


def _late(sim: Any, corner: str, kind: str) -> dict[int, dict[str, Any]]:
    return {e["lap"]: e for e in sim.truth.events_of(kind) if e["corner_id"] == corner}


def test_t3_latest_is_the_late_braking_laps_and_the_latest_that_worked_is_a_clean_one(q_lake) -> None:
    sim = q_lake["sim_obj"]
    late = _late(sim, "t3", "late_brake")
    assert late  # the seed puts late braking into T3
    clean = next(iter(late.values()))["clean_brake_point_m"]
    got = _ask(q_lake["sim"], "t3")
    c = got.result["corners"][0]
    by_lap = {x["lap"]: x for x in c["laps"]}
    for lap, e in late.items():
        assert abs(by_lap[lap]["brake_m"] - e["brake_point_m"]) < 2.0, lap
        assert abs(by_lap[lap]["before_entry_m"] - (T3_ENTRY - e["brake_point_m"])) < 2.0
    for lap, x in by_lap.items():
        if lap not in late:
            assert abs(x["brake_m"] - clean) < 2.0, lap
    assert c["latest"]["lap"] in late
    assert {x["lap"] for x in c["later_and_slower"]} == set(late)
    ok = c["latest_that_worked"]
    assert ok["lap"] not in late and abs(ok["brake_m"] - clean) < 2.0
    # the latest of the laps within 2 km/h (the threshold table's over_slow_kmh) of the best minimum speed
    top = max(x["min_kmh"] for x in c["laps"])
    kept = [x for x in c["laps"] if x["min_kmh"] >= top - 2.0]
    assert ok["lap"] == max(kept, key=lambda x: x["brake_m"])["lap"] and len(kept) == len(c["laps"]) - len(
        late
    )
    assert abs(ok["before_apex_m"] - (T3_APEX - clean)) < 2.0
    # the laps that braked late lost the minimum speed the truth says
    for lap, e in late.items():
        assert abs(by_lap[lap]["min_kmh"] - e["min_kmh"]) < 1.5
    best = c["best_lap"]
    assert (
        best["lap"]
        == min((lp for lp in sim.truth.laps if lp["kind"] == "full"), key=lambda lp: lp["time_s"])["lap"]
    )
    t = got.text
    assert t.startswith(
        f"Into T3 you braked {best['where']} ({T3_APEX - best['brake_m']:.0f} m before the apex)"
    )
    assert f"was lap {ok['lap']}, {ok['where']}" in t
    each = ", ".join(f"lap {n} {T3_APEX - by_lap[n]['brake_m']:.0f} m" for n in sorted(by_lap))
    assert f"Braking started before the T3 apex on each lap: {each}." in t
    for lap, e in late.items():  # the truth's brake points, to the metre give or take the detection
        assert abs(T3_APEX - by_lap[lap]["brake_m"] - (T3_APEX - e["brake_point_m"])) < 2.0
    assert "braking late and running in deep" in t
    assert all(f"lap {lap}" in t for lap in late)


def test_t7_earliest_is_the_early_braking_lap(q_lake) -> None:
    early = _late(q_lake["sim_obj"], "t7", "early_brake")
    c = _ask(q_lake["sim"], "t7").result["corners"][0]
    assert c["earliest"]["lap"] in early
    assert abs(c["earliest"]["brake_m"] - early[c["earliest"]["lap"]]["brake_point_m"]) < 2.0


def test_a_named_lap_gets_its_own_marker(q_lake) -> None:
    late = _late(q_lake["sim_obj"], "t3", "late_brake")
    lap = min(late)
    got = _ask(q_lake["sim"], "t3", (LapRef(number=lap),))
    m = re.search(rf"On lap {lap} you braked (\d+) m into T3 \((\d+) m before the apex\)", got.text)
    assert m is not None, got.text
    assert abs(int(m.group(1)) - (late[lap]["brake_point_m"] - T3_ENTRY)) <= 2
    assert abs(int(m.group(2)) - (T3_APEX - late[lap]["brake_point_m"])) <= 2


def test_is_my_braking_consistent_names_the_scripted_late_and_early_laps(q_lake) -> None:
    """ "is my braking consistent?": every corner's laps against the others' brake point, the late braking
    into T3 and the early braking into T7 the simulator scripted among them."""
    got = ask_planned(q_lake["sim"], "is my braking consistent?")
    assert got.tool == "get_brake_markers"
    by = {c["corner"]: c for c in got.result["corners"]}
    assert {x["lap"] for x in by["t3"]["deeper"]} == set(_late(q_lake["sim_obj"], "t3", "late_brake"))
    assert {x["lap"] for x in by["t7"]["earlier"]} == set(_late(q_lake["sim_obj"], "t7", "early_brake"))


def test_every_corner_at_once_names_each_corner_once(q_lake) -> None:
    got = _ask(q_lake["sim"], None)
    ids = [c["corner"] for c in got.result["corners"]]
    assert ids[:3] == ["t1", "t2", "t3"] and len(ids) == 13
    assert got.text.count("T3:") == 1 and "T3A:" in got.text


def test_an_unknown_corner_is_said_with_the_tracks_corners(q_lake) -> None:
    got = _ask(q_lake["sim"], "t99")
    assert got.text.startswith("This track has no corner T99: its corners are T1, T2, T3, T3A")


def _raw_onsets(path: Any, corner: str) -> dict[int, float]:
    """Our own brake onsets from the VBOX file: per racing lap, the lap distance (GPS odometer scaled to the
    track's length) where the brake pressure of the last application before the apex first rose 1 bar
    above its resting level."""
    st = vbox_truth(path)
    track = yaml.safe_load(SONOMA.read_text(encoding="utf-8"))
    c = next(x for x in track["corners"] if x["id"] == corner)
    bar = st.channels["Brake Pressure (bar)"]
    out = {}
    for lp in st.racing:
        idx = np.flatnonzero(st.in_lap(lp))
        d = odometer(st.channels["Latitude"][idx], st.channels["Longitude"][idx])
        d *= float(track["length_m"]) / d[-1]
        sel = (d >= c["apex_m"] - 300) & (d <= c["apex_m"])
        p, dw = bar[idx[sel]], d[sel]
        rest = float(np.nanpercentile(p, 10))
        on = np.flatnonzero(p > rest + 5)
        k = int(on[-1])
        while k > 0 and p[k - 1] > rest + 5:
            k -= 1
        while k > 0 and p[k - 1] > rest + 1:
            k -= 1
        out[lp.lap] = float(dw[k])
    return out


def test_real_file_brake_points_match_our_own_reading_of_the_raw_pressure(q_lake) -> None:
    for corner in ("t7", "t11"):  # the two heaviest stops, 50 bar and more on every lap
        own = _raw_onsets(q_lake["vbox_path"], corner)
        c = _ask(q_lake["vbox"], corner).result["corners"][0]
        tool = {x["lap"]: x["brake_m"] for x in c["laps"]}
        both = sorted(set(own) & set(tool))
        assert len(both) >= 6, (corner, both)
        diff = np.array([tool[n] - own[n] for n in both])
        assert np.abs(diff).max() < 10 and float(np.median(np.abs(diff))) < 4, (corner, diff)
        assert c["latest"]["brake_m"] == max(tool.values()) and c["earliest"]["brake_m"] == min(tool.values())


def test_without_brake_pressure_or_deceleration_markers_are_not_recorded(q_lake) -> None:
    got = _ask(q_lake["no_brake"], "t3")
    assert got.text == (
        "No brake markers for this session. Not recorded in this session: brake pressure, longitudinal g."
    )


def test_a_braking_distance_is_the_brake_markers_never_the_distance_driven(q_lake) -> None:
    """ "could I have shortened my braking distance into turn 4?" had the odometer's highest reading through
    T4 beside the markers ("highest 29366.8 m": the session's distance driven, no braking figure): now the
    markers only, each lap's brake point against the simulator's own."""
    sim = q_lake["sim_obj"]
    late = _late(sim, "t3", "late_brake")
    assert late  # the seed puts late braking into T3
    got = ask_planned(q_lake["sim"], "could I have shortened my braking distance into turn 3?")
    assert "distance driven" not in got.text.lower() and got.result["corners"][0]["corner"] == "t3"
    by_lap = {x["lap"]: x for x in got.result["corners"][0]["laps"]}
    for lap, e in late.items():
        assert abs(by_lap[lap]["brake_m"] - e["brake_point_m"]) < 2.0, lap


def test_two_laps_brake_points_are_the_simulators_moved_brake_points(q_lake) -> None:
    """ "where did I brake differently, lap 5 against lap 1?": each corner the simulator moved the brake
    point on that lap, by its own shift (to 2 m), later or earlier; the corners it did not move are within
    the car's brake-point delta; never "not recorded" (a brake point is no channel)."""
    sim = q_lake["sim_obj"]
    moved = [e for e in sim.truth.events if e["kind"] in ("late_brake", "early_brake")]
    assert moved
    clean = sim.truth.clean_laps[0]
    for lap in sorted({e["lap"] for e in moved}):
        got = ask_planned(q_lake["sim"], f"where did I brake differently, lap {lap} against lap {clean}?")
        assert got.text.startswith(f"On lap {lap} against lap {clean} you braked into "), got.text
        for e in (x for x in moved if x["lap"] == lap):
            word = "later" if e["brake_shift_m"] > 0 else "earlier"
            m = re.search(rf"into {e['corner_id'].upper()} (\d+) m {word} ", got.text)
            assert m is not None, (e, got.text)
            assert abs(int(m.group(1)) - abs(e["brake_shift_m"])) <= 2.0, (e, got.text)
        said = {m.group(1) for m in re.finditer(r"into (T\w+) \d+ m", got.text)}
        assert said == {e["corner_id"].upper() for e in moved if e["lap"] == lap}, got.text


def test_a_corners_figure_of_two_laps_no_corner_named_is_never_not_recorded(q_lake) -> None:
    """A lift point is no channel: two laps' lift points with no corner named are the laps along the track
    (where the time went), never "lift point is not recorded"."""
    got = ask_planned(q_lake["sim"], "compare my lift points on lap 3 and lap 5")
    assert "not recorded" not in got.text and got.tool == "get_lap_delta", got.text

"""Lift points ("where do I lift?", "is T9 flat?") and what went well, on the simulated session: checked
against the simulator's truth (where its scripted coasts lifted) and the raw samples (a flat corner: the
throttle never off and no brake from well before the corner to its exit, on every lap)."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.questions.families import coaching, lifts
from services.paddock.questions.model import LapRef, Question
from services.paddock.tools.base import session_row
from services.paddock.tools.markers import get_lift_points
from shared.laps_recorded import assign_laps, detect_laps
from tests.support.asking import ask_planned


def _corner(sim: Any, cid: str) -> Any:
    return next(c for c in sim.track.corners if c.id == cid)


def _raw(sim: Any) -> dict[str, Any]:
    """The simulator's samples with their laps and lap distance (the one lap rule over the raw signals)."""
    wide = dict(sim.wide)
    assign_laps(wide, detect_laps(wide, sim.track, None), sim.track)
    return wide


def test_a_coast_lifts_for_the_corner_it_leads_into_and_coasts_through_the_flat_one(q_lake) -> None:
    sim = q_lake["sim_obj"]
    coasts = [e for e in sim.truth.events_of("coasting") if e["corner_id"] == "t10"]
    assert coasts  # the seed scripts a coast into T10
    t10 = get_lift_points(q_lake["sim"], "t10")["corners"][0]
    by_lap = {x["lap"]: x for x in t10["laps"]}
    for e in coasts:
        assert abs(by_lap[e["lap"]]["lift_m"] - e["start_m"]) < 6.0, e["lap"]
    t9 = get_lift_points(q_lake["sim"], "t9")["corners"][0]
    # each scripted coast lifts before T9's apex (flat there on the other laps) and runs on into T10
    assert all(e["start_m"] < _corner(sim, "t9").apex_m for e in coasts)
    starts_before_t9 = [e["lap"] for e in coasts]
    assert set(t9["coasted_through"]) == set(starts_before_t9)
    text = lifts.answer(
        Question("is T9 flat?", "corner", corner="t9", measure="lift_point"), session_row(q_lake["sim"])
    )
    assert text is not None and f"On lap {starts_before_t9[0]} you coasted through it" in text.text


def test_flat_laps_are_the_raw_laps_never_off_the_throttle_nor_braking(q_lake) -> None:
    sim = q_lake["sim_obj"]
    w, c = _raw(sim), _corner(sim, "t1")
    got = get_lift_points(q_lake["sim"], "t1")["corners"][0]
    assert got["flat"]
    for lap in got["flat"]:
        m = (w["lap"] == lap) & (w["dist_m"] >= c.start_m - 100.0) & (w["dist_m"] <= c.end_m)
        assert np.nanmin(w["throttle_pct"][m]) > 90.0 and np.nanmax(w["brake_bar"][m]) < 1.0, lap
    assert not got["lifted"]
    q = Question(
        "can I take turn 1 flat?", "corner", corner="t1", measure="lift_point", laps=(LapRef(number=2),)
    )
    text = lifts.answer(q, session_row(q_lake["sim"]))
    assert (
        text is not None and "You took T1 flat on every lap read" in text.text and "Lap 2: flat." in text.text
    )


def test_a_braked_corner_lifts_where_the_raw_throttle_comes_off(q_lake) -> None:
    """T11: back on the throttle out of T10, then the first sample under 5 % (the coast threshold) is the
    lift on every lap read; or, straight from throttle to brake, comes just after the brake point given."""
    sim = q_lake["sim_obj"]
    w, c, before = _raw(sim), _corner(sim, "t11"), _corner(sim, "t10")
    laps = [x for x in get_lift_points(q_lake["sim"], "t11")["corners"][0]["laps"] if "lift_m" in x]
    assert laps
    for x in laps:
        m = (w["lap"] == x["lap"]) & (w["dist_m"] >= before.apex_m) & (w["dist_m"] <= c.apex_m)
        d, thr = w["dist_m"][m], np.nan_to_num(w["throttle_pct"][m], nan=100.0)
        back_on = int(np.argmax(thr > 50.0))
        off = d[back_on:][thr[back_on:] < 5.0]
        assert off.size, x["lap"]
        if x["to_brake_m"] == 0:  # straight from throttle to brake: the throttle eases off as braking begins
            assert 0.0 <= float(off[0]) - x["lift_m"] < 15.0, x["lap"]
        else:
            assert abs(float(off[0]) - x["lift_m"]) < 3.0, x["lap"]


def test_the_pick_up_is_where_the_raw_throttle_comes_back_after_the_slowest_point(q_lake) -> None:
    """ "am I getting on the power early enough?": at T11 (braked for) each lap's pick-up is the first
    sample over 20 % (the pick-up threshold) after the lap's slowest point there, in metres from the apex."""
    sim = q_lake["sim_obj"]
    w, c = _raw(sim), _corner(sim, "t11")
    got = ask_planned(q_lake["sim"], "am I getting on the power early enough?")
    assert got.tool == "get_lift_points" and "T11 " in got.text and "T1 " not in got.text  # T1 is flat
    t11 = next(x for x in got.result["corners"] if x["corner"] == "t11")
    laps = [x for x in t11["laps"] if "pickup_after_apex_m" in x]
    assert laps
    for x in laps:
        m = (w["lap"] == x["lap"]) & (w["dist_m"] >= c.start_m) & (w["dist_m"] <= c.end_m)
        d, v, thr = w["dist_m"][m], w["speed_kmh"][m], np.nan_to_num(w["throttle_pct"][m])
        k = int(np.argmin(v))
        on = d[k:][thr[k:] > 20.0]
        assert on.size and abs(float(on[0]) - c.apex_m - x["pickup_after_apex_m"]) < 2.0, x["lap"]


def test_what_went_well_names_corners_no_scripted_mistake_touched(q_lake) -> None:
    sim = q_lake["sim_obj"]
    mistakes = {e["corner_id"].upper() for e in sim.truth.events if e.get("corner_id")}
    got = coaching.strengths(Question("what did I do well?", "strengths"), session_row(q_lake["sim"]))
    named = {x["corner"] for x in got.result["corners"]}
    assert named and not named & mistakes
    assert got.text.startswith("What went well: no lap lost time")
    full = [x for x in sim.truth.laps if x["kind"] == "full"]
    best = min(full, key=lambda x: x["time_s"])
    assert got.result["best_lap"] == best["lap"] and abs(got.result["best_lap_s"] - best["time_s"]) < 0.02

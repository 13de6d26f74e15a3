"""get_incident_moments with its defaults surfaces the injected incidents, not ordinary cornering; the
traction tool uses the one event detector with the car's thresholds."""

from __future__ import annotations

from typing import Any

from services.paddock.tools.registry import run_tool
from shared.event_conditions import INCIDENT_KINDS


def _truth(env: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in env["sim"].truth.events if e["kind"] == kind]


def test_default_incident_moments_are_the_real_incidents(lake_env) -> None:
    out = run_tool("get_incident_moments", {"session_id": lake_env["sid"]})
    moments = out["moments"]
    got = {(m["kind"], m["lap"], m["corner"]) for m in moments}
    for e in _truth(lake_env, "lockup"):
        assert ("lockup", e["lap"], e["corner_id"]) in got and ("abs", e["lap"], e["corner_id"]) not in got
    for e in _truth(lake_env, "wheelspin"):
        assert ("dsc", e["lap"], e["corner_id"]) in got and ("wheelspin", e["lap"], e["corner_id"]) in got
    # incidents come first; cornering within the car's grip is not a moment
    n_inc = sum(1 for m in moments if m["kind"] in INCIDENT_KINDS)
    # each lockup (the ABS silent) once, each wheelspin with its DSC intervention
    n_truth = len(_truth(lake_env, "lockup")) + 2 * len(_truth(lake_env, "wheelspin"))
    assert all(m["kind"] in INCIDENT_KINDS for m in moments[:n_inc]) and n_inc >= n_truth >= 8
    assert out["thresholds"]["combo_g"] > 1.44  # the simulated car corners at up to 1.44 g
    stint = [k for k in lake_env["sim"].truth.clean_laps if k > 2]
    assert not [m for m in moments if m["lap"] in stint]
    # an explicit threshold still finds ordinary hard cornering
    low = run_tool("get_incident_moments", {"session_id": lake_env["sid"], "combo_g_threshold": 1.2})
    assert any(m["kind"] == "combo_g" for m in low["moments"])


def test_traction_threshold_argument_overrides_the_car(lake_env) -> None:
    out = run_tool("get_traction_events", {"session_id": lake_env["sid"], "slip_threshold_kmh": 30.0})
    assert out["events"] == [] and out["slip_threshold_kmh"] == {"lockup": 30.0, "wheelspin": 30.0}
    dflt = run_tool("get_traction_events", {"session_id": lake_env["sid"]})
    assert dflt["slip_threshold_kmh"] == {"lockup": 12.0, "wheelspin": 8.0} and dflt["count"] >= 6


def test_lap_delta_puts_the_time_where_the_mistake_was(lake_env) -> None:
    """A late or early brake costs time where the simulator put it (its truth's affected distance, from
    the braking zone into the corner: a late braker gains on the straight and loses it, and more, running
    in deep), so get_lap_delta against a clean lap puts at least half the truth's loss there."""
    sim = lake_env["sim"]
    clean = max(sim.truth.clean_laps)
    for e in sim.truth.events_of("late_brake") + sim.truth.events_of("early_brake"):
        out = run_tool("get_lap_delta", {"session_id": lake_env["sid"], "lap_a": clean, "lap_b": e["lap"]})
        assert out["lap_b_time_s"] > out["lap_a_time_s"]
        there = [x for x in out["segments"] if x["to_m"] > e["start_m"] and x["from_m"] < e["end_m"]]
        assert sum(x["delta_s"] for x in there) >= 0.5 * e["time_lost_s"], (e, there)

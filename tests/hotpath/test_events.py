"""The one event detector (shared/events.py): vocabulary, thresholds with car overrides, and the same
events from an imported session and from the hot path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shared import events as ev
from shared.profiles.track import load_track


def _wide(n: int = 200, dt: float = 0.02) -> dict[str, np.ndarray]:
    t = np.arange(n) * dt
    w = {
        "t_s": t,
        "speed_kmh": np.full(n, 100.0),
        "brake_bar": np.zeros(n),
        "throttle_pct": np.full(n, 50.0),
        "lap": np.full(n, 3.0),
        "dist_m": np.linspace(900.0, 1000.0, n),
    }
    for wh in ev.WHEELS:
        w[f"wheel_speed_{wh}_kmh"] = np.full(n, 100.0)
    return w


def test_vocabulary_and_thresholds() -> None:
    assert set(ev.INCIDENT_KINDS) <= set(ev.EVENT_KINDS)
    assert len(set(ev.EVENT_KINDS)) == len(ev.EVENT_KINDS)
    th = ev.event_thresholds({"slip_lockup_kmh": 20.0, "coast_min_s": 9.0})
    assert th["slip_lockup_kmh"] == 20.0 and "coast_min_s" not in th
    assert ev.event_thresholds(None) == ev.EVENT_THRESHOLDS
    assert ev.event_thresholds() is not ev.EVENT_THRESHOLDS


def test_predicates_at_their_thresholds() -> None:
    th = ev.EVENT_THRESHOLDS
    assert ev.is_lockup(87.9, 100.0, 6.0, th) and not ev.is_lockup(88.0, 100.0, 6.0, th)
    assert not ev.is_lockup(80.0, 100.0, 5.0, th) and not ev.is_lockup(0.0, 15.0, 50.0, th)
    assert ev.is_lockup(0.0, 15.1, 50.0, th)
    assert ev.is_wheelspin(108.1, 100.0, 31.0, th) and not ev.is_wheelspin(108.0, 100.0, 31.0, th)
    assert not ev.is_wheelspin(120.0, 100.0, 30.0, th) and not ev.is_wheelspin(30.0, 15.0, 90.0, th)
    assert ev.is_oil_pressure_low(0.99, 3001.0, 10.1, th)
    assert not ev.is_oil_pressure_low(1.0, 3001.0, 10.1, th)
    assert not ev.is_oil_pressure_low(0.5, 3000.0, 10.1, th)
    assert not ev.is_oil_pressure_low(0.5, 3001.0, 10.0, th)
    assert ev.is_coolant_hot(105.1, th) and not ev.is_coolant_hot(105.0, th)
    assert ev.is_flag_on(0.5) and not ev.is_flag_on(0.49)


def test_slip_runs_need_their_minimum_duration_and_name_the_wheel() -> None:
    w = _wide()
    w["brake_bar"][50:70] = 60.0
    w["throttle_pct"][50:70] = 0.0
    w["wheel_speed_fl_kmh"][50:58] = 80.0  # 8 samples = 0.16 s >= 0.15 s
    w["wheel_speed_fr_kmh"][50:56] = 80.0  # 6 samples = 0.12 s: noise
    w["wheel_speed_rr_kmh"][120:140] = 110.0  # spin on throttle
    w["wheel_speed_fl_kmh"][120:140] = 110.0  # front wheels do not spin (rear drive)
    runs = ev.slip_runs(w, ev.EVENT_THRESHOLDS)
    assert [(r.kind, r.wheel, r.start, r.end, r.max_slip_kmh) for r in runs] == [
        ("lockup", "fl", 50, 58, 20.0),
        ("wheelspin", "rr", 120, 140, 10.0),
    ]
    assert ev.slip_runs(w, ev.event_thresholds({"slip_lockup_kmh": 25.0}))[0].kind == "wheelspin"
    assert ev.slip_runs({"t_s": w["t_s"]}, ev.EVENT_THRESHOLDS) == []


def test_detect_events_rows_and_overrides() -> None:
    w = _wide()
    track = load_track("sonoma")
    w["brake_bar"][50:70] = 60.0
    w["wheel_speed_fl_kmh"][50:60] = 70.0
    w["abs_active"] = np.zeros(200)
    w["abs_active"][52:62] = 1.0
    w["dsc_active"] = np.zeros(200)
    w["mil"] = np.zeros(200)
    w["oil_press_bar"] = np.full(200, 3.0)
    w["oil_press_bar"][100:110] = 0.5
    w["rpm"] = np.full(200, 5000.0)
    w["water_temp_c"] = np.full(200, 90.0)
    w["water_temp_c"][150:] = 106.0
    w["tpms_alarm_rl"] = np.zeros(200)
    w["tpms_alarm_rl"][10:20] = 1.0
    w["tpms_press_rl_bar"] = np.full(200, 2.0)
    out = ev.detect_events(w, track.corners)
    kinds = [e["kind"] for e in out]
    assert kinds == ["tpms_alarm", "lockup", "abs", "oil_pressure", "coolant"]
    assert set(kinds) <= set(ev.EVENT_KINDS)
    lock = out[1]
    assert lock["wheel"] == "fl" and lock["lap"] == 3 and lock["corner"] == "t4" and lock["severity"] == 30.0
    assert json.loads(lock["detail"])["duration_s"] == pytest.approx(0.18)
    assert out[0]["t_s"] == pytest.approx(0.2)
    # the car profile's overrides are honoured (the names are RuleCoach's: one table)
    quiet = ev.detect_events(w, track.corners, {"slip_lockup_kmh": 40.0, "oil_press_min_bar": 0.4})
    assert [e["kind"] for e in quiet] == ["tpms_alarm", "abs", "coolant"]
    assert ev.detect_events({"t_s": np.arange(2.0)}, track.corners) == []


def test_corner_for_prefers_the_nearest_corner_centre() -> None:
    track = load_track("sonoma")
    assert ev.corner_for(1000.0, track.corners) == "t4"
    assert ev.corner_for(track.find_corner("t4").start_m - 149.0, track.corners) in ("t4", "t3a")
    assert ev.corner_for(5000.0, track.corners) is None


def test_live_and_imported_sessions_store_the_same_event_names() -> None:
    """The hot path's driver_events for a simulated session use the importer's names and find the same
    lockups and wheelspin (lap and wheel)."""
    from services.hotpath.frame_path import LiveSession
    from shared.ingest import analyse
    from shared.profiles.car import load_car
    from shared.simulator.fixtures import cached_sim

    sim = cached_sim()
    car, track = load_car("bmw_e46_m3_aim_mxp"), load_track("sonoma")
    rows: list[dict] = []
    sess = LiveSession("s", car, track, lambda t, r: rows.extend(r) if t == "driver_events" else None)
    keys = list(sim.wide)
    for i in range(len(sim.wide["t_s"])):
        sess.process({k: float(sim.wide[k][i]) for k in keys})
    sess.finish()
    imported = analyse(
        {k: v.copy() for k, v in sim.wide.items()}, car, track, [lp["t_end_s"] for lp in sim.truth.laps]
    ).events
    live_kinds = {r["kind"] for r in rows}
    assert live_kinds <= set(ev.EVENT_KINDS), live_kinds
    assert {"abs", "dsc", "lockup", "wheelspin", "oil_pressure", "tpms_alarm"} <= live_kinds
    for kind in ("lockup", "wheelspin"):
        live = {(r["lap"], r["wheel"], r["corner"]) for r in rows if r["kind"] == kind}
        imp = {(e["lap"], e["wheel"], e["corner"]) for e in imported if e["kind"] == kind}
        assert live == imp and live, kind

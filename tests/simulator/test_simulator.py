"""The simulator: deterministic, physically sane, and its injected events visible in the signals."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shared.simulator import Scenario, simulate, write_aim_csv
from shared.simulator.fixtures import cached_sim


def test_deterministic_per_seed() -> None:
    a = simulate(laps=2, seed=5, rate_hz=10)
    b = simulate(laps=2, seed=5, rate_hz=10)
    c = simulate(laps=2, seed=6, rate_hz=10)
    assert np.array_equal(a.wide["speed_kmh"], b.wide["speed_kmh"])
    assert not np.array_equal(a.wide["speed_kmh"], c.wide["speed_kmh"])


def test_physically_sane() -> None:
    sim = cached_sim()
    w = sim.wide
    assert 150 < np.max(w["speed_kmh"]) < 260
    assert np.percentile(np.abs(w["g_lat"]), 99.5) < 2.0
    assert np.percentile(w["g_long"], 0.5) > -1.8
    full = [lp["time_s"] for lp in sim.truth.laps if lp["kind"] == "full"]
    assert all(95 < t < 135 for t in full)
    clean = [lp["time_s"] for lp in sim.truth.laps if lp["lap"] in sim.truth.clean_laps and lp["lap"] > 2]
    assert np.std(clean) < 0.3


def test_injected_events_are_in_the_signals() -> None:
    sim = cached_sim()
    w, t = sim.wide, sim.wide["t_s"]
    kinds = {e["kind"] for e in sim.truth.events}
    assert {
        "late_brake",
        "early_brake",
        "coasting",
        "lockup",
        "wheelspin",
        "oil_pressure_drop",
        "tpms_alarm",
    } <= kinds
    for e in sim.truth.events:
        m = (t >= e["t_start_s"]) & (t <= e["t_end_s"])
        assert m.any(), e
        if e["kind"] == "lockup":
            assert np.min(w[f"wheel_speed_{e['wheel']}_kmh"][m] - w["speed_kmh"][m]) < -15
            assert w["abs_active"][m].max() == 1
        if e["kind"] == "wheelspin":
            assert np.max(w[f"wheel_speed_{e['wheel']}_kmh"][m] - w["speed_kmh"][m]) > 10
        if e["kind"] == "oil_pressure_drop":
            assert np.min(w["oil_press_bar"][m]) < 1.0 and np.min(w["rpm"][m]) > 3000
        if e["kind"] == "coasting":
            assert e["t_end_s"] - e["t_start_s"] > 0.5
            assert np.max(w["throttle_pct"][m]) < 5 and np.max(w["brake_bar"][m]) < 2
    # the clean stint has none of the signatures
    lap_of = np.zeros(len(t), dtype=int)
    for lp in sim.truth.laps:
        lap_of[t >= lp["t_start_s"]] = lp["lap"]
    clean = np.isin(lap_of, [k for k in sim.truth.clean_laps if k > 2])
    assert w["abs_active"][clean].max() == 0 and w["dsc_active"][clean].max() == 0
    assert np.min(w["oil_press_bar"][clean]) > 1.0


def test_no_events_scenario_and_small_sessions() -> None:
    sim = simulate(laps=1, seed=1, rate_hz=10, scenario=Scenario.none())
    assert sim.truth.events == []
    assert [lp["kind"] for lp in sim.truth.laps] == ["out", "full", "in"]


def test_aim_csv_round_trips_segment_times(tmp_path: Path) -> None:
    from shared.importers import read_log

    sim = simulate(laps=3, seed=2, rate_hz=20)
    p = write_aim_csv(sim, tmp_path / "sim.csv")
    log = read_log(p)
    ends = [lp["t_end_s"] for lp in sim.truth.laps]
    assert len(log.beacons_s or []) == len(ends)
    assert max(abs(a - b) for a, b in zip(log.beacons_s or [], ends, strict=True)) <= 0.001

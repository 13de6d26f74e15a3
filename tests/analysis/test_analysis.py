"""The session analysis on one simulated session, checked against the raw samples and the simulator's
truth: segments tile each lap in driving order and across the line, their times are the raw samples'
times, a coast is measured from where the lift started and named by the corner it leads into, and the
stored analysis is what the publisher wrote beside the session."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from shared.analysis.session import SessionAnalysis, analyse_session
from shared.ingest import import_sim
from shared.laps_recorded import assign_laps, detect_laps
from shared.settings import settings_for
from shared.simulator import Event, Scenario, SimSession, simulate
from shared.thresholds import DEFAULT_THRESHOLDS

# a coast into T10 that starts before T9 (a flat corner) and a lockup at T2 on the lap it coasts into
# T3: the two places the old segmentation named the wrong corner
EVENTS = [
    Event("coasting", 4, "t10", duration_s=2.4),
    Event("coasting", 5, "t10", duration_s=2.4),
    Event("lockup", 5, "t2", "fr", duration_s=0.6),
    Event("wheelspin", 6, "t11", "rr", duration_s=0.8),
    Event("wheelspin", 7, "t11", "rr", duration_s=0.8),
    Event("late_brake", 3, "t4", offset_m=45.0),  # runs deep: a slow exit onto T5, taken flat
    Event("late_brake", 4, "t4", offset_m=45.0),
]


@lru_cache(maxsize=1)
def _session() -> tuple[SimSession, SessionAnalysis, list[Any]]:
    sim = simulate(laps=9, seed=41, rate_hz=50.0, scenario=Scenario(EVENTS, [1, 2, 8, 9]))
    assert sim.track is not None
    laps = detect_laps(sim.wide, sim.track, None)
    assign_laps(sim.wide, laps, sim.track)
    an = analyse_session(
        sim.wide, [vars(x) for x in laps], sim.track.corners, sim.track.length_m, DEFAULT_THRESHOLDS
    )
    return sim, an, laps


def _time_at(sim: SimSession, lap: int, d: float) -> float:
    """Seconds from lap ``lap``'s line to its distance ``d`` (negative: the lap before; past the length:
    the lap after), from the raw samples."""
    w, L = sim.wide, sim.track.length_m  # type: ignore[union-attr]
    k = lap - 1 if d < 0 else lap + 1 if d > L else lap
    m = w["lap"] == k
    x = w["dist_m"][m] + (-L if k < lap else L if k > lap else 0.0)
    own = w["lap"] == lap
    start = float(np.interp(0.0, w["dist_m"][own], w["t_s"][own]))
    return float(np.interp(d, x + np.arange(len(x)) * 1e-6, w["t_s"][m])) - start


def test_segments_tile_every_lap_in_driving_order_across_the_line() -> None:
    sim, an, _ = _session()
    L = sim.track.length_m  # type: ignore[union-attr]
    order = [c.id for c in sorted(sim.track.corners, key=lambda c: c.apex_m)]  # type: ignore[union-attr]
    for lap in an.laps:
        rows = sorted((r for r in an.rows if r.lap == lap), key=lambda r: r.seq)
        if len(rows) < len(order):
            continue
        assert [r.corner_id for r in rows] == order
        for a, b in zip(rows, rows[1:], strict=False):
            assert a.to_m == b.from_m
        assert rows[-1].to_m > L  # the last corner's time runs past the line
        nxt = [r for r in an.rows if r.lap == lap + 1 and r.seq == 0]
        if nxt:
            assert rows[-1].to_m - L == pytest.approx(nxt[0].from_m, abs=0.11)


def test_segment_times_are_the_raw_samples_times() -> None:
    sim, an, _ = _session()
    for r in an.rows[::7]:
        own = _time_at(sim, r.lap, r.to_m) - _time_at(sim, r.lap, r.from_m)
        assert r.time_s == pytest.approx(own, abs=0.005), (r.lap, r.corner_id)


def test_a_coast_is_measured_from_the_lift_and_named_by_the_corner_it_leads_into() -> None:
    sim, an, _ = _session()
    rows = {(r.lap, r.corner_id): r for r in an.rows}
    for e in sim.truth.events_of("coasting"):
        r = rows[(e["lap"], "t10")]
        assert r.cause == "coasting"
        assert r.lift_m == pytest.approx(e["start_m"], abs=6.0)  # where the throttle came off
        assert r.coast_s == pytest.approx(e["t_end_s"] - e["t_start_s"], abs=0.15)
        assert r.loss_s == pytest.approx(e["time_lost_s"], abs=0.05)
        assert rows[(e["lap"], "t9")].cause == ""  # the flat corner it coasted through lost nothing


def test_slip_names_lockup_and_wheelspin_and_the_next_corner_is_clean() -> None:
    sim, an, _ = _session()
    rows = {(r.lap, r.corner_id): r for r in an.rows}
    for kind in ("lockup", "wheelspin"):
        for e in sim.truth.events_of(kind):
            r = rows[(e["lap"], e["corner_id"])]
            assert r.cause == kind, (kind, r.cause, r.evidence)
            assert r.loss_s == pytest.approx(e["time_lost_s"], abs=0.05)
    for lap in (7, 8):  # T11's wheelspin exits onto the straight past the line: T1 of the next lap
        assert rows[(lap, "t1")].cause == "" and rows[(lap, "t2")].cause == ""


def test_a_slow_exit_is_the_corner_it_came_from() -> None:
    """A late brake into T4 runs deep and leaves slowly onto T5: all of it is T4's, none T5's."""
    sim, an, _ = _session()
    rows = {(r.lap, r.corner_id): r for r in an.rows}
    for e in sim.truth.events_of("late_brake"):
        r = rows[(e["lap"], "t4")]
        assert r.cause == "late_brake" and r.loss_s == pytest.approx(e["time_lost_s"], abs=0.05)
        assert rows[(e["lap"], "t5")].cause == ""
        assert rows[(e["lap"], "t5")].inherited_s > 0.0  # T5 entered slower: that time went back to T4


def test_the_publisher_stores_the_analysis_beside_the_session(tmp_path: Path) -> None:
    sim, an, _ = _session()
    res = import_sim(sim, settings_for(tmp_path / "data"), driver_id="ana")
    stored = pq.read_table(tmp_path / "data/lake/sessions" / res.session_id / "analysis.parquet").to_pylist()
    named = {(x["lap"], x["corner_id"]): x["cause"] for x in stored if x["cause"]}
    truth = {(e["lap"], e["corner_id"]): e["kind"] for e in sim.truth.events if "time_lost_s" in e}
    assert named == truth
    assert len(stored) == len(an.rows)

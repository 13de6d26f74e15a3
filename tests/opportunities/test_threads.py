"""Threads across sessions: the next simulated session with a mistake fixed resolves its thread, the
same mistake again leaves it unchanged, a smaller one is improving, and a session that did not record
the rule's channel says "no new data"."""

from __future__ import annotations

from typing import Any

import pytest

from shared.opportunity_rules import session_opportunities
from shared.simulator import SimSession, simulate
from shared.threads import session_threads
from shared.thresholds import DEFAULT_THRESHOLDS as TH
from tests.opportunities.test_opportunities import lap_inputs

SCALES = ("late_brake", "early_brake", "coasting", "wheelspin")  # mistakes whose cost scales with their size


def _opps(sim: SimSession) -> list[dict[str, Any]]:
    w, laps = lap_inputs(sim)
    assert sim.track is not None
    return session_opportunities(w, laps, sim.track, TH)["opportunities"]


def _threads(
    opps: list[dict[str, Any]], sim: SimSession, drop: tuple[str, ...] = ()
) -> dict[str, dict[str, Any]]:
    w, laps = lap_inputs(sim)
    for ch in drop:
        w.pop(ch, None)
    assert sim.track is not None
    return {t["corner_id"]: t for t in session_threads(opps, w, laps, sim.track, TH)}


@pytest.fixture(scope="module")
def first() -> tuple[SimSession, list[dict[str, Any]]]:
    sim = simulate(laps=10, seed=701, rate_hz=20, kinds=("late_brake", "early_brake", "wheelspin"))
    opps = _opps(sim)
    assert len(opps) >= 2
    return sim, opps


def test_fixing_a_mistake_resolves_its_thread_and_leaving_it_changes_nothing(first) -> None:
    sim, opps = first
    fixed = opps[0]["corner_id"]
    nxt = simulate(laps=10, seed=702, rate_hz=20, scenario=sim.scenario, fixed={fixed})
    th = _threads(opps, nxt)
    assert th[fixed]["status"] == "resolved" and th[fixed]["now"]["laps_lost"] == 0
    for o in opps[1:]:
        t = th[o["corner_id"]]
        assert t["status"] == "unchanged", t
        assert t["now"]["time_to_gain_s"] == pytest.approx(o["time_to_gain_s"], abs=0.05)
        assert t["before"]["time_to_gain_s"] == o["time_to_gain_s"]


def test_the_same_mistakes_again_are_all_unchanged(first) -> None:
    sim, opps = first
    again = _threads(opps, simulate(laps=10, seed=703, rate_hz=20, scenario=sim.scenario))
    assert {t["status"] for t in again.values()} == {"unchanged"}


def test_a_smaller_mistake_is_improving(first) -> None:
    sim, opps = first
    kinds = {e["corner_id"]: e["kind"] for e in sim.truth.events}
    o = next(x for x in opps if kinds[x["corner_id"]] in SCALES)
    less = sim.scenario.fixing({o["corner_id"]}, 0.3, laps=10)
    t = _threads(opps, simulate(laps=10, seed=704, rate_hz=20, scenario=less))[o["corner_id"]]
    assert t["status"] == "improving", t
    assert t["now"]["cost_per_lap_s"] < t["before"]["cost_per_lap_s"]


def test_a_channel_not_recorded_is_no_new_data(first) -> None:
    sim, opps = first
    braking = [o for o in opps if o["check"]["metric"] == "brake_point_m"]
    assert braking
    nxt = simulate(laps=10, seed=705, rate_hz=20, scenario=sim.scenario)
    th = _threads(opps, nxt, drop=("brake_bar", "g_long"))
    for o in braking:
        t = th[o["corner_id"]]
        assert t["status"] == "no new data" and t["now"] is None and "not recorded" in t["reason"], t


def test_a_session_too_short_to_time_the_corner_is_no_new_data(first) -> None:
    sim, opps = first
    short = simulate(laps=2, seed=706, rate_hz=20, scenario=sim.scenario.fixing(set(), laps=2))
    assert {t["status"] for t in _threads(opps, short).values()} == {"no new data"}

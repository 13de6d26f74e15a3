"""Threads over two real sessions of one driver in the lake: a problem that is new in the later session
is flagged "new", one that grows is "worse", each with its numbers (the analyses' figures, checked against
the simulator's own cost of the mistakes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.paddock.lake import configure_lake
from services.paddock.tools.registry import run_tool
from shared.analysis.summary import CornerSummary
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Event, Scenario, simulate
from shared.threads import session_threads


def _scenario(events: list[Event]) -> Scenario:
    return Scenario(events, [k for k in range(1, 11) if k not in {e.lap for e in events}])


def test_a_problem_new_this_session_is_new_and_one_that_grows_is_worse(tmp_path: Path) -> None:
    """Session 1: early braking at T6 on two laps. Session 2: the same on five laps, braking later still,
    and a coast into T3 that was not there before."""
    settings = settings_for(tmp_path / "data")
    before = [Event("early_brake", k, "t6", offset_m=25.0) for k in (3, 4)]
    now = [Event("early_brake", k, "t6", offset_m=40.0) for k in (3, 4, 5, 6, 7)]
    now += [Event("coasting", k, "t3", duration_s=2.0) for k in (4, 5)]
    a = import_sim(
        simulate(laps=10, seed=901, rate_hz=20, scenario=_scenario(before)), settings, driver_id="cy"
    )
    sim_b = simulate(laps=10, seed=902, rate_hz=20, scenario=_scenario(now))
    b = import_sim(sim_b, settings, driver_id="cy")
    configure_lake(settings)
    got = {t["corner_id"]: t for t in run_tool("get_threads", {"session_id": b.session_id})["threads"]}
    assert got["t3"]["status"] == "new" and got["t3"]["before"] is None
    assert got["t3"]["now"]["laps"] == [4, 5] and got["t3"]["cause"] == "coasting"
    t6 = got["t6"]
    assert t6["status"] == "worse"
    assert (t6["before"]["laps"], t6["now"]["laps"]) == ([3, 4], [3, 4, 5, 6, 7])
    cost = [e["time_lost_s"] for e in sim_b.truth.events_of("early_brake")]
    assert t6["now"]["cost_per_lap_s"] == pytest.approx(sum(cost) / 10, abs=0.05)
    assert t6["change_per_lap_s"] == pytest.approx(
        t6["now"]["cost_per_lap_s"] - t6["before"]["cost_per_lap_s"], abs=0.002
    )
    assert set(got) == {"t3", "t6"}
    # the progress report says the same: both corners regressing, with the threads' figures
    prog = run_tool("get_progress_report", {"session_id": b.session_id})
    reg = {x["corner"]: x["lost_per_lap_s"] for x in prog["regressing_corners"]}
    assert reg["T6"] == pytest.approx(
        [t6["before"]["cost_per_lap_s"], t6["now"]["cost_per_lap_s"]], abs=0.001
    )
    assert reg["T3"] == pytest.approx([0.0, got["t3"]["now"]["cost_per_lap_s"]], abs=0.001)
    assert prog["improving_corners"] == []
    del a


def _summary(per_lap_s: float, laps: list[int], valid: int = 10) -> CornerSummary:
    s = CornerSummary("t6", "T6", 6, valid, laps=laps, per_lap_s=per_lap_s, cause="early_brake")
    s.session_s = per_lap_s * len(laps)
    return s


@pytest.mark.parametrize(
    ("before", "now", "status"),
    [
        # 4x the time a lap on one lap instead of four: the same cost over the session, never "unchanged"
        ((0.1, [1, 2, 3, 4]), (0.4, [5]), "worse"),
        ((0.1, [1]), (0.1, [1, 2, 3, 4]), "worse"),  # as bad a lap, on 4x the laps
        ((0.4, [5]), (0.1, [1, 2, 3, 4]), "better"),  # a quarter a lap: better, though on more laps
        ((0.1, [1, 2]), (0.12, [3, 4]), "unchanged"),  # 20 % more: within a third
        ((0.3, [1, 2, 3]), (0.1, [1, 2, 3]), "better"),
    ],
)
def test_a_corner_four_times_worse_is_never_unchanged(
    before: tuple[float, list[int]], now: tuple[float, list[int]], status: str
) -> None:
    got = session_threads([_summary(*before)], [_summary(*now)])
    assert [t["status"] for t in got] == [status]
    b, n = got[0]["before"], got[0]["now"]
    assert (b["time_to_find_s"], n["time_to_find_s"]) == (before[0], now[0])
    assert n["cost_per_lap_s"] == pytest.approx(now[0] * len(now[1]) / 10, abs=1e-3)

"""Hundredths are noise: a corner is named as time to find only when laps lost the coaching table's
``opportunity_min_s`` or more there against your good laps (the stored session analysis), and the
session plan works on what the debrief names (the opportunities), with exactly the laps asked for."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from services.paddock.agents.narrative import template_narrative
from services.paddock.tools.registry import run_tool
from shared.store.lake_layout import session_dir
from shared.thresholds import DEFAULT_THRESHOLDS
from tests.support import require
from tests.support.require import missing

BAR = DEFAULT_THRESHOLDS["opportunity_min_s"]


def _lost(settings: Any, sid: str) -> dict[str, float]:
    """Each corner's time lost over the session on the laps that lost ``BAR`` or more there, read from the
    stored analysis file (a lap that stopped, spun or went off there is said apart, never ranked)."""
    d = session_dir(settings.lake_dir, sid)
    got = duckdb.sql(
        f"""SELECT corner, sum(loss_s) FROM read_parquet('{d / "analysis.parquet"}')
            WHERE loss_s >= {BAR} AND cause <> 'off' GROUP BY 1"""
    ).fetchall()
    return {str(k): float(v) for k, v in got}


@pytest.mark.parametrize("key", ["sid", "vbox_sid", "kart_sid"])
def test_only_corners_over_the_bar_are_named(lake_env: dict[str, Any], key: str) -> None:
    sid = lake_env[key]
    if sid is None:
        missing(require.SHARED, f"../shared is not present ({key})")
    lost = _lost(lake_env["settings"], sid)
    hl = run_tool("get_session_highlights", {"session_id": sid})
    named = [o["corner"] for o in hl["biggest_opportunities"]]
    assert named == sorted(lost, key=lambda c: -lost[c])[:3]
    goals = run_tool("get_goal_targets", {"session_id": sid})
    assert {t["corner"] for t in goals["corner_targets"]} <= set(lost)


def test_a_session_without_an_opportunity_says_so() -> None:
    hl = {"valid_laps": 5, "best_lap": 2, "best_lap_s": 95.342, "biggest_opportunities": []}
    why = "no corner loses time against your good laps often enough to name"
    said, focus = template_narrative("debrief", {"highlights_data": {**hl, "opportunities_reason": why}})
    assert focus == [] and f"No corner stands out: {why}." in said
    # no reason given (no analysis): nothing is claimed about corners
    said, _ = template_narrative("debrief", {"highlights_data": hl})
    assert "corner" not in said.lower()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 10, 12])
def test_the_plan_has_the_laps_asked_for_and_works_on_the_opportunities(
    lake_env: dict[str, Any], n: int
) -> None:
    sid = lake_env["sid"]
    plan = run_tool("get_session_plan_context", {"session_id": sid, "n_laps": n})
    assert sum(b["laps"] for b in plan["blocks"]) == n and all(b["laps"] >= 1 for b in plan["blocks"])
    opps = run_tool("get_opportunities", {"session_id": sid})["opportunities"]
    assert opps, "the simulated session has injected mistakes"
    work = [
        b["focus"] for b in plan["blocks"] if b["focus"] not in ("cool-down",) and "warm" not in b["focus"]
    ]
    # the first work block is the first opportunity, in the debrief's words
    assert work[0] == f"{opps[0]['corner']}: {opps[0]['target']}"

"""The opportunities and threads through the paddock: the tools over a real lake (two simulated sessions
of one driver, the second with the first session's top mistake fixed), the debrief and brief digests,
the template narrator, and the "where can I find time?" route."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from services.paddock.agents.data_agents import DATA_SPECS, compact
from services.paddock.agents.digest import build_digest
from services.paddock.agents.narrative import template_narrative
from services.paddock.agents.registry import BRIEF_KEYS
from services.paddock.lake import configure_lake
from services.paddock.tools.registry import TOOLS, run_tool, tool_schemas
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import simulate
from tests.support.asking import answer_of
from tests.support.sweep import injected


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    settings = settings_for(tmp_path_factory.mktemp("opps") / "data")
    first = simulate(laps=10, seed=801, rate_hz=20, kinds=("late_brake", "early_brake", "wheelspin"))
    a = import_sim(first, settings, driver_id="ana").session_id
    configure_lake(settings)
    top = run_tool("get_opportunities", {"session_id": a})["opportunities"][0]["corner_id"]
    nxt = simulate(laps=10, seed=802, rate_hz=20, scenario=first.scenario, fixed={top})
    b = import_sim(nxt, settings, driver_id="ana").session_id
    other = import_sim(simulate(laps=4, seed=803, rate_hz=20), settings, driver_id="bo").session_id
    configure_lake(settings)
    return {"a": a, "b": b, "other": other, "first": first, "top": top}


def _state(sid: str, keys: list[str]) -> dict[str, Any]:
    state: dict[str, Any] = {"session_id": sid}
    for k in keys:
        tool, build = DATA_SPECS[k]
        state[k] = compact(run_tool(tool, build(state)))
    return state


def test_the_tools_are_registered_with_their_docstrings() -> None:
    schemas = {s["name"]: s for s in tool_schemas()}
    for name in ("get_opportunities", "get_threads"):
        assert name in TOOLS and "session_id" in schemas[name]["parameters"]["properties"]
        assert schemas[name]["description"] == TOOLS[name].__doc__


def test_get_opportunities_names_the_injected_corners(lake) -> None:
    out = run_tool("get_opportunities", {"session_id": lake["a"]})
    cost = injected(lake["first"])
    got = [o["corner_id"] for o in out["opportunities"]]
    assert got and set(got[: min(3, len(cost))]) <= set(cost)
    for o in out["opportunities"]:
        assert o["time_to_find_s"] == pytest.approx(cost[o["corner_id"]], abs=0.05)


def test_get_threads_follows_the_previous_session_only_of_the_same_driver(lake) -> None:
    out = run_tool("get_threads", {"session_id": lake["b"]})
    assert out["previous_session_id"] == lake["a"]
    status = {t["corner_id"]: t["status"] for t in out["threads"]}
    assert status[lake["top"]] == "resolved"
    assert all(s in ("unchanged", "better", "worse") for c, s in status.items() if c != lake["top"]), status
    first = run_tool("get_threads", {"session_id": lake["a"]})
    assert first["threads"] == [] and "no earlier session" in first["reason"]
    alone = run_tool("get_threads", {"session_id": lake["other"]})  # another driver: not a's thread
    assert alone["threads"] == []
    bad = run_tool("get_threads", {"session_id": "nope"})
    assert bad["error"]["code"] == "unknown_session"


def test_the_debrief_says_the_opportunities_and_the_threads(lake) -> None:
    state = _state(lake["b"], list(DATA_SPECS))
    digest = build_digest("debrief", state)
    top = lake["top"].upper()
    assert f"Thread {top} from last session: resolved" in digest
    assert "Opportunity 1, " in digest
    text, _ = template_narrative("debrief", state)
    assert f"Thread {top} from last session: resolved" in text and "Focus: " in text


def test_the_brief_picks_at_most_two_open_threads_first(lake) -> None:
    state = _state(lake["b"], BRIEF_KEYS)
    digest = build_digest("brief", state)
    line = next(x for x in digest.splitlines() if x.startswith("Work on next session (two at most): "))
    picks = line.split(": ", 1)[1].split("; ")
    assert 1 <= len(picks) <= 2
    assert "since the session before" in picks[0]  # a mistake made again comes first
    assert lake["top"].upper() not in line.split(",")[0]  # the fixed one is not on the list
    text, _ = template_narrative("brief", state)
    assert text.startswith("Work on: ") or "Work on: " in text


def test_where_can_i_find_time_routes_to_the_opportunities(lake) -> None:
    for q in ("Where can I find time?", "Which corner costs me the most time?", "What should I work on?"):
        found = answer_of(q, lake["a"])
        assert found is not None and found.tool == "get_opportunities", q
        first = found.result["opportunities"][0]
        assert f"Opportunity 1, {first['corner']}" in found.text
    # the words alone ask about the last session (its comparison); the "threads" topic picked, its threads
    assert answer_of("Did I fix it since last session?", lake["b"], "threads").tool == "get_threads"
    corner = answer_of("Where do I lose time in turn 11?", lake["a"])
    assert corner is None or corner.tool != "get_opportunities"


def test_the_tablet_has_the_cards() -> None:
    js = (Path(__file__).resolve().parents[2] / "services/paddock/web/static/cards.js").read_text()
    assert 'opportunities_data: "Three opportunities"' in js and 'threads_data: "Since last session"' in js
    assert "function opportunityRows" in js and "function threadRows" in js


def test_the_brief_puts_a_mistake_made_again_before_a_new_one() -> None:
    from services.paddock.agents.coaching_lines import brief_picks

    opps = [{"corner_id": c, "rank": i + 1} for i, c in enumerate(("t2", "t6", "t11"))]
    threads = [
        {"corner_id": "t11", "status": "unchanged"},
        {"corner_id": "t2", "status": "resolved"},
        {"corner_id": "t4", "status": "new"},
    ]
    assert [o["corner_id"] for o in brief_picks(opps, threads)] == ["t11", "t2"]
    assert [o["corner_id"] for o in brief_picks(opps, [])] == ["t2", "t6"]

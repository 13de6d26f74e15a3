"""The debrief's digest (what the narrator reads, and every fact the narrated debrief carries) with all
eleven data agents' results, as the pipeline builds it: it fits the budget by dropping context lines, never
a warning or a car problem. The simulated session's truth (its TPMS alarm on lap 4 and its oil-pressure
drop) comes from the simulator's ground truth; the real files' sessions check the budget."""

from __future__ import annotations

from typing import Any

import pytest

from services.paddock.agents.data_agents import DATA_SPECS
from services.paddock.agents.digest import DROP_ORDER, MAX_DIGEST_CHARS, build_digest, problem_labels
from services.paddock.agents.narrative import template_narrative
from services.paddock.tools.registry import run_tool


def _state(sid: str) -> dict[str, Any]:
    """Every data agent's tool on ``sid``, keyed as the debrief's state is."""
    return {key: run_tool(tool, build({"session_id": sid})) for key, (tool, build) in DATA_SPECS.items()}


def test_the_full_debrief_digest_keeps_the_alarm_and_the_oil_drop(lake_env: dict[str, Any]) -> None:
    truth = lake_env["sim"].truth
    tpms = [e for e in truth.events if e["kind"] == "tpms_alarm"]
    oil = sorted({e["lap"] for e in truth.events if e["kind"] == "oil_pressure_drop"})
    assert tpms and oil  # the scenario has both
    state = _state(lake_env["bare_sid"])
    digest = build_digest("debrief", state)
    lines = digest.splitlines()
    assert len(digest) <= MAX_DIGEST_CHARS
    # the eleven agents' lines are more than the budget holds: something was dropped to fit
    assert sum(len(x) + 1 for x in unbudgeted_lines(state)) > MAX_DIGEST_CHARS
    laps = " and ".join(f"lap {n}" for n in oil)
    assert any(x.startswith("Engine: oil pressure low under load on " + laps) for x in lines), digest
    assert any(x.startswith("Warnings: the rear-right tyre pressure alarm") for x in lines), digest
    assert f"lap {tpms[0]['lap']}" in next(x for x in lines if x.startswith("Warnings:"))
    assert any(x.startswith("Safety: TPMS alarm x1") for x in lines), digest
    assert "tpms_alarm" not in digest
    # the template debrief says the alarm once, in words, and no internal name
    text, focus = template_narrative("debrief", state)
    assert "tpms_alarm" not in text and "TPMS alarm x" not in text, text
    assert text.count("tyre pressure alarm") == 1, text
    # each focus target said once: the plan names its corner only ("3 laps T7")
    assert focus and all(text.count(f) == 1 for f in focus), text
    assert f"laps {focus[0].split(':')[0]};" in text, text


def unbudgeted_lines(state: dict[str, Any]) -> list[str]:
    """The digest's lines before the budget."""
    return build_digest("debrief", state, budget=10**9).splitlines()


@pytest.mark.parametrize("key", ["vbox_sid", "kart_sid", "xrk_sid", "sid"])
def test_a_digest_drops_context_before_the_focus(lake_env: dict[str, Any], key: str) -> None:
    if lake_env.get(key) is None:
        pytest.fail(f"../shared/data is missing: {key} needs it")
    state = _state(lake_env[key])
    full, got = unbudgeted_lines(state), build_digest("debrief", state).splitlines()
    assert sum(len(x) + 1 for x in got) <= MAX_DIGEST_CHARS
    gone = [x for x in full if x not in got]
    assert [x for x in got if x in full] == got  # the order kept, no line cut
    for x in gone:  # only lines of the drop order go, and only when the whole did not fit
        assert x.startswith(DROP_ORDER), x
    if gone:
        assert sum(len(x) + 1 for x in full) > MAX_DIGEST_CHARS
    kept = [x for x in full if x.startswith(("Session at", "Best:", "Focus next time", "Warnings:"))]
    assert all(x in got for x in kept)
    # the labels dropped are the first ones of the drop order: none kept that goes before one dropped,
    # a line reporting a problem apart
    problems = problem_labels(state)
    rank = {x: next((i for i, p in enumerate(DROP_ORDER) if x.startswith(p)), None) for x in full}
    dropped = [rank[x] for x in gone]
    held = [r for x in got if (r := rank[x]) is not None and not x.startswith(problems)]
    if dropped and held:
        assert max(dropped) < min(held), (gone, got)

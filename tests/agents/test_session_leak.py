"""No leak between sessions: a question and a debrief of session A (wheel speeds, lockups and wheelspin),
then a brief of session B (no wheel speeds) for the same driver through the one CoachService, real ADK,
real DuckDB, the scripted model server over HTTP. Nothing of A (its traction figures, its best lap, its
question) reaches B's brief: not the model's request, not the text, not the data cards."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.service import CoachEvent, CoachService, ask
from services.paddock.lake import configure_lake
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.scripted_llm import start_scripted_llm

DRIVER = "dee"
QUESTION_A = "how many lockups did I have at the hairpin on lap 4?"


def _run(agen: Any) -> list[CoachEvent]:
    async def go() -> list[CoachEvent]:
        return [e async for e in agen]

    return asyncio.run(go())


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    llm = start_scripted_llm()
    settings = settings_for(tmp_path_factory.mktemp("leak") / "data", adk_openai_url=llm.url, adk_timeout_s=8)
    a = import_sim(cached_sim(laps=8, seed=7), settings, driver_id=DRIVER).session_id
    sim_b = cached_sim(laps=4, seed=12)
    wide_b = {
        k: (np.full_like(v, np.nan) if k.startswith("wheel_speed_") else v) for k, v in sim_b.wide.items()
    }
    b = import_sim(dataclasses.replace(sim_b, wide=wide_b), settings, driver_id=DRIVER).session_id
    configure_lake(settings)
    svc = CoachService(settings)
    asyncio.run(svc.startup())
    yield {"llm": llm, "svc": svc, "a": a, "b": b}
    llm.stop()


def _figures_of_a(session_id: str) -> list[str]:
    """A's own traction figures ("9 lockup", "8 wheelspin"), counted from its traction events."""
    from services.paddock.tools.registry import run_tool

    trac = run_tool("get_traction_events", {"session_id": session_id})
    kinds = [e["kind"] for e in trac["events"]]
    assert kinds, "session A has lockups or wheelspin to leak"
    return [f"{kinds.count(k)} {k}" for k in set(kinds)]


# any count of lockups or wheelspin: session B has no wheel speeds, so none of its own
COUNTED = re.compile(r"\b\d+ (lockups?|wheelspins?)\b|\b\d+ (traction )?events\b")


def test_a_brief_of_session_b_carries_nothing_of_session_a(env) -> None:
    svc: CoachService = env["svc"]
    llm = env["llm"]
    a, b = env["a"], env["b"]
    leaks = _figures_of_a(a)
    asked = _run(ask(svc, DRIVER, QUESTION_A, session_id=a))
    assert asked[-1].type == "done"
    before = len(llm.requests)
    debrief = _run(svc.debrief(a, DRIVER))
    assert debrief[-1].type == "done" and debrief[-1].data["narrator"] == "llm"
    # the debrief's narrator is handed the debrief's words, not the question asked before it
    debrief_prompts = json.dumps(llm.requests[before:])
    assert "debrief my session" in debrief_prompts and QUESTION_A not in debrief_prompts
    trac_a = [e.data["data"] for e in debrief if e.type == "data" and e.data["key"] == "traction_data"]
    assert [t["count"] for t in trac_a] == [sum(int(f.split()[0]) for f in leaks)]  # A's traction, in A's

    before = len(llm.requests)
    brief = _run(svc.brief(DRIVER, session_id=b))
    done = brief[-1]
    assert done.type == "done" and done.data["narrator"] == "llm"
    prompts = json.dumps(llm.requests[before:])
    assert "brief me for today" in prompts  # the model was asked, about B
    cards = json.dumps([e.data for e in brief if e.type == "data"])
    for text, what in (
        (prompts, "the model's request"),
        (done.data["text"], "the brief"),
        (cards, "the cards"),
    ):
        assert QUESTION_A not in text, what
        for figure in leaks:
            assert figure not in text, (what, figure)
        assert COUNTED.search(text) is None, (what, COUNTED.search(text))
    # the threads card names the session before on purpose (a problem carried over): only there
    assert a not in prompts and a not in done.data["text"]
    # the agent state B's brief was built from: its evidence and every data output are B's (a brief
    # reads no traction, so none at all), the question its own
    sid = asyncio.run(svc._session(DRIVER, b, {}))
    got = asyncio.run(svc.sessions.get_session(app_name="pitwall", user_id=DRIVER, session_id=sid))
    assert got is not None
    state = dict(got.state)
    assert state["session_id"] == b and state["user_question"] == "brief me for today"
    assert state.get("traction_data") is None
    evidence = str(state["evidence"])
    assert "Traction" not in evidence and COUNTED.search(evidence) is None, evidence
    assert QUESTION_A not in json.dumps(state, default=str)


def test_each_lake_session_has_its_own_agent_session_and_reset_closes_them(env) -> None:
    svc: CoachService = env["svc"]
    asyncio.run(svc.reset(DRIVER))
    sa = asyncio.run(svc._session(DRIVER, env["a"], {}))
    sb = asyncio.run(svc._session(DRIVER, env["b"], {}))
    assert sa != sb and asyncio.run(svc._session(DRIVER, env["a"], {})) == sa
    assert svc.active_drivers >= 1
    assert asyncio.run(svc.reset(DRIVER)) == {"driver_id": DRIVER, "reset": True}
    assert asyncio.run(svc._session(DRIVER, env["a"], {})) not in (sa, sb)

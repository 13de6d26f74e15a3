"""The model adds, never subtracts (issue #32, item 4): whatever a question's narrator writes, the driver
reads every figure of the data answer, in the data answer's order after the model's words; the model's
words are shown (``narrator: "llm"``) only when they add something. A real service over a simulated
session, the model a scripted OpenAI-compatible server (the network boundary); the lap times checked
against the simulator's ground truth."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from services.paddock.agents.service import CoachEvent, CoachService, ask
from services.paddock.lake import configure_lake
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.asking import plan_of
from tests.support.scripted_llm import start_scripted_llm

QUESTION = "why was lap 3 slower than lap 2?"
FIGURE = re.compile(r"\d+(?:[:.]\d+)*")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    llm = start_scripted_llm()
    settings = settings_for(tmp_path_factory.mktemp("adds") / "data", adk_openai_url=llm.url)
    sim = cached_sim(laps=5, seed=7)
    sid = import_sim(sim, settings, driver_id="ana").session_id
    configure_lake(settings)
    svc = CoachService(settings)
    asyncio.run(svc.startup())
    plan = plan_of(QUESTION, sid)
    assert plan is not None
    yield {"llm": llm, "svc": svc, "sid": sid, "sim": sim, "data": plan["text"]}
    llm.stop()


def _ask(env: dict[str, Any], reply: str) -> tuple[dict[str, Any], str]:
    """(the final ``done`` data, what streamed as tokens) for QUESTION with the model replying ``reply``."""

    async def go() -> list[CoachEvent]:
        return [e async for e in ask(env["svc"], "ana", QUESTION, session_id=env["sid"])]

    env["llm"].script.append({"text": reply})
    events = asyncio.run(go())
    assert events[-1].type == "done", events[-1]
    return events[-1].data, "".join(e.data["text"] for e in events if e.type == "token")


def _lap_times(sim: Any) -> list[str]:
    """Laps 2 and 3 as the driver reads them, from the simulator's own lap crossings."""
    out = []
    for lap in (2, 3):
        s = next(x["time_s"] for x in sim.truth.laps if x["lap"] == lap)
        out.append(f"{int(s // 60)}:{s % 60:06.3f}")
    return out


def test_the_data_answer_states_the_true_lap_times(env) -> None:
    laps = _lap_times(env["sim"])
    # the importer's line crossings against the simulator's: within one 50 Hz sample
    found = re.findall(r"\b\d:\d{2}\.\d{3}\b", env["data"])
    assert len(found) >= 2 and all(any(abs(_secs(f) - _secs(t)) <= 0.02 for f in found) for t in laps), (
        env["data"],
        laps,
    )


def _secs(t: str) -> float:
    m, s = t.split(":")
    return int(m) * 60 + float(s)


def test_prose_that_drops_figures_is_followed_by_every_fact_it_left_out(env) -> None:
    prose = "Lap 3 was slower than lap 2, mostly at T7: brake a touch later there and carry more speed."
    done, streamed = _ask(env, prose + " [EMOTION:neutral]")
    data = env["data"]
    assert done["narrator"] == "llm" and done["complete"] is True, done
    assert done["text"].startswith(prose + " ") and streamed == done["text"]
    rest = done["text"][len(prose) + 1 :]
    # every figure of the data answer, in its order, after the model's words; nothing else added
    assert FIGURE.findall(rest) == FIGURE.findall(data) and len(done["text"]) > len(data)
    assert done["ungrounded"] == []


def test_prose_that_keeps_every_fact_is_shown_as_the_models(env) -> None:
    data = env["data"]
    prose = f"{data} Brake a touch later into the slow corners and carry more speed."
    done, streamed = _ask(env, prose + " [EMOTION:encouraging]")
    assert done["narrator"] == "llm" and done["emotion"] == "encouraging", done
    assert done["text"] == prose and streamed == prose  # nothing left out: nothing follows


def test_picks_without_words_of_the_models_own_give_the_data_answer(env) -> None:
    """The model only reordered Pitwall's sentences: the driver gets the data answer, labelled as such."""
    reply = json.dumps(
        {"emotion": "neutral", "answer": [{"fact": "f1", "note": ""}, {"fact": "f3", "note": ""}]}
    )
    done, _ = _ask(env, reply)
    assert done["narrator"] == "data" and done["text"] == env["data"], done
    assert "no words of its own" in (done["reason"] or ""), done


def test_a_specialists_prose_is_followed_by_the_data_answer_it_does_not_carry(env) -> None:
    """A question no family answers goes to the routed specialist: its checked prose, then what Pitwall
    understood and can answer (its data answer), never the prose alone."""
    question = "should I change my racing line in the wet?"
    plan = plan_of(question, env["sid"])
    assert plan is not None and plan["result"].get("understood"), plan
    prose = "Keep off the rubbered line in the wet, where the grip is lowest."
    env["llm"].script.append({"text": prose})

    async def go() -> list[CoachEvent]:
        # another driver's conversation: no earlier question of this module to follow up on
        return [e async for e in ask(env["svc"], "bo", question, session_id=env["sid"])]

    done = asyncio.run(go())[-1].data
    assert done["narrator"] == "llm" and done["agent"] != "AskNarrator", done
    assert done["text"].startswith(prose + " "), done
    # after the prose: the data answer, every word of it in its order (its clauses as sentences)
    words = re.compile(r"[a-z0-9]+")
    assert words.findall(done["text"][len(prose) :].lower()) == words.findall(plan["text"].lower())

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


def _ask_as(env: dict[str, Any], driver: str, question: str, reply: str) -> dict[str, Any]:
    """The final ``done`` data of ``question`` asked by ``driver`` (a conversation of its own: no earlier
    question of this module to follow up on) with the model replying ``reply``."""

    async def go() -> list[CoachEvent]:
        return [e async for e in ask(env["svc"], driver, question, session_id=env["sid"])]

    env["llm"].script.append({"text": reply})
    events = asyncio.run(go())
    assert events[-1].type == "done", events[-1]
    return events[-1].data


def test_a_question_the_data_cannot_answer_gets_what_was_understood_never_a_specialists_prose(env) -> None:
    """No family answers it: the narrator over "what I understood and what I can answer" (the one model
    call, constrained to its facts), every word of that reply after the model's; the invented cause (the
    fuel system, which no fact speaks of) never reaches the driver."""
    question = "should I change my racing line in the wet?"
    plan = plan_of(question, env["sid"])
    assert plan is not None and plan["result"].get("understood"), plan
    kept = "Keep off the rubbered line in the wet, where the grip is lowest."
    sent = len(env["llm"].requests)
    done = _ask_as(env, "bo", question, f"There is a problem with the fuel system. {kept}")
    calls = env["llm"].requests[sent:]
    # one call, the narrator's: its fact-pick schema, no specialist's tools
    assert len(calls) == 1 and "response_format" in calls[0] and not calls[0].get("tools"), calls
    assert done["narrator"] == "llm" and done["text"].startswith(kept + " "), done
    assert "fuel" not in done["text"].lower(), done
    # after the prose: the data answer, every word of it in its order (its clauses as sentences)
    words = re.compile(r"[a-z0-9]+")
    assert words.findall(done["text"][len(kept) :].lower()) == words.findall(plan["text"].lower())


def test_a_sentence_naming_a_part_no_fact_speaks_of_is_dropped(env) -> None:
    """The model's prose over a lap comparison invents a gearbox fault: that sentence is dropped, its
    coaching sentence stays, and every figure of the data answer follows."""
    coaching = "Brake a touch later and carry more speed through the slow corners."
    done = _ask_as(env, "cy", QUESTION, f"Your gearbox was slipping out of gear. {coaching}")
    assert done["narrator"] == "llm" and done["text"].startswith(coaching + " "), done
    assert "gearbox" not in done["text"].lower(), done
    assert FIGURE.findall(done["text"][len(coaching) :]) == FIGURE.findall(env["data"])


def test_a_note_naming_a_part_no_fact_speaks_of_is_dropped(env) -> None:
    """A pick's note in plain coaching words that speaks of the tyres (no fact does): the fact alone, so the
    driver gets the data answer, labelled as such."""
    assert "tyre" not in env["data"].lower() and "tire" not in env["data"].lower()
    reply = json.dumps({"emotion": "neutral", "answer": [{"fact": "f1", "note": "the tyres were not ready"}]})
    done = _ask_as(env, "di", QUESTION, reply)
    assert done["narrator"] == "data" and done["text"] == env["data"], done

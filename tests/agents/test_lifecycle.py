"""The request lifecycle on a slow, weak model: compact evidence, streaming deadlines, session scope,
answers from the data, and weak-model robustness. Real ADK + LiteLLM over HTTP against the scripted server
(failure injection); real DuckDB and Parquet from simulated sessions."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from services.paddock.agents.data_agents import DATA_SPECS, run_data_spec
from services.paddock.agents.digest import build_digest, estimate_tokens
from services.paddock.agents.factsheet import SYSTEM, FactSheet, messages
from services.paddock.agents.narrative import facts_of, grounding_check
from services.paddock.agents.registry import BRIEF_KEYS
from services.paddock.agents.service import CoachEvent, CoachRequest, CoachService, UnknownSession, ask
from services.paddock.lake import configure_lake
from services.paddock.sse import ModelBusy, ModelGate
from services.paddock.tools.registry import run_tool
from shared.display import lap_time
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.asking import plan_of
from tests.support.scripted_llm import start_scripted_llm


def _run(agen: Any) -> list[CoachEvent]:
    async def go() -> list[CoachEvent]:
        return [e async for e in agen]

    return asyncio.run(go())


def _no_valid_lap_sim() -> Any:
    sim = copy.copy(cached_sim(laps=2, seed=3, rate_hz=10))
    keep = sim.wide["t_s"] < 60  # half a lap: no lap is ever completed
    sim.wide = {k: v[keep] for k, v in sim.wide.items()}
    return sim


def _other_track_sim() -> Any:
    sim = copy.copy(cached_sim(laps=3, seed=5, rate_hz=10))
    sim.track = sim.track.model_copy(update={"id": "kart_club", "name": "Kart club"})
    sim.meta = {**sim.meta, "track_id": "kart_club"}
    return sim


@pytest.fixture(scope="module", autouse=True)
def _no_lake_left_open() -> Iterator[None]:
    """Close the lakes these tests configure: a DuckDB connection left in the module global outlives the
    tests, and a process forked afterwards (mutmut 3 forks one child per mutant) dies on its threads."""
    from services.paddock import lake as lake_mod

    before = lake_mod._LAKE
    yield
    if lake_mod._LAKE is not None and lake_mod._LAKE is not before:
        lake_mod._LAKE.con.close()
    lake_mod._LAKE = before


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    llm = start_scripted_llm()
    d = tmp_path_factory.mktemp("lifecycle") / "data"
    settings = settings_for(d, adk_openai_url=llm.url, llm_first_token_s=20, llm_idle_s=20)
    old = import_sim(cached_sim(laps=5, seed=7), settings, driver_id="ana").session_id
    # the driver's later sessions: one at a kart track (faster "best"), one with no valid lap
    kart = import_sim(_other_track_sim(), settings, driver_id="ana").session_id
    empty = import_sim(_no_valid_lap_sim(), settings, driver_id="ana").session_id
    configure_lake(settings)
    svc = CoachService(settings)
    asyncio.run(svc.startup())
    yield {"llm": llm, "svc": svc, "sid": old, "kart": kart, "empty": empty, "settings": settings}
    llm.stop()


@contextlib.contextmanager
def deadlines(env: dict[str, Any], first_s: float, idle_s: float) -> Iterator[CoachService]:
    """The same service with other streaming deadlines (restored afterwards)."""
    svc = env["svc"]
    before = svc.settings
    svc.settings = before.model_copy(update={"llm_first_token_s": first_s, "llm_idle_s": idle_s})
    try:
        yield svc
    finally:
        svc.settings = before
        env["llm"].script.clear()


def _state(sid: str, keys: list[str]) -> dict[str, str]:
    async def go() -> dict[str, str]:
        return {k: await run_data_spec(k, sid, "ana") for k in keys}

    return asyncio.run(go())


# ---- item 2: compact evidence ------------------------------------------------------------------------
def test_digest_of_an_hour_fits_the_token_budget_and_keeps_the_citable_numbers(tmp_path) -> None:
    settings = settings_for(tmp_path / "hour")
    sid = import_sim(cached_sim(laps=34, seed=7), settings, driver_id="ana").session_id
    configure_lake(settings)
    state = _state(sid, list(DATA_SPECS))
    debrief = messages("debrief my session", FactSheet.from_lines(build_digest("debrief", state)))
    brief_state = {k: state[k] for k in BRIEF_KEYS}
    brief = messages("brief me", FactSheet.from_lines(build_digest("brief", brief_state)))

    def text(messages: list[dict[str, str]]) -> str:
        return "\n".join(m["content"] for m in messages)

    # a conservative count (every digit a token); the chat template adds about 20 tokens
    assert estimate_tokens(text(debrief)) + 20 <= 1000 and estimate_tokens(text(brief)) + 20 <= 600
    raw = sum(len(v) for v in state.values())
    assert len(text(debrief)) * 4 < raw  # far smaller than the data agents' JSON
    hl = json.loads(state["highlights_data"])
    digest = build_digest("debrief", state)
    # lap times as the driver reads them everywhere (shared.display): 1:48.178
    assert f"lap {hl['best_lap']}, {lap_time(hl['best_lap_s'])}" in digest
    assert lap_time(hl["theoretical_best_s"]) in digest and lap_time(hl["slowest_lap_s"]) in digest
    for o in hl["biggest_opportunities"]:
        assert o["corner"].upper() in digest
    # the system prompt is the same bytes for every session (the server's prompt cache keeps it)
    assert debrief[0]["content"] == SYSTEM and brief[0]["content"] == SYSTEM
    # every line of the digest is a fact the model reads (and the narrative keeps, picked or not)
    lines = [x for x in digest.splitlines() if x.strip()]
    assert [t.rstrip(".") for _, t in FactSheet.from_lines(digest).facts] == [x.rstrip(".") for x in lines]
    assert all(t in debrief[1]["content"] for _, t in FactSheet.from_lines(digest).facts)
    # names as a driver reads them, never the profile ids
    assert (
        "bmw_e46_m3_aim_mxp" not in digest and "Session at Sonoma Raceway in the 2003 BMW M3 (E46)" in digest
    )


def test_grounding_accepts_exactly_the_numbers_in_the_digest(env) -> None:
    state = _state(env["sid"], list(DATA_SPECS))
    digest = build_digest("debrief", state)
    facts = facts_of(digest)
    # every lap, corner and time the digest states is accepted when cited back ...
    assert grounding_check(digest, facts) == []
    hl = json.loads(state["highlights_data"])
    # ... and a number that is in the raw data but not in the digest is not
    hidden = max(c["mean_time_s"] for c in json.loads(state["telemetry_data"])["corners"] if c["mean_time_s"])
    assert not re.search(rf"(?<![\d.]){re.escape(f'{hidden:g}')}(?!\d)", digest)  # not as a number of its own
    cited = sorted(facts.corners)[0].upper()  # a corner the digest names, so only the time is wrong
    assert grounding_check(f"{cited} takes {hidden:g} s", facts) == [f"{hidden:g} s"]
    assert grounding_check(f"lap {hl['best_lap'] + 40} was quick", facts) == [f"lap {hl['best_lap'] + 40}"]


def test_the_narrative_call_carries_the_digest_not_the_json(env) -> None:
    llm, svc = env["llm"], env["svc"]
    before = len(llm.requests)
    events = _run(svc.debrief(env["sid"], "ana"))
    done = events[-1].data
    assert done["narrator"] == "llm" and done["complete"] is True and len(llm.requests) - before == 1
    system, user = (m["content"] for m in llm.requests[-1]["messages"])
    assert system == SYSTEM and "Best: lap" in user and '"biggest_opportunities"' not in user
    assert "Driver:" not in user and "Data (" not in user  # no transcript for the model to continue
    schema = llm.requests[-1]["response_format"]["schema"]  # the reply is constrained to fact picks
    assert schema["properties"]["answer"]["items"]["properties"]["fact"]["enum"][0] == "f1"
    assert done["evidence_chars"] < 1500
    # the screen still gets the full data
    hl = next(e.data["data"] for e in events if e.type == "data" and e.data["key"] == "highlights_data")
    assert "biggest_opportunities" in hl and "events" in hl


# ---- item 3: deadlines that fit streaming ----------------------------------------------------------
def test_no_first_token_in_time_gives_the_template(env) -> None:
    env["llm"].script.append({"delay_s": 30, "text": "Too late. [EMOTION:neutral]"})
    with deadlines(env, first_s=1.5, idle_s=30) as svc:
        events = _run(svc.debrief(env["sid"], "ana"))
    done = events[-1].data
    assert "token" not in [e.type for e in events]
    assert done["narrator"] == "template" and "no first token within 1.5 s" in done["reason"]


def test_a_question_with_no_first_token_in_time_is_unavailable_not_an_error(env) -> None:
    # a voice-script request: its answer is the model's own tool call, so there is no data to fall back on
    env["llm"].script.append({"delay_s": 30, "text": "Too late. [EMOTION:neutral]"})
    with deadlines(env, first_s=1.5, idle_s=30) as svc:
        events = _run(ask(svc, "ana", "write my voice scripts", session_id=env["sid"]))
    assert [e.type for e in events].count("error") == 0
    done = events[-1].data
    assert done["available"] is False and "no first token within 1.5 s" in done["reason"]


def test_a_question_with_no_first_token_in_time_is_answered_from_the_data_pitwall_fetched(env) -> None:
    env["llm"].script.append({"delay_s": 30, "text": "Too late. [EMOTION:neutral]"})
    with deadlines(env, first_s=1.5, idle_s=30) as svc:
        events = _run(ask(svc, "ana", "setup advice: understeer in slow corners", session_id=env["sid"]))
    done = events[-1].data
    assert [e.type for e in events].count("error") == 0 and done["available"] is True
    assert done["narrator"] == "data" and "no first token within 1.5 s" in done["reason"]
    assert done["tools"] == [
        {
            "tool": "get_handling_balance",
            "args": {"session_id": env["sid"], "corner_name": None},
            "by": "pitwall",
        }
    ]  # fetched once, before the model was asked, and not again: the balance family's
    plan = plan_of("setup advice: understeer in slow corners", env["sid"])
    assert plan is not None and done["text"] == plan["text"] and done["ungrounded"] == []


def _picks(*picks: tuple[str, str], emotion: str = "neutral") -> str:
    """A constrained reply as the model writes it: fact ids and notes in words."""
    items = ", ".join(json.dumps({"fact": f, "note": n}) for f, n in picks)
    return f'{{"emotion": "{emotion}", "answer": [{items}]}}'


def test_silence_after_tokens_keeps_them_and_ends_incomplete(env) -> None:
    reply = _picks(("f1", "Good start."), ("f2", "then it all went quiet"))
    n_words = len(_picks(("f1", "Good start.")).split()) - 1  # the first pick closes, the second stalls
    env["llm"].script.append({"text": reply, "stall_after": n_words + 2})
    with deadlines(env, first_s=60, idle_s=1.5) as svc:
        events = _run(svc.debrief(env["sid"], "ana"))
    streamed = "".join(e.data["text"] for e in events if e.type == "token")
    done = events[-1].data
    assert streamed.endswith("Good start.") and "quiet" not in streamed
    assert done["narrator"] == "llm" and done["complete"] is False and "silent" in done["reason"]
    # the template never replaces sentences the driver saw; every fact of the digest follows them
    assert done["text"].startswith(streamed)
    state = {e.data["key"]: e.data["data"] for e in events if e.type == "data"}
    facts = [t for _, t in FactSheet.from_lines(build_digest("debrief", state)).facts]
    assert len(facts) > 2 and streamed.startswith(facts[0])
    assert all(t[0].upper() + t[1:] in done["text"][len(streamed) :] for t in facts[1:]), done["text"]
    row = svc.store.query(
        "SELECT text, complete FROM conversations WHERE conversation_id = ? AND role = 'assistant'",
        [done["conversation_id"]],
    )[0]
    assert row["complete"] is False and row["text"] == done["text"]


def test_a_long_steady_stream_is_not_cut_by_a_total_limit(env) -> None:
    note = "keep it smooth through the middle and stay patient on the throttle"
    reply = _picks(*[(f"f{i}", note) for i in range(1, 5)])
    env["llm"].script.append({"text": reply, "word_delay_s": 0.08})
    with deadlines(env, first_s=5, idle_s=2) as svc:
        done = _run(svc.debrief(env["sid"], "ana"))[-1].data
    # about 80 words at 0.08 s: longer than both deadlines together, never silent for long
    assert (
        done["narrator"] == "llm" and done["complete"] is True and done["text"].count("Keep it smooth") == 4
    )


def test_an_answer_cut_at_the_token_limit_is_kept_and_marked_incomplete(env) -> None:
    first = _picks(("f1", "Nice and smooth."))[:-2]  # the first pick complete, the reply cut after it
    env["llm"].script.append({"text": first + ', {"fact": "f2", "note": "and at', "finish": "length"})
    done = _run(env["svc"].debrief(env["sid"], "ana"))[-1].data
    assert done["narrator"] == "llm" and done["text"].startswith("Session at ")
    # the pick the model finished, then every fact it did not reach (a narrative never loses one)
    head, rest = done["text"].split(" Nice and smooth. ", 1)
    assert head.endswith("valid laps.") and rest.startswith("Best: lap ")
    assert done["complete"] is False and "token limit" in done["reason"]


# ---- item 4: this session only ---------------------------------------------------------------------
def test_debrief_uses_only_this_session_and_same_track_history(env) -> None:
    svc = env["svc"]
    events = _run(svc.debrief(env["sid"], "ana"))
    data = {e.data["key"]: e.data["data"] for e in events if e.type == "data"}
    assert {d["session_id"] for d in data.values() if "session_id" in d} == {env["sid"]}
    plan = data["pedagogy_data"]
    kart_best = run_tool("get_session_highlights", {"session_id": env["kart"]})["best_lap_s"]
    own = run_tool("get_session_highlights", {"session_id": env["sid"]})
    assert plan["personal_best"]["track"] == "sonoma" and plan["personal_best"]["time_s"] == own["best_lap_s"]
    assert kart_best is not None and kart_best != own["best_lap_s"]
    assert f"{kart_best:g}" not in events[-1].data["text"]
    goals = run_tool("get_goal_targets", {"session_id": env["kart"]})
    assert goals["track"] == "kart_club" and goals["sessions_compared"] == 1


def test_a_session_with_no_valid_lap_says_so(env) -> None:
    svc = env["svc"]
    # no model: the template narrator
    off = CoachService(
        settings_for(env["settings"].data_dir, adk_openai_url="http://127.0.0.1:9/v1"), svc.store
    )
    done = _run(off.debrief(env["empty"], "ana"))[-1].data
    assert done["narrator"] == "template" and "No valid lap" in done["text"] and "None" not in done["text"]
    # with a model: the digest tells it so
    before = len(env["llm"].requests)
    done = _run(svc.debrief(env["empty"], "ana"))[-1].data
    assert len(env["llm"].requests) == before + 1
    prompt = " ".join(m["content"] for m in env["llm"].requests[-1]["messages"])
    assert "no valid lap in this session" in prompt and "None" not in prompt


def test_unknown_session_is_refused_before_anything_runs(env) -> None:
    svc = env["svc"]
    with pytest.raises(UnknownSession, match="nope"):
        asyncio.run(svc.resolve(CoachRequest("debrief", "ana", "nope", "debrief")))
    with pytest.raises(UnknownSession, match="no sessions for driver 'ghost'"):
        asyncio.run(svc.resolve(CoachRequest("debrief", "ghost", "latest", "debrief")))
    # "latest" is the driver's own newest session, not the lake's
    req = asyncio.run(svc.resolve(CoachRequest("brief", "ana", "latest", "brief me")))
    assert req.session_id == env["empty"]


# ---- the model queue (#12 item 8) --------------------------------------------------------------------
def test_model_queue_takes_its_place_synchronously_and_releases_once() -> None:
    gate = ModelGate(2)
    a, b = gate.reserve(), gate.reserve()
    with pytest.raises(ModelBusy) as busy:
        gate.reserve()
    assert busy.value.retry_after_s > 0 and gate.waiting == 2

    async def go() -> None:
        await a.acquire()
        assert gate.sem.locked()
        a.release()
        a.release()  # idempotent
        assert gate.waiting == 1 and not gate.sem.locked()
        b.release()

    asyncio.run(go())
    assert gate.waiting == 0


def test_template_requests_never_wait_for_the_model_queue(env) -> None:
    """A debrief with no model takes no place in the queue, even while the model is busy."""
    svc, gate = env["svc"], ModelGate(1)
    busy = gate.reserve()

    async def go() -> list[CoachEvent]:
        await busy.acquire()  # the one model slot is taken and stays taken
        req = await svc.resolve(CoachRequest("debrief", "ana", env["sid"], "debrief"))
        events = [e async for e in svc.run(req, False, "no model server")]
        busy.release()
        return events

    events = asyncio.run(asyncio.wait_for(go(), 60))
    assert events[-1].data["narrator"] == "template" and gate.waiting == 0


# ---- answers from the data (#13 item 5) and weak-model robustness (item 6) -------------------------
@pytest.fixture(scope="module")
def off(env) -> CoachService:
    return CoachService(
        settings_for(env["settings"].data_dir, adk_openai_url="http://127.0.0.1:9/v1"), env["svc"].store
    )


def test_lap_comparison_is_answered_from_the_data_without_a_model(env, off) -> None:
    done = _run(ask(off, "ana", "why was lap 4 slower than lap 2?", session_id=env["sid"]))[-1].data
    delta = run_tool("get_lap_delta", {"session_id": env["sid"], "lap_a": 2, "lap_b": 4})
    assert done["available"] and done["narrator"] == "data" and "no model server" in done["reason"]
    assert done["tools"][0] == {
        "tool": "get_lap_delta",
        "args": {"session_id": env["sid"], "lap_a": 2, "lap_b": 4},
        "by": "pitwall",
    }
    assert f"{abs(delta['total_delta_s']):g} s" in done["text"] and done["ungrounded"] == []
    slower = 4 if delta["total_delta_s"] > 0 else 2
    assert done["text"].startswith(f"Lap {slower} was")


def test_corner_and_where_do_i_lose_time_are_answered_from_the_data(env, off) -> None:
    done = _run(ask(off, "ana", "how do I take the carousel?", session_id=env["sid"]))[-1].data
    assert done["narrator"] == "data" and done["tools"][0]["tool"] == "get_corner_history"
    assert done["text"].startswith("T6") and done["ungrounded"] == []
    done = _run(ask(off, "ana", "where do I lose time?", session_id=env["sid"]))[-1].data
    opps = run_tool("get_opportunities", {"session_id": env["sid"]})["opportunities"]
    named = re.findall(r"Opportunity \d, (T\d+[A-Z]?)", done["text"])
    assert done["narrator"] == "data" and named == [o["corner"] for o in opps], done["text"]
    # ranked by the time lost over the session, and the sentence says that total when it is over laps
    totals = [o["session_s"] for o in opps]
    assert totals == sorted(totals, reverse=True) and "by time lost over the session" in done["text"]
    # other words for the same question get the same answer, never "no corner stands out" beside them
    for q in ("which turn should I work on to go faster?", "where am I slower?"):
        other = _run(ask(off, "ana", q, session_id=env["sid"]))[-1].data
        assert re.findall(r"Opportunity \d, (T\d+[A-Z]?)", other["text"]) == named, (q, other["text"])
    done = _run(ask(off, "ana", "write my voice scripts", session_id=env["sid"]))[-1].data
    assert done["available"] is False and done["reason"]  # its answer is the model's own tool call


@contextlib.contextmanager
def specialist_tools(env: dict[str, Any], mode: str) -> Iterator[CoachService]:
    """The same service with PITWALL_SPECIALIST_TOOLS set to ``mode`` (restored afterwards)."""
    svc = env["svc"]
    before = svc.settings
    svc.settings = before.model_copy(update={"specialist_tools": mode})
    try:
        yield svc
    finally:
        svc.settings = before
        env["llm"].script.clear()


def test_a_tool_call_written_as_text_is_never_shown_and_the_data_answers(env) -> None:
    env["llm"].script.append({"text": 'functions.get_lap_delta: {"lap_a": 2, "lap_b": 3}'})
    with specialist_tools(env, "model") as svc:
        events = _run(ask(svc, "ana", "compare lap 2 and 3", session_id=env["sid"]))
    done = events[-1].data
    assert done["agent"] == "LapComparisonAgent" and done["narrator"] == "data"
    assert "not shown" in done["reason"] and done["tools"][0]["tool"] == "get_lap_delta"
    assert done["text"].startswith("Lap ") and done["ungrounded"] == []
    assert not any("functions." in e.data.get("text", "") for e in events if e.type == "token")


@pytest.mark.parametrize(
    "question", ["what was my top speed?", "which lap was my fastest?", "how long did lap 2 take?"]
)
def test_a_model_reply_without_the_figure_asked_gives_way_to_the_data_answer(env, question: str) -> None:
    """Model-chosen tools: a figure question answered in words alone is not shown; the labelled data answer
    (with the figure) is, and the reason says why."""
    env["llm"].script.append({"text": "You were quick out there today, keep building on it."})
    with specialist_tools(env, "model") as svc:
        done = _run(ask(svc, "ana", question, session_id=env["sid"]))[-1].data
    assert done["narrator"] == "data" and "asks for a figure" in done["reason"], done
    assert any(ch.isdigit() for ch in done["text"]) and "quick out there" not in done["text"], done


@pytest.mark.xfail(
    strict=True, reason="the reader (qparse) reads 'any tips' as where the time is: a figure question"
)
def test_a_model_reply_in_words_to_a_question_that_asks_no_figure_is_shown(env) -> None:
    env["llm"].script.append({"text": "Stay relaxed on the wheel and look far ahead."})
    with specialist_tools(env, "model") as svc:
        done = _run(ask(svc, "ana", "any tips for staying calm?", session_id=env["sid"]))[-1].data
    assert done["narrator"] == "llm" and done["text"].startswith("Stay relaxed"), done


def test_pitwall_makes_the_specialists_first_call_and_the_model_picks_facts(env) -> None:
    llm, sid = env["llm"], env["sid"]
    llm.script.append({"text": _picks(("f1", "mostly on entry"), emotion="neutral")})
    before = len(llm.requests)
    events = _run(ask(env["svc"], "ana", "why was lap 3 slower than lap 2?", session_id=sid))
    done = events[-1].data
    assert done["agent"] == "LapComparisonAgent" and done["narrator"] == "llm"
    assert done["tools"] == [
        {"tool": "get_lap_delta", "args": {"session_id": sid, "lap_a": 2, "lap_b": 3}, "by": "pitwall"}
    ]
    assert done["ungrounded"] == [] and done["llm_calls"] == 1
    [req] = [b for b in llm.requests[before:] if b.get("max_tokens") != 1]
    assert "tools" not in req and req["response_format"]["type"] == "json_object"
    assert [m["role"] for m in req["messages"]] == ["system", "user"]  # no earlier turns
    system, user = req["messages"][0]["content"], req["messages"][-1]["content"]
    assert system == SYSTEM and user.startswith("Facts:\nf1: Lap ")
    assert user.endswith("The driver asks: why was lap 3 slower than lap 2?")
    first = user.split("\n")[1].removeprefix("f1: ")
    # Pitwall's sentence, the model's words, then every other sentence of the data answer in its order
    assert done["text"].startswith(f"{first} Mostly on entry. ")
    plan = plan_of("why was lap 3 slower than lap 2?", sid)
    assert plan is not None
    figures = re.compile(r"\d+(?:[:.]\d+)*")
    assert figures.findall(done["text"].replace(" Mostly on entry.", "")) == figures.findall(plan["text"])
    assert len(done["text"]) > len(plan["text"])  # never shorter than the data answer
    assert "".join(e.data["text"] for e in events if e.type == "token") == done["text"]


def test_a_single_lap_question_is_compared_with_the_best_lap(env) -> None:
    sid = env["sid"]
    best = run_tool("get_session_highlights", {"session_id": sid})["best_lap"]
    other = 3 if best != 3 else 2
    env["llm"].script.append({"text": "It was slower. [EMOTION:neutral]"})
    done = _run(ask(env["svc"], "ana", f"why was lap {other} so slow?", session_id=sid))[-1].data
    assert done["tools"][0]["args"] == {"session_id": sid, "lap_a": best, "lap_b": other}


def test_a_model_that_writes_a_call_despite_the_data_is_answered_from_that_data(env) -> None:
    env["llm"].script.append({"text": 'functions.get_lap_delta: {"lap_a": 2, "lap_b": 3}'})
    events = _run(ask(env["svc"], "ana", "compare lap 2 and 3", session_id=env["sid"]))
    done = events[-1].data
    assert done["narrator"] == "data" and "token" not in [e.type for e in events]
    assert [t.get("by") for t in done["tools"]] == ["pitwall"]  # not run a second time
    assert done["text"].startswith("Lap ") and done["ungrounded"] == []


@pytest.mark.xfail(
    strict=True, reason="the reader (qparse) reads 'race pace' as a lap time: answered as the best lap"
)
@pytest.mark.parametrize("mode", ["model", "evidence"])
def test_a_specialist_answer_with_invented_figures_is_never_shown(env, mode: str) -> None:
    call = [{"tool_calls": [{"name": "get_race_pace_model", "arguments": {"session_id": env["sid"]}}]}]
    first = call if mode == "model" else []  # with evidence, Pitwall has made the call already
    pace = run_tool("get_race_pace_model", {"session_id": env["sid"]})
    with specialist_tools(env, mode) as svc:
        env["llm"].script.extend([*first, {"text": "Lap 99 at T42 in 77.777 s was your best."}])
        events = _run(ask(svc, "ana", "what's my race pace?", session_id=env["sid"]))
        done = events[-1].data
        assert done["narrator"] == "data" and "77.777" not in done["text"]
        assert all(x in done["reason"] for x in ("lap 99", "T42", "77.777 s")), done["reason"]
        assert "token" not in [e.type for e in events]
        env["llm"].script.extend(
            [*first, {"text": f"Your race pace is {pace['race_pace_s']:g} s. [EMOTION:neutral]"}]
        )
        done = _run(ask(svc, "ana", "what's my race pace?", session_id=env["sid"]))[-1].data
        assert done["narrator"] == "llm" and done["ungrounded"] == []
        assert {t["tool"] for t in done["tools"]} == {"get_race_pace_model"}


def test_a_question_whose_model_fails_before_a_token_is_answered_from_the_data(env) -> None:
    env["llm"].script.append({"status": 500})
    done = _run(ask(env["svc"], "ana", "why was lap 3 slower than lap 2?", session_id=env["sid"]))[-1].data
    assert done["narrator"] == "data" and done["tools"][-1]["tool"] == "get_lap_delta"


def test_the_digest_reads_an_llm_data_agents_fenced_json() -> None:
    hl = {"track": "sonoma", "valid_laps": 3, "best_lap": 2, "best_lap_s": 101.25}
    fenced = "```json\n" + json.dumps(hl) + "\n```"
    assert "Best: lap 2, 1:41.250." in build_digest("debrief", {"highlights_data": fenced})
    assert "Best:" not in build_digest("debrief", {"highlights_data": "I could not call the tool"})

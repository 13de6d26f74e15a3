"""The ADK agent tree: real ADK + LiteLLM over real HTTP against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.paddock.agents.classifier import ROWS, _classify_intent
from services.paddock.agents.data_agents import DATA_SPECS
from services.paddock.agents.digest import build_digest
from services.paddock.agents.narrative import facts_of, grounding_check, parse_emotion
from services.paddock.agents.registry import AGENT_REGISTRY, QA_AGENTS
from services.paddock.agents.service import CoachEvent, CoachService, ask
from services.paddock.lake import configure_lake
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.scripted_llm import start_scripted_llm

CASES = {
    "debrief": ["debrief me", "how did I do?", "session summary please", "review my session"],
    "brief": ["brief me on T6", "pre-session plan", "what before I go out", "today's plan"],
    "voice_script": [
        "make voice scripts",
        "cue script for turn 2",
        "tts lines",
        "pace notes",
        "audio cues",
        "generate audio",
    ],
    "corner": ["how do I take T7", "turn 11 help", "the carousel feels slow", "hairpin exit"],
    "gold_lap": ["vs my gold lap", "show the reference lap"],
    "weather": ["weather adaptation", "it's foggy, fog tips", "greasy track", "track temp?"],
    "session_plan": ["practice plan", "laps available: 6", "i have 8 laps"],
    "incident": [
        "that incident",
        "close call on the straight",
        "that was scary",
        "saved it twice",
        "moment at 1200 m",
    ],
    "race_pace": ["race pace", "stint plan", "tyre degradation", "tyre drop off"],
    "goal": ["pb target", "lap time goal", "target lap", "set me a goal"],
    "mental_map": [
        "my variance",
        "consistency",
        "am I consistent",
        "inconsistent braking",
        "mental map",
        "repeatable",
        "stable",
    ],
    "lap_comparison": [
        "lap 7 vs lap 5",
        "compare lap 3 and 4",
        "why was lap 7 slower than lap 5",
        "fastest vs slowest",
    ],
    "progress": ["my progress", "am I improving", "getting faster?", "over sessions"],
    "setup": ["setup advice", "understeer in slow corners", "oversteer", "balance", "car feel"],
    "mindset": ["I'm frustrated", "plateau", "this is not working", "motivation"],
    "agent_meta": ["which agent is slowest", "agent trace latency", "tool call latency per agent"],
    "telemetry": ["what's my top speed", "rpm at the line"],
}


def _unique_driver(tag: str) -> str:
    """A driver id no other test uses: the module shares one store, so a shared id shares turns."""
    return f"{tag}-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("intent", list(CASES))
def test_every_classifier_row(intent: str) -> None:
    for text in CASES[intent]:
        assert _classify_intent(text)[0] == intent, text


def test_rows_cover_the_architecture_and_override_wins() -> None:
    assert [r[0] for r in ROWS] == [i for i in CASES if i != "telemetry"]
    assert _classify_intent("debrief me", override="race_pace")[0] == "race_pace"
    assert _classify_intent("debrief me", override="not_an_intent")[0] == "debrief"
    assert len(AGENT_REGISTRY) == 23 and len(QA_AGENTS) == 15
    assert all(len(v["description"].split()) <= 30 for v in AGENT_REGISTRY.values())


def test_emotion_contract_and_grounding() -> None:
    assert parse_emotion("Nice work. [EMOTION:celebratory]") == ("Nice work.", "celebratory")
    assert parse_emotion("No tag") == ("No tag", "neutral")
    assert parse_emotion("Odd [EMOTION:giddy]") == ("Odd", "neutral")
    state = {
        "highlights_data": json.dumps(
            {
                "track": "sonoma",
                "valid_laps": 5,
                "best_lap": 2,
                "best_lap_s": 108.211,
            }
        ),
        # where the time is: the opportunities' lines (the one analysis), as the debrief reads them
        "opportunities_data": json.dumps(
            {
                "opportunities": [
                    {
                        "rank": 1,
                        "corner": "t11",
                        "time_to_find_s": 0.214,
                        "laps": [2],
                        "says": "braking early",
                        "evidence": "braked 20 m early",
                        "worst_lap": 2,
                        "target": "brake 20 m later",
                    }
                ]
            }
        ),
    }
    facts = facts_of(build_digest("debrief", state))
    assert grounding_check("Lap 2 in 108.211 s, about 108.2 s; fix T11 (0.21 s).", facts) == []
    assert set(grounding_check("Lap 9 at T4 in 101.5 s", facts)) == {"lap 9", "T4", "101.5 s"}
    assert grounding_check("laps 2 and 7 at turn 11", facts) == ["lap 7"]
    assert grounding_check("best 1:48.211 s", facts) == [] and grounding_check("1:49.2 s", facts) == [
        "1:49.2 s"
    ]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    llm = start_scripted_llm()
    d = tmp_path_factory.mktemp("agents") / "data"
    settings = settings_for(d, adk_openai_url=llm.url, adk_timeout_s=8)
    res = import_sim(cached_sim(laps=5, seed=7), settings, driver_id="ana")
    configure_lake(settings)
    svc = CoachService(settings)
    asyncio.run(svc.startup())
    yield {"llm": llm, "svc": svc, "sid": res.session_id, "settings": settings}
    llm.stop()


def _run(agen: Any) -> list[CoachEvent]:
    async def go() -> list[CoachEvent]:
        return [e async for e in agen]

    return asyncio.run(go())


def test_debrief_is_one_llm_call_streams_in_order_and_is_stored(env) -> None:
    llm, svc = env["llm"], env["svc"]
    before = len(llm.requests)
    events = _run(svc.debrief(env["sid"], "ana"))
    types = [e.type for e in events]
    assert types[0] == "phase" and types[-1] == "done"
    first_token = types.index("token")
    assert types.count("data") == 11 and max(i for i, t in enumerate(types) if t == "data") < first_token
    done = events[-1].data
    assert done["narrator"] == "llm" and done["emotion"] == "encouraging" and "[EMOTION" not in done["text"]
    assert len(llm.requests) - before == 1 and done["llm_calls"] == 1
    # the picks stream as the driver reads them: together, exactly the final text (spaces between picks)
    assert "".join(e.data["text"] for e in events if e.type == "token") == done["text"]
    assert done["ungrounded"] == []
    rows = svc.store.query(
        "SELECT role, text, narrator FROM conversations WHERE conversation_id = ? ORDER BY turn",
        [done["conversation_id"]],
    )
    assert rows[-1]["text"] == done["text"]
    traces = svc.store.query("SELECT agent_name FROM agent_traces", [])
    assert {"HighlightFinderD", "NarrativeAgentDebrief"} <= {t["agent_name"] for t in traces}
    # every tool Pitwall ran and the one model call are rows of this request's trace, with their latency
    inv = svc.store.query(
        "SELECT trace_id FROM agent_traces WHERE agent_name = 'NarrativeAgentDebrief' ORDER BY ts DESC LIMIT 1",
        [],
    )[0]["trace_id"]
    mine = svc.store.query(
        "SELECT agent_name, event_type, latency_ms, success FROM agent_traces WHERE trace_id = ?", [inv]
    )
    tools = sorted(t["agent_name"] for t in mine if t["event_type"] == "tool_call")
    assert tools == sorted(tool for tool, _ in DATA_SPECS.values())
    models = [t for t in mine if t["event_type"] == "model_call"]
    assert len(models) == 1 == len(llm.requests) - before and models[0]["success"] is True
    assert all(
        t["latency_ms"] is not None and t["latency_ms"] >= 0 for t in mine if t["event_type"] != "agent_run"
    )


def test_invented_figures_are_never_shown_and_the_models_text_is_kept_in_the_record(env) -> None:
    # a server that ignores the reply schema and writes prose with invented figures
    env["llm"].script.append({"text": "Great lap 42 at T9 in 99.123 s. [EMOTION:celebratory]"})
    events = _run(env["svc"].debrief(env["sid"], "ana"))
    done = events[-1].data
    assert "token" not in [e.type for e in events] and done["narrator"] == "template"
    assert "lap 42" in done["reason"] and "99.123 s" in done["reason"] and "99.123" not in done["text"]
    row = env["svc"].store.query(
        "SELECT meta_json FROM conversations WHERE conversation_id = ? AND role = 'assistant'",
        [done["conversation_id"]],
    )[0]
    assert "Great lap 42" in json.loads(row["meta_json"])["model_text"]


@pytest.mark.parametrize("step", [{"status": 500}, {"malformed": True}, {"hang": True}])
def test_template_fallback_when_the_model_fails(env, step: dict[str, Any], monkeypatch) -> None:
    # a hang ends at the first-token deadline: a short one in this test, never the production 45 s
    short = env["svc"].settings.model_copy(update={"llm_first_token_s": 2.0, "llm_idle_s": 2.0})
    monkeypatch.setattr(env["svc"], "settings", short)
    env["llm"].script.append(step)
    events = _run(env["svc"].debrief(env["sid"], "ana"))
    done = events[-1].data
    assert events[-1].type == "done" and done["narrator"] == "template" and done["reason"]
    assert "valid laps" in done["text"]


def test_no_model_server_means_template_debrief_and_unavailable_qa(tmp_path: Path, env) -> None:
    settings = settings_for(env["settings"].data_dir, adk_openai_url="http://127.0.0.1:9/v1", adk_timeout_s=5)
    svc = CoachService(settings, env["svc"].store)
    done = _run(svc.debrief(env["sid"], "ana"))[-1].data
    assert done["narrator"] == "template" and "no model server" in done["reason"]
    q = _run(ask(svc, "ana", "what's my race pace"))[-1].data  # answered from its data, labelled
    assert q["available"] is True and q["narrator"] == "data" and "no model server" in q["reason"]
    q = _run(ask(svc, "ana", "write my voice scripts"))[-1].data  # needs the model: nothing to say
    assert q["available"] is False and "no model server" in q["reason"]


@pytest.fixture(scope="module")
def model_svc(env) -> Any:
    """``PITWALL_SPECIALIST_TOOLS=model``: the specialist chooses and calls its own tools."""
    svc = CoachService(env["settings"].model_copy(update={"specialist_tools": "model"}), env["svc"].store)
    asyncio.run(svc.startup())
    return svc


@pytest.mark.xfail(
    strict=True, reason="the reader (qparse) reads 'race pace' as a lap time: a figure question"
)
def test_question_routes_to_a_specialist_that_calls_its_tool(env, model_svc) -> None:
    env["llm"].script.extend(
        [
            {"tool_calls": [{"name": "get_race_pace_model", "arguments": {"session_id": env["sid"]}}]},
            {"text": "Your race pace is steady. [EMOTION:neutral]"},
        ]
    )
    before = len(env["llm"].requests)
    events = _run(ask(model_svc, "ana", "what's my race pace?", session_id=env["sid"]))
    done = events[-1].data
    assert done["available"] and done["agent"] == "RacePaceAgent" and done["narrator"] == "llm"
    assert done["llm_calls"] == len(env["llm"].requests) - before == 2  # the tool call, then the answer
    assert done["tools"][0]["tool"] == "get_race_pace_model"
    assert done["text"].startswith("Your race pace")


def test_a_specialists_sentence_naming_a_part_its_data_never_speaks_of_is_dropped(env, model_svc) -> None:
    """A specialist's prose (model-chosen tools) with an invented clutch fault: that sentence is dropped,
    its coaching stays; no tool result speaks of the clutch."""
    coaching = "Keep building the same smooth laps before you push."
    env["llm"].script.append({"text": f"Your clutch is slipping on the exits. {coaching} [EMOTION:neutral]"})
    done = _run(ask(model_svc, "ana", "set me a goal", session_id=env["sid"]))[-1].data
    assert done["narrator"] == "llm" and done["text"].startswith(coaching), done
    assert "clutch" not in done["text"].lower(), done


def test_loop_guard_stops_repeated_identical_tool_calls(env, model_svc) -> None:
    call = {"tool_calls": [{"name": "get_goal_targets", "arguments": {"driver_id": "ana"}}]}
    env["llm"].script.extend([call, call, call, {"text": "done"}])
    try:
        events = _run(ask(model_svc, "ana", "set me a goal"))
    finally:
        env["llm"].script.clear()
    done = events[-1].data  # the question's data answer, labelled, with the reason; never the model's loop
    assert events[-1].type == "done" and done["narrator"] == "data" and "loop guard" in done["reason"]


def test_tool_call_budget_stops_a_runaway_question(env, model_svc) -> None:
    steps = [
        {
            "tool_calls": [
                {"name": "get_goal_targets", "arguments": {"driver_id": "ana"}},
                {"name": "get_progress_report", "arguments": {"driver_id": "ana", "n_sessions": k}},
            ]
        }
        for k in range(1, 7)
    ]
    env["llm"].script.extend([*steps, {"text": "done"}])
    try:
        events = _run(ask(model_svc, "ana", "set me a goal"))
    finally:
        env["llm"].script.clear()
    done = events[-1].data
    assert (
        events[-1].type == "done"
        and done["narrator"] == "data"
        and "more than 3 tool calls" in done["reason"]
    )


def test_adk_session_rotates_after_50_turns_and_past_the_character_budget(env) -> None:
    svc, sid = env["svc"], env["sid"]
    asyncio.run(svc.reset("ana"))
    first = asyncio.run(svc._session("ana", sid, {}))
    assert asyncio.run(svc._session("ana", sid, {})) == first
    for _ in range(50):
        svc.account("ana", sid, 10)
    second = asyncio.run(svc._session("ana", sid, {}))
    assert second != first
    svc.account("ana", sid, env["settings"].adk_char_budget + 1)
    third = asyncio.run(svc._session("ana", sid, {}))
    assert third != second
    # another lake session is another ADK session (tests/agents/test_session_leak.py: nothing leaks)
    other = import_sim(cached_sim(laps=1, seed=2, rate_hz=10), env["settings"], driver_id="ana").session_id
    assert asyncio.run(svc._session("ana", other, {})) != third
    assert asyncio.run(svc._session("ana", sid, {})) == third


def test_legacy_litert_settings_still_work_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITWALL_LITERT_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("PITWALL_LITERT_MODEL", "qwen3")
    with pytest.warns(DeprecationWarning) as seen:
        s = settings_for("/tmp/pitwall-legacy-test")
    assert {"PITWALL_LITERT_URL", "PITWALL_LITERT_MODEL"} <= {str(w.message).split()[0] for w in seen}
    assert s.adk_openai_url == "http://127.0.0.1:8080/v1" and s.llm_model_id == "openai/qwen3"


def test_data_phase_runs_its_eleven_agents_concurrently(env) -> None:
    """The debrief's data phase is one ParallelAgent over its eleven data agents (ADK runs a parallel agent's
    sub-agents as concurrent tasks, so the phase spans about the slowest agent rather than the sum), and a
    debrief runs each of them once. Checked by the tree and the trace rows, not by their timestamps: a row's
    wall-clock time against its perf_counter latency drifted past the millisecond allowed on a loaded
    machine (the clean-clone CI run of dc10a8d)."""
    from google.adk.agents import ParallelAgent

    svc = env["svc"]
    phase = svc.runner.agent.find_agent("DebriefDataPhase")
    assert isinstance(phase, ParallelAgent)
    names = sorted(a.name for a in phase.sub_agents)
    assert len(names) == 11 and all(n.endswith("D") for n in names)

    def runs() -> dict[str, int]:
        got = svc.store.query(
            "SELECT agent_name, count(*) AS n FROM agent_traces WHERE event_type = 'agent_run' GROUP BY 1", []
        )
        return {r["agent_name"]: int(r["n"]) for r in got}

    before = runs()
    done = _run(svc.debrief(env["sid"], "ana"))[-1].data
    assert done["narrator"] == "llm"
    after = runs()
    assert {n: after.get(n, 0) - before.get(n, 0) for n in names} == dict.fromkeys(names, 1)


def test_quick_and_adk_debriefs_send_the_same_request_by_one_path(env) -> None:
    llm, svc = env["llm"], env["svc"]
    sent = []
    for agen in (
        svc.quick("debrief", env["sid"], "ana", "debrief my session"),
        svc.debrief(env["sid"], "ana"),
    ):
        before = len(llm.requests)
        done = _run(agen)[-1].data
        assert len(llm.requests) - before == 1 and done["narrator"] == "llm"
        sent.append(llm.requests[-1])
    assert sent[0] == sent[1]  # the same messages, schema and limits whatever the tier
    assert sent[0]["stream"] is True and "tools" not in sent[0] and "response_format" in sent[0]
    assert '"best_lap"' not in json.dumps(sent[0]["messages"])  # the digest's sentences, not the JSON


def test_quick_brief_falls_back_to_the_template_on_a_server_error(env) -> None:
    env["llm"].script.append({"status": 500})
    done = _run(env["svc"].quick("brief", env["sid"], "ana", "brief me"))[-1].data
    assert done["narrator"] == "template" and "HTTP 500" in done["reason"] and done["tier"] == "warm"
    row = env["svc"].store.query(
        "SELECT error FROM llm_friction WHERE role = 'NarrativeAgentBrief' ORDER BY ts DESC LIMIT 1", []
    )
    assert "HTTP 500" in row[0]["error"]


def test_startup_warm_up_discovers_the_model_and_loads_it(env) -> None:
    svc = env["svc"]

    async def go() -> tuple[dict[str, Any], bool]:
        return await svc.warm.discover(), await svc.warm.warmup()

    found, warmed = asyncio.run(go())
    assert found["reachable"] and "gemma3n-e2b" in found["models"] and warmed
    assert httpx.get(env["llm"].url.replace("/v1", "/_scripted/stats")).json()["warmups"] >= 1
    assert svc.store.query("SELECT count(*) AS n FROM llm_friction WHERE role = 'warmup'", [])[0]["n"] >= 1
    before = len(env["llm"].requests)
    asyncio.run(svc.warm_up())  # what start-up runs: the data phase, discovery, the httpx and LiteLLM pings
    rows = svc.store.query(
        "SELECT backend, error FROM llm_friction WHERE role = 'warmup' ORDER BY ts DESC LIMIT 2", []
    )
    assert {r["backend"] for r in rows} == {"warm-httpx", "litellm"} and all(r["error"] is None for r in rows)
    assert len(env["llm"].requests) == before  # warm-up pings never take a scripted reply


def test_voice_script_agent_persists_its_phrases(env) -> None:
    phrases = ["Brake at the bridge, turn seven", "Patience, turn seven"]
    env["llm"].script.extend(
        [
            {
                "tool_calls": [
                    {"name": "save_voice_scripts", "arguments": {"corner_name": "t7", "phrases": phrases}}
                ]
            },
            {"text": "Saved two cues for turn seven. [EMOTION:neutral]"},
        ]
    )
    done = _run(ask(env["svc"], "ana", "generate voice scripts for turn 7", session_id=env["sid"]))[-1].data
    assert done["narrator"] == "llm", done
    assert done["agent"] == "VoiceScriptAgent" and done["tools"][0]["tool"] == "save_voice_scripts"
    saved = json.loads((env["settings"].paddock_dir / "voice_scripts" / "t7.json").read_text())
    assert saved["phrases"][-2:] == phrases


def test_conversation_turn_is_written_before_the_answer_exists(env) -> None:
    """Write-through: the user's turn is stored as soon as the request starts, before any model reply."""
    svc, driver = env["svc"], _unique_driver("writethrough")

    async def go() -> list[dict[str, Any]]:
        gen = svc.debrief(env["sid"], driver)
        first = await anext(gen)
        assert first.type == "phase"
        rows = svc.store.query("SELECT role, complete FROM conversations WHERE driver_id = ?", [driver])
        await gen.aclose()  # the client goes away mid-request
        return rows

    rows_mid = asyncio.run(go())
    assert [r["role"] for r in rows_mid] == ["user"]
    rows = svc.store.query(
        "SELECT role, complete, meta_json FROM conversations WHERE driver_id = ? ORDER BY turn", [driver]
    )
    assert [r["role"] for r in rows] == ["user", "assistant"] and rows[-1]["complete"] is False
    assert "cancelled" in rows[-1]["meta_json"]


def test_newest_session_is_prefetched_for_the_data_phase(env) -> None:
    import services.paddock.tools.base as base
    from services.paddock.prefetch import prefetch_newest

    base._cache.clear()
    newest = base.rows(
        "SELECT session_id FROM sessions ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT 1"
    )
    got = prefetch_newest()
    assert got == newest[0]["session_id"] and any(k[0] == got for k in base._cache)


def test_narrator_model_calls_are_recorded_with_sizes(env) -> None:
    svc = env["svc"]
    done = _run(svc.debrief(env["sid"], "ana"))[-1].data
    assert done["narrator"] == "llm"
    row = svc.store.query(
        "SELECT * FROM llm_friction WHERE role = 'NarrativeAgentDebrief' ORDER BY ts DESC LIMIT 1", []
    )[0]
    assert row["backend"] == "warm-httpx" and row["prompt_chars"] > 300 and row["completion_chars"] > 20
    assert row["truncated"] is False and row["latency_ms"] > 0


def test_overlapping_debriefs_of_two_drivers_never_bleed(env) -> None:
    """Two drivers' debriefs (and a question) run at once through one CoachService: each narrative cites its
    own session's best lap, and each stored turn belongs to its own driver and session."""
    svc, settings, bo = env["svc"], env["settings"], _unique_driver("bo")
    other = import_sim(cached_sim(laps=4, seed=11), settings, driver_id=bo).session_id
    best = {
        sid: svc.store
        and __import__("services.paddock.tools.base", fromlist=["rows"]).rows(
            "SELECT best_lap, best_lap_s FROM sessions WHERE session_id = ?", [sid]
        )[0]
        for sid in (env["sid"], other)
    }
    assert best[env["sid"]]["best_lap_s"] != best[other]["best_lap_s"]

    async def go() -> list[list[CoachEvent]]:
        async def collect(agen: Any) -> list[CoachEvent]:
            return [e async for e in agen]

        return await asyncio.gather(
            collect(svc.debrief(env["sid"], "ana")),
            collect(svc.debrief(other, bo)),
            collect(ask(svc, "ana", "what's my race pace?", session_id=env["sid"])),
        )

    a, b, q = asyncio.run(go())
    for events, sid, driver in ((a, env["sid"], "ana"), (b, other, bo)):
        done = events[-1].data
        assert events[-1].type == "done" and done["narrator"] == "llm"
        t = best[sid]["best_lap_s"]
        assert f"{int(t // 60)}:{t % 60:06.3f}" in done["text"], (sid, done["text"])  # its own best, m:ss.sss
        assert done["ungrounded"] == []
        turns = svc.store.query(
            "SELECT driver_id, session_id FROM conversations WHERE conversation_id = ?",
            [done["conversation_id"]],
        )
        assert {(t["driver_id"], t["session_id"]) for t in turns} == {(driver, sid)}
    assert q[-1].type in ("done", "error")


def _picks_reply(*facts: str) -> str:
    return json.dumps({"emotion": "neutral", "answer": [{"fact": f, "note": "keep it up"} for f in facts]})


def test_a_drivers_model_call_waits_for_a_warm_up_call_in_progress(env) -> None:
    """A stock llama.cpp server ends the stream in progress when another request arrives: the driver's
    call starts only after the warm-up call, and a warm-up never starts while a driver holds the model."""
    llm, svc = env["llm"], env["svc"]

    async def go() -> tuple[int, list[CoachEvent]]:
        async with svc.model_lock:  # a warm-up call in progress
            before = len(llm.requests)
            task = asyncio.create_task(_collect(svc.debrief(env["sid"], "ana")))
            while not svc._in_model:  # the debrief has its data and wants the model
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            sent_during = len(llm.requests) - before
        return sent_during, await task

    sent_during, events = asyncio.run(go())
    assert sent_during == 0 and events[-1].data["narrator"] == "llm"
    stats = env["llm"].url.replace("/v1", "/_scripted/stats")
    warmups = httpx.get(stats).json()["warmups"]
    svc._in_model = 1  # a driver's request holds the model
    try:
        asyncio.run(svc.warm_up())
    finally:
        svc._in_model = 0
    assert httpx.get(stats).json()["warmups"] == warmups


async def _collect(agen: Any) -> list[CoachEvent]:
    return [e async for e in agen]


def test_shutdown_mid_debrief_keeps_the_sentences_the_driver_saw(env) -> None:
    """SIGTERM: the service writes the answer in progress, marked incomplete, before the store closes."""
    svc = CoachService(env["settings"], env["svc"].store)
    words = len(_picks_reply("f1").split()) - 1
    env["llm"].script.append({"text": _picks_reply("f1", "f2"), "stall_after": words + 2})

    async def go() -> str:
        agen = svc.debrief(env["sid"], "ana")
        async for ev in agen:
            if ev.type == "token":
                await svc.aclose()  # what the lifespan runs on SIGTERM, before the store closes
                await agen.aclose()  # then the server cancels the stream
                return str(ev.data["text"])
        raise AssertionError("no token")

    seen = asyncio.run(go())
    row = svc.store.query(
        "SELECT text, complete, meta_json FROM conversations WHERE role = 'assistant' ORDER BY ts DESC LIMIT 1",
        [],
    )[0]
    assert row["text"] == seen and row["complete"] is False
    assert "shutting down" in json.loads(row["meta_json"])["reason"]
    n = svc.store.query("SELECT count(*) AS n FROM conversations WHERE text = ?", [seen])[0]["n"]
    assert n == 1  # written once, not again when the stream is cancelled

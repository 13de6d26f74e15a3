"""One run of the agent tree as client events: data cards as each data agent finishes, the narrator's
checked sentences as tokens, the model queue when the tree announces its model call (the first-token
clock starts then), and a specialist's tool calls under the budget and loop guard (its prose is held
until it is checked)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator
from typing import Any

from services.paddock.agents.coach_types import CoachEvent, CoachHost, CoachRequest, Run
from services.paddock.agents.data_agents import DATA_AGENT_NAMES
from services.paddock.agents.stream import (
    BudgetExceeded,
    LoopGuard,
    ModelFailed,
    Truncated,
    _Clock,
    _deadlined,
)
from services.paddock.questions.conversation import STATE_KEY
from services.paddock.trace_sink import SINK

DATA_KEYS = set(DATA_AGENT_NAMES)
MAX_LLM_CALLS = 6  # per request
MAX_TOOL_CALLS = 3  # model-chosen tool calls per question


async def tree_events(
    svc: CoachHost, req: CoachRequest, run: Run, ticket: Any, model_ok: bool
) -> AsyncGenerator[CoachEvent, None]:
    """The tree's run, as client events: data cards, checked sentences, the queue."""

    clock = _Clock(svc.settings)
    if model_ok and svc.settings.data_agents == "llm" and req.kind != "ask":
        async for qev in svc._take_model(ticket, run, clock):  # the data agents call the model
            yield qev
    sid = await svc._session(req.driver_id, req.session_id, {})
    request = {"kind": req.kind, "intent": req.intent, "model_ok": model_ok}
    request["specialist_tools"] = svc.settings.specialist_tools
    delta: dict[str, Any] = {"session_id": req.session_id, "driver_id": req.driver_id, "request": request}
    # nothing an earlier request left is read by this one: its data, evidence and question are its own
    delta |= {"plan": None, "route": None, "narration": None, "model_call": None, "evidence": None}
    delta |= {k: None for k in DATA_KEYS} | {"user_question": req.question}

    # tools Pitwall runs (data agents, the question's tool) and the narrator's model call are trace rows
    # of this request, beside the agent runs the plugin records
    # (a data agent may finish before the tree's first event names the invocation: held until then)
    early: list[tuple[str, str, dict[str, Any], float | None, bool]] = []

    def sink(name: str, event: str, detail: dict[str, Any], ms: float | None, ok: bool) -> None:
        early.append((name, event, detail, ms, ok))
        while run.inv and early:
            svc.store.trace(run.inv, req.session_id, *early.pop(0))

    token = SINK.set(sink)
    try:
        async for out in _tree(svc, req, run, ticket, model_ok, clock, sid, delta):
            yield out
    finally:
        with contextlib.suppress(ValueError):  # closed from another context: nothing to undo there
            SINK.reset(token)
        for row in early:
            svc.store.trace(run.inv or "", req.session_id, *row)


async def _tree(
    svc: CoachHost,
    req: CoachRequest,
    run: Run,
    ticket: Any,
    model_ok: bool,
    clock: _Clock,
    sid: str,
    delta: dict[str, Any],
) -> AsyncGenerator[CoachEvent, None]:
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.genai import types

    agen = svc.runner.run_async(
        user_id=req.driver_id,
        session_id=sid,
        new_message=types.Content(role="user", parts=[types.Part(text=req.question)]),
        state_delta=delta,
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    )
    async with contextlib.aclosing(_deadlined(agen, clock)) as events:
        async for ev in events:
            run.inv = ev.invocation_id
            sd = (ev.actions.state_delta if ev.actions else None) or {}
            for k, v in sd.items():
                if k in DATA_KEYS:
                    run.state[k] = v
                    yield _ev("data", {"agent": ev.author, "key": k, "data": _as_json(v), "ms": run.ms()})
                elif k in ("evidence", "plan", "route", STATE_KEY) and v is not None:
                    run.state[k] = v
                elif k == "narration" and v is not None:
                    run.narration = v
            if sd.get("plan"):
                run.tools.append({"tool": sd["plan"]["tool"], "args": sd["plan"]["args"], "by": "pitwall"})
                run.tool_results.append(sd["plan"]["result"])
            route = sd.get("route") or {}
            if sd.get("model_call"):
                run.model_calls += 1  # the narrator's one call; the plugin counts a specialist's own calls
            if sd.get("model_call") or (model_ok and route.get("next") not in (None, "AskNarrator")):
                async for qev in svc._take_model(ticket, run, clock):
                    yield qev
            if (ev.custom_metadata or {}).get("heartbeat"):
                clock.output()
                continue
            async for out in _content(svc, ev, run, clock):
                yield out


async def _content(svc: CoachHost, ev: Any, run: Run, clock: _Clock) -> AsyncGenerator[CoachEvent, None]:
    """A narrator's checked sentence goes out; a specialist's calls are counted, its prose held."""
    if "MAX_TOKENS" in str(ev.error_code or ""):
        raise Truncated(f"cut at the {svc.settings.llm_max_tokens}-token limit")
    if ev.error_code or ev.error_message:
        raise ModelFailed(f"{ev.error_code}: {ev.error_message}")
    if not (ev.content and ev.content.parts) or ev.author == "PitwallOrchestrator":
        return
    text = "".join(p.text or "" for p in ev.content.parts)
    if ev.author.startswith(("NarrativeAgent", "AskNarrator")):
        if text and ev.partial:
            run.author = ev.author
            sep = " " if run.parts else ""  # the picks read as one text, as the final answer joins them
            run.parts.append(text)
            clock.output()
            svc._reachable_at = time.monotonic()
            yield _ev("token", {"text": sep + text, "agent": ev.author})
        return
    if svc.plugin is not None and svc.plugin.llm_calls.get(run.inv, 0) > MAX_LLM_CALLS:
        raise BudgetExceeded(f"budget: more than {MAX_LLM_CALLS} LLM calls for one question")
    calls = ev.get_function_calls() if not ev.partial else []
    mine = [t for t in run.tools if not t.get("by")]
    if len(mine) + len(calls) > MAX_TOOL_CALLS:
        raise BudgetExceeded(f"budget: more than {MAX_TOOL_CALLS} tool calls for one question")
    for fc in calls:
        clock.output()
        run.tools.append({"tool": fc.name, "args": fc.args})
        same = [t for t in run.tools[-3:] if t.get("tool") == fc.name and t.get("args") == fc.args]
        if len(same) >= 3:
            raise LoopGuard(f"loop guard: {fc.name} called 3 times in a row with the same arguments")
    for fr in ev.get_function_responses():
        run.tool_results.append(fr.response)
        clock.model_call()  # the model reads the result next: a new prefill
    if text and (ev.partial or (ev.is_final_response() and not run.held)):
        run.author = ev.author
        run.held.append(text)
        clock.output()


def _ev(kind: str, data: dict[str, Any]) -> CoachEvent:
    return CoachEvent(kind, data)


def _as_json(v: Any) -> Any:
    """A data agent's output: JSON when it is JSON (deterministic agents), else the raw text."""
    import json

    if not isinstance(v, str):
        return v
    try:
        return json.loads(v)
    except ValueError:
        return {"text": v}

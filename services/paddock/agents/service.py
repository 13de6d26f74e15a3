"""CoachService: what the paddock's HTTP layer calls. Streams CoachEvents: phase, data, token, done, error."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from services.paddock.agents.data_agents import DATA_AGENT_NAMES
from services.paddock.agents.narrative import grounding_check, parse_emotion, template_narrative
from services.paddock.agents.registry import BRIEF_KEYS
from services.paddock.llm import describe, litellm_args, make_model, prepare_litellm
from services.paddock.llm.warm import WarmClient, WarmError
from services.paddock.store import PaddockStore
from shared.settings import Settings

log = logging.getLogger(__name__)
DATA_KEYS = set(DATA_AGENT_NAMES)
MAX_TURNS = 50
MAX_LLM_CALLS = 6  # per request
MAX_TOOL_CALLS = 8  # per request


def _as_json(v: Any) -> Any:
    """A data agent's output: JSON when it is JSON (deterministic agents), else the raw text (LLM agents)."""
    if not isinstance(v, str):
        return v
    try:
        return json.loads(v)
    except ValueError:
        return {"text": v}


@dataclass
class CoachEvent:
    type: str  # phase | data | token | done | error
    data: dict[str, Any] = field(default_factory=dict)


class CoachService:
    def __init__(self, settings: Settings, store: PaddockStore | None = None) -> None:
        self.settings = settings
        self.store = store or PaddockStore(settings)
        self.runner: Any = None
        self.plugin: Any = None
        self.sessions: Any = None
        self._adk_sessions: dict[str, str] = {}
        self._usage: dict[str, dict[str, Any]] = {}  # driver -> {turns, chars, driving_session}
        self.rotations = 0
        self.warm = WarmClient(settings, self.store)
        self._reachable_at = 0.0
        self.warm_state: dict[str, Any] = {"status": "not started"}

    async def startup(self) -> None:
        """Import and wire ADK + LiteLLM now, not on the first request."""
        prepare_litellm()
        from google.adk.apps import App
        from google.adk.runners import Runner
        from google.adk.sessions import InMemorySessionService

        from services.paddock.agents.orchestrator import build_tree
        from services.paddock.agents.plugin import TracePlugin

        tree = build_tree(make_model(self.settings), self.settings.data_agents)
        self.plugin = TracePlugin(self.store)
        self.sessions = InMemorySessionService()
        self.runner = Runner(
            app=App(name="pitwall", root_agent=tree, plugins=[self.plugin]), session_service=self.sessions
        )
        log.info("paddock agents ready: %s", describe(self.settings))

    async def model_reachable(self, timeout_s: float = 2.0) -> tuple[bool, str]:
        """Probe ``/v1/models``. A success is trusted for 5 s (a failing call still falls back); a failure is
        never cached, so a server that comes up is used at once."""
        now = time.monotonic()
        if now - self._reachable_at < 5.0:
            return True, "HTTP 200 (probed in the last 5 s)"
        ok, reason = await self.warm.probe(timeout_s)
        self._reachable_at = now if ok else 0.0
        return ok, reason

    async def warm_up(self) -> None:
        """Start-up, in the background: run the agent tree's data phase once (no model call), so the first
        driver request does not pay for ADK's first run; then discover the server's models and load ours
        with a one-token call."""
        t0 = time.perf_counter()
        self.warm_state = {"status": "warming"}
        try:
            await self._warm_adk()
        except Exception:  # a warm-up problem must never stop the service
            log.exception("ADK warm-up failed")
        found = await self.warm.discover()
        if found["reachable"] and self.settings.llm_warmup:
            await self.warm.warmup()  # the server loads the model
            # LiteLLM builds its client and lazy pieces now, not on a driver's request
            await self._warm_litellm()
        self.warm_state = {
            "status": "ready",
            "model_reachable": found["reachable"],
            "ms": round((time.perf_counter() - t0) * 1000),
        }

    async def _warm_litellm(self) -> None:
        """One streamed one-token call through LiteLLM, recorded like any other call."""
        import litellm

        t0 = time.perf_counter()
        error = None
        try:
            reply = await litellm.acompletion(
                **litellm_args(self.settings),
                messages=[{"role": "user", "content": "ok"}],
                max_tokens=1,
                stream=True,
            )
            async for _ in reply:
                pass
        except Exception as exc:  # the server may not be up yet: the first real call then pays instead
            error = f"{type(exc).__name__}: {str(exc)[:200]}"
        self.store.friction(
            role="warmup",
            mode="warmup",
            backend="litellm",
            prompt_chars=2,
            completion_chars=None,
            latency_ms=(time.perf_counter() - t0) * 1000,
            truncated=True,
            fell_back=False,
            error=error,
            emotion=None,
        )

    async def _warm_adk(self) -> None:
        from google.genai import types

        from services.paddock.tools.base import ToolError, session_row

        try:
            newest = await asyncio.to_thread(session_row, "latest")
        except ToolError:  # an empty lake: nothing to warm with yet
            return
        if self.runner is None:
            return
        t0 = time.perf_counter()
        s = await self.sessions.create_session(app_name="pitwall", user_id="__warmup__", state={})
        delta = {
            "session_id": newest["session_id"],
            "driver_id": "__warmup__",
            "temp:intent_override": "data_only:DebriefDataPhase",
        }
        msg = types.Content(role="user", parts=[types.Part(text="warm-up")])
        async for _ in self.runner.run_async(
            user_id="__warmup__", session_id=s.id, new_message=msg, state_delta=delta
        ):
            pass
        await self.sessions.delete_session(app_name="pitwall", user_id="__warmup__", session_id=s.id)
        log.info("agent tree warmed up in %.0f ms", (time.perf_counter() - t0) * 1000)

    def _newest_driving_session(self, driver_id: str) -> str | None:
        from services.paddock.tools.base import rows

        try:
            r = rows(
                "SELECT session_id FROM sessions WHERE driver_id = ? ORDER BY started_at DESC NULLS LAST, "
                "session_id DESC LIMIT 1",
                [driver_id],
            )
        except Exception:
            return None
        return r[0]["session_id"] if r else None

    def _rotation_reason(self, driver_id: str) -> str | None:
        u = self._usage.get(driver_id)
        if u is None:
            return None
        if u["turns"] >= MAX_TURNS:
            return f"{MAX_TURNS} turns"
        if u["chars"] > self.settings.adk_char_budget:
            return f"over {self.settings.adk_char_budget} characters"
        newest = self._newest_driving_session(driver_id)
        if newest is not None and u["driving_session"] is not None and newest != u["driving_session"]:
            return f"new driving session {newest}"
        return None

    def account(self, driver_id: str, chars: int) -> None:
        u = self._usage.setdefault(driver_id, {"turns": 0, "chars": 0, "driving_session": None})
        u["turns"] += 1
        u["chars"] += chars

    async def _session(self, driver_id: str, state: dict[str, Any]) -> str:
        """The driver's persistent ADK session (a stable prompt prefix for the model's KV cache), rotated
        after 50 turns, past the character budget, or when a new driving session appears in the lake."""
        reason = self._rotation_reason(driver_id)
        if reason is not None:
            log.info("rotating the ADK session of %s: %s", driver_id, reason)
            self._adk_sessions.pop(driver_id, None)
            self._usage.pop(driver_id, None)
            self.rotations += 1
        sid = self._adk_sessions.get(driver_id)
        if sid is None:
            self._usage[driver_id] = {
                "turns": 0,
                "chars": 0,
                "driving_session": self._newest_driving_session(driver_id),
            }
            s = await self.sessions.create_session(app_name="pitwall", user_id=driver_id, state=state)
            sid = s.id
            self._adk_sessions[driver_id] = sid
        return sid

    async def reset(self, driver_id: str) -> dict[str, Any]:
        self._usage.pop(driver_id, None)
        return {"driver_id": driver_id, "reset": self._adk_sessions.pop(driver_id, None) is not None}

    async def debrief(self, session_id: str, driver_id: str) -> AsyncIterator[CoachEvent]:
        async for ev in self._pipeline("debrief", session_id, driver_id, "debrief my session"):
            yield ev

    async def brief(
        self, driver_id: str, question: str = "brief me for today", session_id: str = "latest"
    ) -> AsyncIterator[CoachEvent]:
        async for ev in self._pipeline("brief", session_id, driver_id, question):
            yield ev

    async def _pipeline(
        self, kind: str, session_id: str, driver_id: str, question: str
    ) -> AsyncIterator[CoachEvent]:
        from google.adk.agents.run_config import RunConfig, StreamingMode
        from google.genai import types

        t0 = time.perf_counter()
        conv = uuid.uuid4().hex
        narrator_name = f"NarrativeAgent{kind.capitalize()}"
        self.store.turn(conv, driver_id, session_id, kind, 0, "user", question)  # write-through
        state: dict[str, Any] = {}
        text_parts: list[str] = []
        llm_error: str | None = None
        inv = None
        finished = False
        try:
            yield CoachEvent("phase", {"agent": f"{kind.capitalize()}Pipeline", "status": "started", "ms": 0})
            ok, reason = await self.model_reachable()
            if self.runner is None:
                await self.startup()
            sid = await self._session(driver_id, {})
            route = (
                kind if ok else f"data_only:{kind.capitalize()}DataPhase"
            )  # no model: skip the narrative call
            delta = {"session_id": session_id, "driver_id": driver_id, "temp:intent_override": route}
            msg = types.Content(role="user", parts=[types.Part(text=question)])
            try:
                async with asyncio.timeout(self.settings.adk_timeout_s):
                    async for ev in self.runner.run_async(
                        user_id=driver_id,
                        session_id=sid,
                        new_message=msg,
                        state_delta=delta,
                        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
                    ):
                        inv = ev.invocation_id
                        sd = ev.actions.state_delta if ev.actions else None
                        for k, v in (sd or {}).items():
                            if k in DATA_KEYS:
                                state[k] = v
                                yield CoachEvent(
                                    "data",
                                    {
                                        "agent": ev.author,
                                        "key": k,
                                        "data": _as_json(v),
                                        "ms": round((time.perf_counter() - t0) * 1000, 1),
                                    },
                                )
                        if ev.author == narrator_name and ev.content and ev.content.parts:
                            if not ok:
                                break
                            chunk = "".join(p.text or "" for p in ev.content.parts)
                            if ev.partial or not text_parts and chunk:
                                text_parts.append(chunk)
                                yield CoachEvent("token", {"text": chunk})
                        if ev.error_code or ev.error_message:
                            llm_error = f"{ev.error_code}: {ev.error_message}"
            except TimeoutError:
                llm_error = f"no answer within {self.settings.adk_timeout_s:g} s"
            except Exception as exc:  # the model server failed: fall back, never crash
                llm_error = f"{type(exc).__name__}: {str(exc)[:300]}"
            yield CoachEvent(
                "phase",
                {
                    "agent": f"{kind.capitalize()}Pipeline",
                    "status": "finished",
                    "ms": round((time.perf_counter() - t0) * 1000, 1),
                },
            )
            llm_calls = self.plugin.llm_calls.get(inv, 0) if self.plugin and inv else 0
            done = self._finish(
                kind,
                conv,
                driver_id,
                session_id,
                question,
                state,
                "".join(text_parts),
                ok,
                reason,
                llm_error,
                llm_calls,
                t0,
                backend="litellm",
            )
            finished = True
            yield CoachEvent("done", done)
        finally:
            if not finished:  # the client went away: keep what was generated, marked incomplete
                self._incomplete(conv, driver_id, session_id, kind, "".join(text_parts), narrator_name, t0)

    def _incomplete(
        self, conv: str, driver_id: str, session_id: str | None, kind: str, text: str, role: str, t0: float
    ) -> None:
        log.info("%s for %s cancelled after %d characters: stored as incomplete", kind, driver_id, len(text))
        self.store.turn(
            conv,
            driver_id,
            session_id,
            kind,
            1,
            "assistant",
            text,
            None,
            "llm",
            False,
            {"reason": "cancelled: the client disconnected"},
        )
        self.store.friction(
            role=role,
            mode=kind,
            backend="litellm",
            prompt_chars=None,
            completion_chars=len(text),
            latency_ms=(time.perf_counter() - t0) * 1000,
            truncated=True,
            fell_back=False,
            error="cancelled: the client disconnected",
            emotion=None,
        )

    def _finish(
        self,
        kind: str,
        conv: str,
        driver_id: str,
        session_id: str,
        question: str,
        state: dict[str, Any],
        raw: str,
        ok: bool,
        reason: str,
        llm_error: str | None,
        llm_calls: int,
        t0: float,
        backend: str,
    ) -> dict[str, Any]:
        """Parse or fall back, check grounding, write the assistant turn, and build the ``done`` payload."""
        narrator = "llm"
        fallback_reason = None
        if not ok or llm_error or not raw.strip():
            narrator = "template"
            fallback_reason = reason if not ok else (llm_error or "empty model reply")
            text, focus = template_narrative(kind, state)
            emotion = "neutral"
        else:
            text, emotion = parse_emotion(raw)
            _, focus = template_narrative(kind, state)
        ungrounded = grounding_check(text, state) if narrator == "llm" else []
        self.account(driver_id, len(question) + len(text) + sum(len(v) for v in state.values()))
        self.store.turn(
            conv,
            driver_id,
            session_id,
            kind,
            1,
            "assistant",
            text,
            emotion,
            narrator,
            True,
            {"ungrounded": ungrounded, "reason": fallback_reason, "tier": backend},
        )
        if backend == "litellm" or narrator == "template":  # warm calls write their own row as they stream
            self.store.friction(
                role=f"NarrativeAgent{kind.capitalize()}",
                mode=kind,
                backend="template" if narrator == "template" else backend,
                prompt_chars=None,
                completion_chars=len(text),
                latency_ms=(time.perf_counter() - t0) * 1000,
                truncated=False,
                fell_back=narrator == "template",
                error=llm_error,
                emotion=emotion,
            )
        return {
            "text": text,
            "emotion": emotion,
            "focus_items": focus,
            "narrator": narrator,
            "reason": fallback_reason,
            "ungrounded": ungrounded,
            "conversation_id": conv,
            "llm_calls": llm_calls,
            "tier": "warm" if backend == "warm-httpx" else "adk",
            "ms": round((time.perf_counter() - t0) * 1000, 1),
        }

    async def quick(
        self, kind: str, session_id: str, driver_id: str, question: str
    ) -> AsyncIterator[CoachEvent]:
        """A quick brief or debrief on the warm tier: the same data, packed into one streamed call, no ADK."""
        from services.paddock.agents.data_agents import DATA_AGENT_NAMES as NAMES
        from services.paddock.agents.data_agents import DATA_SPECS, run_data_spec
        from services.paddock.agents.prompts import quick_prompt

        t0 = time.perf_counter()
        conv = uuid.uuid4().hex
        self.store.turn(conv, driver_id, session_id, kind, 0, "user", question)
        parts: list[str] = []
        error: str | None = None
        finished = False
        try:
            yield CoachEvent("phase", {"agent": f"Quick{kind.capitalize()}", "status": "started", "ms": 0})
            keys = BRIEF_KEYS if kind == "brief" else tuple(DATA_SPECS)

            async def one(key: str) -> tuple[str, str]:
                return key, await run_data_spec(key, session_id, driver_id)

            state: dict[str, Any] = {}
            for fut in asyncio.as_completed([one(k) for k in keys]):
                k, v = await fut
                state[k] = v
                yield CoachEvent(
                    "data",
                    {
                        "agent": NAMES[k],
                        "key": k,
                        "data": _as_json(v),
                        "ms": round((time.perf_counter() - t0) * 1000, 1),
                    },
                )
            ok, reason = await self.model_reachable()
            if ok:
                messages = [
                    {"role": "system", "content": quick_prompt(kind, question, state)},
                    {"role": "user", "content": question},
                ]
                try:
                    async with asyncio.timeout(self.settings.adk_timeout_s):
                        async for delta in self.warm.stream(
                            messages, role=f"Quick{kind.capitalize()}", mode=kind
                        ):
                            parts.append(delta)
                            yield CoachEvent("token", {"text": delta})
                except TimeoutError:
                    error = f"no answer within {self.settings.adk_timeout_s:g} s"
                except WarmError as exc:
                    error = str(exc)
            yield CoachEvent(
                "phase",
                {
                    "agent": f"Quick{kind.capitalize()}",
                    "status": "finished",
                    "ms": round((time.perf_counter() - t0) * 1000, 1),
                },
            )
            done = self._finish(
                kind,
                conv,
                driver_id,
                session_id,
                question,
                state,
                "".join(parts),
                ok,
                reason,
                error,
                1 if ok else 0,
                t0,
                backend="warm-httpx",
            )
            finished = True
            yield CoachEvent("done", done)
        finally:
            if not finished:
                self._incomplete(
                    conv, driver_id, session_id, kind, "".join(parts), f"Quick{kind.capitalize()}", t0
                )


async def _collect_answer(
    svc: CoachService, driver_id: str, session_id: str | None, question: str, intent: str | None
) -> AsyncIterator[CoachEvent]:
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.genai import types

    t0 = time.perf_counter()
    ok, reason = await svc.model_reachable()
    conv = uuid.uuid4().hex
    svc.store.turn(conv, driver_id, session_id, "ask", 0, "user", question)  # write-through
    if not ok:
        yield CoachEvent(
            "done",
            {
                "available": False,
                "reason": reason,
                "text": "",
                "emotion": "neutral",
                "narrator": "none",
                "ungrounded": [],
                "conversation_id": conv,
                "llm_calls": 0,
                "focus_items": [],
                "ms": round((time.perf_counter() - t0) * 1000, 1),
            },
        )
        return
    if svc.runner is None:
        await svc.startup()
    sid = await svc._session(driver_id, {})
    delta: dict[str, Any] = {"session_id": session_id or "latest", "driver_id": driver_id}
    if intent:
        delta["temp:intent_override"] = intent
    msg = types.Content(role="user", parts=[types.Part(text=question)])
    parts: list[str] = []
    tools: list[dict[str, Any]] = []
    author = None
    inv = None
    error = None
    last_call: tuple[str, str] | None = None
    repeats = 0
    finished = False
    try:
        try:
            async with asyncio.timeout(svc.settings.adk_timeout_s):
                async for ev in svc.runner.run_async(
                    user_id=driver_id,
                    session_id=sid,
                    new_message=msg,
                    state_delta=delta,
                    run_config=RunConfig(streaming_mode=StreamingMode.SSE),
                ):
                    inv = ev.invocation_id
                    if svc.plugin is not None and svc.plugin.llm_calls.get(inv, 0) > MAX_LLM_CALLS:
                        raise RuntimeError(f"budget: more than {MAX_LLM_CALLS} LLM calls for one question")
                    calls = ev.get_function_calls() if not ev.partial else []
                    if len(tools) + len(calls) > MAX_TOOL_CALLS:
                        raise RuntimeError(f"budget: more than {MAX_TOOL_CALLS} tool calls for one question")
                    for fc in calls:
                        key = (fc.name or "", json.dumps(fc.args, sort_keys=True, default=str))
                        repeats = repeats + 1 if key == last_call else 1
                        last_call = key
                        tools.append({"tool": fc.name, "args": fc.args})
                        if repeats >= 3:
                            raise RuntimeError(
                                f"loop guard: {fc.name} called 3 times in a row with the same arguments"
                            )
                    if (
                        (
                            ev.author not in ("PitwallOrchestrator",)
                            and ev.content
                            and ev.content.parts
                            and ev.partial
                        )
                        or ev.is_final_response()
                        and ev.content
                        and ev.content.parts
                        and not parts
                    ):
                        chunk = "".join(p.text or "" for p in ev.content.parts)
                        if chunk:
                            author = ev.author
                            parts.append(chunk)
                            yield CoachEvent("token", {"text": chunk, "agent": ev.author})
        except TimeoutError:
            error = f"no answer within {svc.settings.adk_timeout_s:g} s"
        except Exception as exc:
            error = f"{type(exc).__name__}: {str(exc)[:300]}"
        finished = True
    finally:
        if not finished:  # cancelled (client gone): keep the partial answer, marked incomplete
            svc._incomplete(conv, driver_id, session_id, "ask", "".join(parts), author or "ask", t0)
    text, emotion = parse_emotion("".join(parts))
    llm_calls = svc.plugin.llm_calls.get(inv, 0) if svc.plugin and inv else 0
    svc.account(driver_id, len(question) + len(text))
    svc.store.turn(
        conv,
        driver_id,
        session_id,
        "ask",
        1,
        "assistant",
        text,
        emotion,
        "llm",
        error is None,
        {"agent": author, "tools": tools, "error": error},
    )
    if error and not text:
        code = "budget_exceeded" if error.startswith("RuntimeError: budget") else "model_failed"
        retry = "loop guard" not in error and code != "budget_exceeded"
        yield CoachEvent("error", {"code": code, "message": error, "retryable": retry})
        return
    yield CoachEvent(
        "done",
        {
            "available": True,
            "text": text,
            "emotion": emotion,
            "agent": author,
            "tools": tools,
            "narrator": "llm",
            "ungrounded": [],
            "conversation_id": conv,
            "llm_calls": llm_calls,
            "focus_items": [],
            "error": error,
            "ms": round((time.perf_counter() - t0) * 1000, 1),
        },
    )


async def ask(
    svc: CoachService, driver_id: str, question: str, session_id: str | None = None, intent: str | None = None
) -> AsyncIterator[CoachEvent]:
    """Q&A: routed by the keyword classifier; ``{available: false, reason}`` when no model answers."""
    async for ev in _collect_answer(svc, driver_id, session_id, question, intent):
        yield ev

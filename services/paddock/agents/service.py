"""CoachService: the paddock's one request lifecycle for briefs, debriefs and questions.

Every request goes through ``CoachService.run``: the user's turn is written at once, the data phase runs
(no model, never queued), the model call takes the request's place in the model queue, tokens stream under
two deadlines (first token, then silence between tokens), and one ``done`` (or ``error``) ends it. Failures
are typed (``CoachError`` subclasses), never told apart by their message text.

Narrators: ``llm`` (the model wrote it), ``template`` (brief/debrief with no model or no first token in
time, written from the same data) and ``data`` (a question answered from the tools without the model).
Tokens that reached the client are never replaced: a stream that fails after them ends with
``complete: false`` and the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from services.paddock.agents.data_agents import DATA_AGENT_NAMES
from services.paddock.agents.digest import build_digest
from services.paddock.agents.narrative import facts_of, grounding_check, parse_emotion, template_narrative
from services.paddock.agents.registry import AGENT_REGISTRY, BRIEF_KEYS
from services.paddock.llm import describe, litellm_args, make_model, prepare_litellm
from services.paddock.llm.warm import TokenLimit, WarmClient, WarmError
from services.paddock.store import PaddockStore
from shared.settings import Settings

log = logging.getLogger(__name__)
DATA_KEYS = set(DATA_AGENT_NAMES)
MAX_TURNS = 50
MAX_LLM_CALLS = 6  # per request
MAX_TOOL_CALLS = 8  # per request
NO_SESSION = "(no session yet)"  # a driver with no session: every tool answers "unknown session"
Kind = Literal["debrief", "brief", "ask"]


# ---- typed failures -------------------------------------------------------------------------------
class CoachError(Exception):
    """A request that the model could not finish; ``code`` goes to the client."""

    code = "model_failed"
    retryable = True


class ModelFailed(CoachError):
    """The model server answered with an error or a broken stream."""


class NoFirstToken(CoachError):
    code = "no_first_token"


class StreamStalled(CoachError):
    code = "stream_stalled"


class Truncated(CoachError):
    """The answer reached the token limit (``PITWALL_LLM_MAX_TOKENS``)."""

    code = "max_tokens"


class BudgetExceeded(CoachError):
    code = "budget_exceeded"
    retryable = False


class LoopGuard(CoachError):
    code = "loop_guard"
    retryable = False


class UnknownSession(Exception):
    """The request names a session the lake does not have (a 404 before any response starts)."""


# ---- one request ------------------------------------------------------------------------------------
@dataclass
class CoachRequest:
    kind: Kind
    driver_id: str
    session_id: str  # "latest" until ``CoachService.resolve`` makes it the driver's newest session
    question: str
    intent: str | None = None
    tier: Literal["adk", "warm"] = "adk"

    @property
    def agent(self) -> str:
        if self.kind == "ask":
            return "Ask"
        return (
            f"Quick{self.kind.capitalize()}" if self.tier == "warm" else f"{self.kind.capitalize()}Pipeline"
        )


@dataclass
class _Run:
    """What one request has produced so far."""

    t0: float
    conv: str
    state: dict[str, Any] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # ask: text held back while it may be a tool call
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[Any] = field(default_factory=list)
    author: str | None = None
    inv: str | None = None
    error: CoachError | None = None
    model_used: bool = False

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 1)


class _Clock:
    """The streaming deadlines: ``first_token_s`` from the start of a model call to its first output,
    then ``idle_s`` of silence between outputs. A tool result starts a new model call (its own prefill)."""

    def __init__(self, settings: Settings) -> None:
        self.first_s = settings.llm_first_token_s
        self.idle_s = settings.llm_idle_s
        self.deadline: float | None = None
        self.streaming = False

    def model_call(self) -> None:
        self.deadline = asyncio.get_running_loop().time() + self.first_s
        self.streaming = False

    def output(self) -> None:
        self.deadline = asyncio.get_running_loop().time() + self.idle_s
        self.streaming = True

    def expired(self) -> CoachError:
        if self.streaming:
            return StreamStalled(f"the model went silent for {self.idle_s:g} s mid-answer")
        return NoFirstToken(f"no first token within {self.first_s:g} s")


async def _deadlined(agen: AsyncIterator[Any], clock: _Clock) -> AsyncGenerator[Any, None]:
    """``agen``'s items, each awaited under the clock's current deadline. However it ends, ``agen`` is
    closed here (an ADK run left to the garbage collector cannot shut down cleanly)."""
    it = aiter(agen)
    try:
        while True:
            try:
                async with asyncio.timeout_at(clock.deadline) as cm:
                    item = await anext(it)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if cm.expired():
                    raise clock.expired() from None
                raise
            yield item
    finally:
        close = getattr(agen, "aclose", None)
        if close is not None:
            with contextlib.suppress(RuntimeError):  # a generator that was already mid-shutdown
                await close()


def _as_json(v: Any) -> Any:
    """A data agent's output: JSON when it is JSON (deterministic agents), else the raw text (LLM agents)."""
    if not isinstance(v, str):
        return v
    try:
        return json.loads(v)
    except ValueError:
        return {"text": v}


_CALL_START = re.compile(r"\s*(?:functions\.|<tool_call>|\{\s*\"name\"|\[\s*\{|(?:get|query)_\w+\s*[:({])")
_CALL_PREFIXES = ("functions.", "<tool_call>", '{"name"', "[{", "get_", "query_")


def _maybe_call(text: str) -> bool:
    """Is this start of an answer a tool call written as text, or could it still become one? Such text
    is held back from the client and decided on at the end."""
    if _CALL_START.match(text):
        return True
    s = text.lstrip()
    return len(s) < 12 and any(p.startswith(s) for p in _CALL_PREFIXES)


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
        self._loading: asyncio.Task[None] | None = None
        self._adk_sessions: dict[str, str] = {}
        self._usage: dict[str, dict[str, Any]] = {}  # driver -> {turns, chars, driving_session}
        self.rotations = 0
        self.warm = WarmClient(settings, self.store)
        self._reachable_at = 0.0
        self._probe: tuple[float, bool, str] = (0.0, False, "not probed yet")
        self._probe_task: asyncio.Task[Any] | None = None
        self._in_model = 0  # model calls running now (the server is busy, so it is up)
        self.warm_state: dict[str, Any] = {"status": "not started"}

    # ---- start-up: never on the event loop ------------------------------------------------------
    def _build(self) -> None:
        """Import LiteLLM and ADK and build the agent tree (4-9 s of imports): runs in a worker thread."""
        prepare_litellm()
        import litellm  # noqa: F401  (the slow import, here and not on a request)
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

    def start_loading(self) -> None:
        """Begin loading the agent tree in a worker thread; returns at once (``/health`` keeps answering)."""
        if self.runner is None and (self._loading is None or self._loading.done()):
            self._loading = asyncio.get_running_loop().create_task(asyncio.to_thread(self._build))

    async def ready(self) -> None:
        """Wait until the agent tree is loaded (a request never falls back because LiteLLM was loading)."""
        if self.runner is not None:
            return
        self.start_loading()
        assert self._loading is not None
        await asyncio.shield(self._loading)

    async def startup(self) -> None:
        await self.ready()

    # ---- the model server ------------------------------------------------------------------------
    async def model_reachable(self, timeout_s: float = 2.0) -> tuple[bool, str]:
        """Probe ``/v1/models``. A success is trusted for 5 s, and while a model call is running (a busy
        llama.cpp server answers nothing else); a failure is never cached, so a server that comes up is
        used at once."""
        now = time.monotonic()
        if self._in_model:
            return True, "answering another request"
        if now - self._reachable_at < 5.0:
            return True, "HTTP 200 (probed in the last 5 s)"
        ok, reason = await self.warm.probe(timeout_s)
        self._reachable_at = now if ok else 0.0
        self._probe = (time.monotonic(), ok, reason)
        return ok, reason

    def model_status(self) -> tuple[bool, str]:
        """For ``/health``: the last probe at once, refreshed in the background when older than 5 s."""
        at, ok, reason = self._probe
        if self._in_model:
            return True, "answering a request"
        if time.monotonic() - at > 5.0 and (self._probe_task is None or self._probe_task.done()):
            self._probe_task = asyncio.get_running_loop().create_task(self.model_reachable(1.5))
        return ok, reason

    async def warm_up(self) -> None:
        """Start-up, in the background: wait for the tree, run its data phase once (no model call), then
        discover the server's models and load ours with a one-token call."""
        t0 = time.perf_counter()
        self.warm_state = {"status": "loading agents"}
        try:
            await self.ready()
            self.warm_state = {"status": "warming"}
            await self._warm_adk()
        except Exception:  # a warm-up problem must never stop the service
            log.exception("ADK warm-up failed")
        found = await self.warm.discover()
        self._probe = (time.monotonic(), found["reachable"], found.get("reason") or "HTTP 200")
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
                **{**litellm_args(self.settings), "max_tokens": 1},
                messages=[{"role": "user", "content": "ok"}],
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

    # ---- sessions ------------------------------------------------------------------------------------
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

    def _resolve_session(self, req: CoachRequest) -> str:
        from services.paddock.tools.base import session_row

        if req.session_id not in ("latest", "", None):
            try:
                return str(session_row(req.session_id)["session_id"])
            except Exception as exc:  # ToolError, or a lake with no tables yet
                raise UnknownSession(f"no session {req.session_id!r} in the lake") from exc
        newest = self._newest_driving_session(req.driver_id)
        if newest is not None:
            return newest
        if req.kind == "debrief":
            raise UnknownSession(f"no sessions for driver {req.driver_id!r} in the lake")
        return NO_SESSION  # a brief or a question before the driver's first session

    async def resolve(self, req: CoachRequest) -> CoachRequest:
        """Pin the request to one session ("latest" is the driver's newest); ``UnknownSession`` if none."""
        req.session_id = await asyncio.to_thread(self._resolve_session, req)
        return req

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
        reason = await asyncio.to_thread(self._rotation_reason, driver_id)
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
                "driving_session": await asyncio.to_thread(self._newest_driving_session, driver_id),
            }
            s = await self.sessions.create_session(app_name="pitwall", user_id=driver_id, state=state)
            sid = s.id
            self._adk_sessions[driver_id] = sid
        return sid

    async def reset(self, driver_id: str) -> dict[str, Any]:
        self._usage.pop(driver_id, None)
        return {"driver_id": driver_id, "reset": self._adk_sessions.pop(driver_id, None) is not None}

    # ---- entry points ----------------------------------------------------------------------------
    async def _serve(self, req: CoachRequest) -> AsyncIterator[CoachEvent]:
        """Resolve, probe and run one request without a model queue (in-process callers and tests)."""
        await self.resolve(req)
        ok, reason = await self.model_reachable()
        async for ev in self.run(req, ok, reason):
            yield ev

    def debrief(self, session_id: str, driver_id: str) -> AsyncIterator[CoachEvent]:
        return self._serve(CoachRequest("debrief", driver_id, session_id, "debrief my session"))

    def brief(
        self, driver_id: str, question: str = "brief me for today", session_id: str = "latest"
    ) -> AsyncIterator[CoachEvent]:
        return self._serve(CoachRequest("brief", driver_id, session_id, question))

    def quick(self, kind: Kind, session_id: str, driver_id: str, question: str) -> AsyncIterator[CoachEvent]:
        """A quick brief or debrief on the warm tier: the same data and digest, one streamed call, no ADK."""
        return self._serve(CoachRequest(kind, driver_id, session_id, question, tier="warm"))

    # ---- the lifecycle -----------------------------------------------------------------------------
    async def run(
        self, req: CoachRequest, model_ok: bool, reason: str, ticket: Any = None
    ) -> AsyncIterator[CoachEvent]:
        """One request, start to ``done``. ``ticket`` is the request's place in the model queue (taken by
        the HTTP layer before the response started); it is released however the request ends."""
        run = _Run(time.perf_counter(), uuid.uuid4().hex)
        self.store.turn(run.conv, req.driver_id, req.session_id, req.kind, 0, "user", req.question)
        finished = False
        try:
            yield CoachEvent("phase", {"agent": req.agent, "status": "started", "ms": 0})
            if req.kind == "ask":
                if model_ok:
                    await self.ready()
                    async for ev in self._guarded_stream(self._ask_events(req, run, ticket), run):
                        yield ev
                done = await self._finish_ask(req, run, model_ok, reason)
            else:
                if req.tier == "warm":
                    gen = self._warm_events(req, run, ticket if model_ok else None, model_ok)
                else:
                    await self.ready()
                    gen = self._adk_events(req, run, ticket if model_ok else None, model_ok)
                async for ev in self._guarded_stream(gen, run):
                    yield ev
                yield CoachEvent("phase", {"agent": req.agent, "status": "finished", "ms": run.ms()})
                done = self._finish_narrative(req, run, model_ok, reason)
            finished = True
            yield done
        finally:
            if ticket is not None:
                ticket.release()
            if run.model_used:
                self._in_model = max(0, self._in_model - 1)
            if not finished:  # the client went away: keep what was generated, marked incomplete
                self._incomplete(req, run)

    async def _guarded_stream(
        self, gen: AsyncGenerator[CoachEvent, None], run: _Run
    ) -> AsyncIterator[CoachEvent]:
        """Pass a producer's events on; a failure becomes ``run.error`` (typed), never an exception."""
        try:
            async with contextlib.aclosing(gen) as events:
                async for ev in events:
                    yield ev
        except CoachError as exc:
            run.error = exc
        except Exception as exc:  # the model server or LiteLLM failed: typed here, once
            run.error = ModelFailed(f"{type(exc).__name__}: {str(exc)[:300]}")

    async def _take_model(self, ticket: Any, run: _Run, clock: _Clock) -> AsyncIterator[CoachEvent]:
        """Wait for the model (the queue), then start the first-token clock."""
        if ticket is not None:
            if ticket.gate.sem.locked():
                yield CoachEvent(
                    "phase",
                    {"agent": "ModelQueue", "status": "queued", "ahead": ticket.ahead, "ms": run.ms()},
                )
            await ticket.acquire()
        if not run.model_used:
            run.model_used = True
            self._in_model += 1
        clock.model_call()

    def _data_event(self, agent: str, key: str, value: Any, run: _Run) -> CoachEvent:
        run.state[key] = value
        return CoachEvent("data", {"agent": agent, "key": key, "data": _as_json(value), "ms": run.ms()})

    def _token(self, chunk: str, run: _Run, clock: _Clock, agent: str | None = None) -> CoachEvent:
        run.parts.append(chunk)
        clock.output()
        self._reachable_at = time.monotonic()
        return CoachEvent("token", {"text": chunk, **({"agent": agent} if agent else {})})

    def _adk_run(
        self, req: CoachRequest, sid: str, delta: dict[str, Any], clock: _Clock
    ) -> contextlib.aclosing[AsyncGenerator[Any, None]]:
        """One streamed ADK run of the driver's words in their ADK session, under the clock's deadlines."""
        from google.adk.agents.run_config import RunConfig, StreamingMode
        from google.genai import types

        agen = self.runner.run_async(
            user_id=req.driver_id,
            session_id=sid,
            new_message=types.Content(role="user", parts=[types.Part(text=req.question)]),
            state_delta=delta,
            run_config=RunConfig(streaming_mode=StreamingMode.SSE),
        )
        return contextlib.aclosing(_deadlined(agen, clock))

    async def _adk_events(
        self, req: CoachRequest, run: _Run, ticket: Any, model_ok: bool
    ) -> AsyncGenerator[CoachEvent, None]:
        cap = req.kind.capitalize()
        narrator = f"NarrativeAgent{cap}"
        clock = _Clock(self.settings)
        llm_data = self.settings.data_agents == "llm"
        if model_ok and llm_data:  # the data agents themselves call the model
            async for ev in self._take_model(ticket, run, clock):
                yield ev
        sid = await self._session(req.driver_id, {})
        route = req.kind if model_ok else f"data_only:{cap}DataPhase"  # no model: skip the narrative
        delta = {"session_id": req.session_id, "driver_id": req.driver_id, "temp:intent_override": route}
        async with self._adk_run(req, sid, delta, clock) as events:
            async for ev in events:
                run.inv = ev.invocation_id
                for k, v in ((ev.actions.state_delta if ev.actions else None) or {}).items():
                    if k in DATA_KEYS:
                        yield self._data_event(ev.author, k, v, run)
                    elif k == "evidence":
                        run.state["evidence"] = v
                        if model_ok and not llm_data:  # the narrative call is next: now wait for the model
                            async for qev in self._take_model(ticket, run, clock):
                                yield qev
                if llm_data and ev.author != narrator and ev.content and ev.content.parts:
                    clock.model_call()  # a data agent's model call or tool result: the next call's prefill
                if ev.author == narrator and ev.content and ev.content.parts:
                    chunk = "".join(p.text or "" for p in ev.content.parts)
                    if chunk and (ev.partial or not run.parts):  # skip the aggregate after partials
                        run.author = narrator
                        yield self._token(chunk, run, clock)
                if "MAX_TOKENS" in str(ev.error_code or ""):
                    raise Truncated(f"cut at the {self.settings.llm_max_tokens}-token limit")
                if ev.error_code or ev.error_message:
                    raise ModelFailed(f"{ev.error_code}: {ev.error_message}")

    async def _warm_events(
        self, req: CoachRequest, run: _Run, ticket: Any, model_ok: bool
    ) -> AsyncGenerator[CoachEvent, None]:
        from services.paddock.agents.data_agents import DATA_SPECS, run_data_spec
        from services.paddock.agents.prompts import narrative_messages

        keys = BRIEF_KEYS if req.kind == "brief" else list(DATA_SPECS)

        async def one(key: str) -> tuple[str, str]:
            return key, await run_data_spec(key, req.session_id, req.driver_id)

        for fut in asyncio.as_completed([one(k) for k in keys]):
            k, v = await fut
            yield self._data_event(DATA_AGENT_NAMES[k], k, v, run)
        run.state["evidence"] = build_digest(req.kind, run.state)
        if not model_ok:
            return
        clock = _Clock(self.settings)
        async for ev in self._take_model(ticket, run, clock):
            yield ev
        messages = narrative_messages(req.kind, req.question, run.state["evidence"])
        stream = self.warm.stream(
            messages, role=req.agent, mode=req.kind, max_tokens=self.settings.llm_max_tokens
        )
        try:
            async with contextlib.aclosing(_deadlined(stream, clock)) as deltas:
                async for delta in deltas:
                    run.author = req.agent
                    yield self._token(delta, run, clock)
        except TokenLimit as exc:  # every token reached the client: the narrative is kept, marked cut
            raise Truncated(str(exc)) from exc
        except WarmError as exc:
            raise ModelFailed(str(exc)) from exc

    async def _ask_events(
        self, req: CoachRequest, run: _Run, ticket: Any
    ) -> AsyncGenerator[CoachEvent, None]:
        clock = _Clock(self.settings)
        async for ev in self._take_model(ticket, run, clock):
            yield ev
        sid = await self._session(req.driver_id, {})
        delta: dict[str, Any] = {"session_id": req.session_id, "driver_id": req.driver_id}
        if req.intent:
            delta["temp:intent_override"] = req.intent
        if self.settings.specialist_tools == "evidence" and not (req.intent or "").startswith("data_only:"):
            from services.paddock.agents.classifier import _classify_intent
            from services.paddock.agents.data_answer import planned_call

            agent = _classify_intent(req.question, req.intent)[1]
            plan = await asyncio.to_thread(planned_call, agent, req.question, req.session_id)
            if plan is not None:  # the specialist narrates this data; the grounding check reads all of it
                run.state["plan"] = plan
                run.tools.append({"tool": plan.tool, "args": plan.args, "by": "pitwall"})
                run.tool_results.append(plan.result)
                delta["temp:evidence"] = {"tool": plan.tool, "text": plan.text}
        last_call: tuple[str, str] | None = None
        repeats = 0
        async with self._adk_run(req, sid, delta, clock) as events:
            async for ev in events:
                run.inv = ev.invocation_id
                if self.plugin is not None and self.plugin.llm_calls.get(run.inv, 0) > MAX_LLM_CALLS:
                    raise BudgetExceeded(f"budget: more than {MAX_LLM_CALLS} LLM calls for one question")
                calls = ev.get_function_calls() if not ev.partial else []
                if len(run.tools) + len(calls) > MAX_TOOL_CALLS:
                    raise BudgetExceeded(f"budget: more than {MAX_TOOL_CALLS} tool calls for one question")
                for fc in calls:
                    clock.output()
                    key = (fc.name or "", json.dumps(fc.args, sort_keys=True, default=str))
                    repeats = repeats + 1 if key == last_call else 1
                    last_call = key
                    run.tools.append({"tool": fc.name, "args": fc.args})
                    if repeats >= 3:
                        raise LoopGuard(
                            f"loop guard: {fc.name} called 3 times in a row with the same arguments"
                        )
                for fr in ev.get_function_responses():
                    run.tool_results.append(fr.response)
                    clock.model_call()  # the model reads the result next: a new prefill
                if ev.author == "PitwallOrchestrator" or not (ev.content and ev.content.parts):
                    continue
                if ev.partial or (ev.is_final_response() and not run.parts and not run.held):
                    chunk = "".join(p.text or "" for p in ev.content.parts)
                    if not chunk:
                        continue
                    run.author = ev.author
                    if run.parts or not _maybe_call("".join(run.held) + chunk):
                        for held in [*run.held, chunk]:
                            yield self._token(held, run, clock, ev.author)
                        run.held.clear()
                    else:  # maybe a tool call written as text: hold it back from the client
                        run.held.append(chunk)
                        clock.output()
        if run.held:  # still undecided at the end: it is the whole answer, decided in _finish_ask
            run.parts.extend(run.held)
            run.held.clear()

    # ---- endings ---------------------------------------------------------------------------------------
    def _finish_narrative(self, req: CoachRequest, run: _Run, model_ok: bool, reason: str) -> CoachEvent:
        """Brief and debrief: the model's narrative, or the template when no token ever came."""
        evidence = run.state.get("evidence") or build_digest(req.kind, run.state)
        raw = run.text
        complete = True
        fallback: str | None = None
        if not model_ok or not raw.strip():
            narrator, fallback = (
                "template",
                (reason if not model_ok else str(run.error) if run.error else "empty model reply"),
            )
            text, focus = template_narrative(req.kind, run.state)
            emotion = "neutral"
        else:
            narrator = "llm"
            text, emotion = parse_emotion(raw)
            _, focus = template_narrative(req.kind, run.state)
            if run.error is not None:  # tokens reached the client: keep them, say why it stopped
                complete, fallback = False, str(run.error)
        ungrounded = grounding_check(text, facts_of(evidence)) if narrator == "llm" else []
        tier = "warm" if req.tier == "warm" else "adk"
        self.account(req.driver_id, len(req.question) + len(text) + len(evidence))
        self.store.turn(
            run.conv,
            req.driver_id,
            req.session_id,
            req.kind,
            1,
            "assistant",
            text,
            emotion,
            narrator,
            complete,
            {"ungrounded": ungrounded, "reason": fallback, "tier": tier},
        )
        if tier == "adk" or narrator == "template":  # warm calls write their own row as they stream
            self.store.friction(
                role=run.author or f"NarrativeAgent{req.kind.capitalize()}",
                mode=req.kind,
                backend="template" if narrator == "template" else "litellm",
                prompt_chars=len(evidence),
                completion_chars=len(text),
                latency_ms=(time.perf_counter() - run.t0) * 1000,
                truncated=not complete,
                fell_back=narrator == "template",
                error=str(run.error) if run.error else None,
                emotion=emotion,
            )
        return CoachEvent(
            "done",
            {
                "text": text,
                "emotion": emotion,
                "focus_items": focus,
                "narrator": narrator,
                "reason": fallback,
                "complete": complete,
                "ungrounded": ungrounded,
                "conversation_id": run.conv,
                "llm_calls": self._llm_calls(run) if req.tier == "adk" else int(run.model_used),
                "prompt_tokens": self.plugin.prompt_tokens.get(run.inv) if self.plugin and run.inv else None,
                "evidence_chars": len(evidence),
                "tier": tier,
                "ms": run.ms(),
            },
        )

    def _llm_calls(self, run: _Run) -> int:
        return int(self.plugin.llm_calls.get(run.inv, 0)) if self.plugin and run.inv else 0

    async def _finish_ask(self, req: CoachRequest, run: _Run, model_ok: bool, reason: str) -> CoachEvent:
        """A question: the model's answer, or an answer from the data (labelled), or an error."""
        from services.paddock.agents.data_answer import (
            DataAnswer,
            answer_from_data,
            format_result,
            run_text_call,
            text_tool_call,
        )
        from services.paddock.agents.narrative import Facts

        raw = run.text
        narrator, fallback, complete = "llm", None, True
        text, emotion = parse_emotion(raw)
        facts = Facts()
        facts.add_text(req.question)  # the laps and corners the driver asked about may be named back
        for res in run.tool_results:
            facts.add_data(res)
        allowed = AGENT_REGISTRY.get(run.author or "", {}).get("tools", [])
        plan: DataAnswer | None = run.state.get("plan")
        model_called = any(not t.get("by") for t in run.tools)
        written = text_tool_call(text, allowed) if raw and not model_called else None
        if written is not None and plan is not None:  # it had the data and still wrote a call: say the data
            text, emotion, narrator = format_result(plan.tool, plan.result), "neutral", "data"
            fallback = f"the model wrote a call to {written[0]} as text; answered from {plan.tool}"
        elif written is not None:  # a weak model wrote its tool call as text: run it, answer from its data
            name, args = written
            result = await asyncio.to_thread(run_text_call, name, args, req.session_id)
            run.tools.append({"tool": name, "args": args, "from_text": True})
            text, emotion, narrator = format_result(name, result), "neutral", "data"
            fallback = (
                f"the model wrote a call to {name} as text instead of making it; answered from its data"
            )
            facts.add_data(result)
        elif not raw.strip():
            if isinstance(run.error, BudgetExceeded | LoopGuard):
                return self._ask_error(req, run, run.error)
            why = reason if not model_ok else str(run.error) if run.error else "empty model reply"
            found: DataAnswer | None = plan or await asyncio.to_thread(
                answer_from_data, req.question, req.session_id, req.intent
            )
            if found is None:
                # no first token in time is "no answer", like no model: a done with the reason, not an error
                if model_ok and run.error is not None and not isinstance(run.error, NoFirstToken):
                    return self._ask_error(req, run, run.error)
                return self._unavailable(req, run, why)
            if found is not plan:
                run.tools.append({"tool": found.tool, "args": found.args})
            text, emotion, narrator = format_result(found.tool, found.result), "neutral", "data"
            fallback = f"{why}; answered from {found.tool} without the model"
            facts.add_data(found.result)
        elif run.error is not None:
            complete, fallback = False, str(run.error)
        ungrounded = grounding_check(text, facts)
        self.account(req.driver_id, len(req.question) + len(text))
        meta = {"agent": run.author, "tools": run.tools, "error": str(run.error) if run.error else None}
        self.store.turn(
            run.conv,
            req.driver_id,
            req.session_id,
            "ask",
            1,
            "assistant",
            text,
            emotion,
            narrator,
            complete,
            {**meta, "reason": fallback, "ungrounded": ungrounded},
        )
        return CoachEvent(
            "done",
            {
                "available": True,
                "text": text,
                "emotion": emotion,
                "agent": run.author,
                "tools": run.tools,
                "narrator": narrator,
                "reason": fallback,
                "complete": complete,
                "ungrounded": ungrounded,
                "conversation_id": run.conv,
                "llm_calls": self._llm_calls(run),
                "focus_items": [],
                "error": str(run.error) if run.error else None,
                "ms": run.ms(),
            },
        )

    def _ask_error(self, req: CoachRequest, run: _Run, err: CoachError) -> CoachEvent:
        self.store.turn(
            run.conv,
            req.driver_id,
            req.session_id,
            "ask",
            1,
            "assistant",
            "",
            "neutral",
            "llm",
            False,
            {"agent": run.author, "tools": run.tools, "error": str(err)},
        )
        return CoachEvent("error", {"code": err.code, "message": str(err), "retryable": err.retryable})

    def _unavailable(self, req: CoachRequest, run: _Run, reason: str) -> CoachEvent:
        self.store.turn(
            run.conv,
            req.driver_id,
            req.session_id,
            "ask",
            1,
            "assistant",
            "",
            "neutral",
            "none",
            True,
            {"reason": reason},
        )
        return CoachEvent(
            "done",
            {
                "available": False,
                "reason": reason,
                "text": "",
                "emotion": "neutral",
                "narrator": "none",
                "complete": True,
                "ungrounded": [],
                "conversation_id": run.conv,
                "llm_calls": 0,
                "focus_items": [],
                "ms": run.ms(),
            },
        )

    def _incomplete(self, req: CoachRequest, run: _Run) -> None:
        text = run.text
        log.info(
            "%s for %s cancelled after %d characters: stored as incomplete",
            req.kind,
            req.driver_id,
            len(text),
        )
        self.store.turn(
            run.conv,
            req.driver_id,
            req.session_id,
            req.kind,
            1,
            "assistant",
            text,
            None,
            "llm",
            False,
            {"reason": "cancelled: the client disconnected"},
        )
        self.store.friction(
            role=run.author or req.agent,
            mode=req.kind,
            backend="warm-httpx" if req.tier == "warm" else "litellm",
            prompt_chars=None,
            completion_chars=len(text),
            latency_ms=(time.perf_counter() - run.t0) * 1000,
            truncated=True,
            fell_back=False,
            error="cancelled: the client disconnected",
            emotion=None,
        )


def ask(
    svc: CoachService, driver_id: str, question: str, session_id: str | None = None, intent: str | None = None
) -> AsyncIterator[CoachEvent]:
    """Q&A: routed by the keyword classifier; answered from the data, labelled, when no model answers."""
    return svc._serve(CoachRequest("ask", driver_id, session_id or "latest", question, intent))

"""CoachService: the paddock's one request lifecycle for briefs, debriefs and questions.

Every request runs the one ADK tree (``orchestrator.build_tree``): the user's turn is written at once, the
deterministic agents fetch the evidence (no model, never queued), the model's place in the queue is taken
when the tree announces its model call and the first-token clock starts then, and the tree's
``narration`` (or, when a deadline cut it, the fallback from the data it had produced) becomes one
``Outcome``: one record in ``conversations``, one ``done`` (or ``error``) event. Narrators: ``llm`` (the
model picked the facts; every figure is Pitwall's), ``template`` (brief/debrief without the model's
words) and ``data`` (a question answered from its data, labelled). Checked sentences that reached the
client are never replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from services.paddock.agents.adk_sessions import NO_SESSION, AdkSessionsMixin
from services.paddock.agents.answer import Outcome, ending
from services.paddock.agents.coach_types import CoachEvent, CoachRequest, Kind, Run
from services.paddock.agents.data_agents import DATA_AGENT_NAMES
from services.paddock.agents.stream import (
    BudgetExceeded,
    CoachError,
    LoopGuard,
    ModelFailed,
    NoFirstToken,
    StreamStalled,
    Truncated,
    UnknownSession,
    _Clock,
)
from services.paddock.agents.tree_run import tree_events
from services.paddock.llm import describe, make_model, prepare_litellm
from services.paddock.llm.health import ModelServerMixin
from services.paddock.llm.warm import WarmClient
from services.paddock.store import PaddockStore
from shared.settings import Settings

log = logging.getLogger(__name__)
DATA_KEYS = set(DATA_AGENT_NAMES)
MAX_LLM_CALLS = 6  # per request
MAX_TOOL_CALLS = 3  # model-chosen tool calls per question
__all__ = [
    "NO_SESSION", "BudgetExceeded", "CoachError", "CoachEvent", "CoachRequest", "CoachService",
    "LoopGuard", "ModelFailed", "NoFirstToken", "StreamStalled", "Truncated", "UnknownSession", "ask",
]  # fmt: skip


class CoachService(ModelServerMixin, AdkSessionsMixin):
    def __init__(self, settings: Settings, store: PaddockStore | None = None) -> None:
        self.settings = settings
        self.store = store or PaddockStore(settings)
        self.runner: Any = None
        self.plugin: Any = None
        self.sessions: Any = None
        self._loading: asyncio.Task[None] | None = None
        self.warm = WarmClient(settings, self.store)
        self._live: dict[str, tuple[CoachRequest, Run]] = {}  # requests under way, for a clean shutdown
        self._init_model_server()
        self._init_sessions()

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

        s = self.settings
        tree = build_tree(make_model(s), s.data_agents, self.warm, s.specialist_tools, s.llm_max_tokens)
        self.plugin = TracePlugin(self.store)
        self.sessions = InMemorySessionService()
        self.runner = Runner(
            app=App(name="pitwall", root_agent=tree, plugins=[self.plugin]), session_service=self.sessions
        )
        log.info("paddock agents ready: %s", describe(s))

    def start_loading(self) -> None:
        """Begin loading the agent tree, and building the model server's HTTP client, in worker threads;
        returns at once (``/health`` keeps answering)."""
        self.warm.start()
        if self.runner is None and (self._loading is None or self._loading.done()):
            self._loading = asyncio.get_running_loop().create_task(asyncio.to_thread(self._build))

    async def ready(self) -> None:
        if self.runner is not None:
            return
        self.start_loading()
        assert self._loading is not None
        await asyncio.shield(self._loading)

    async def startup(self) -> None:
        await self.ready()

    async def _warm_adk(self) -> None:
        """The debrief's data phase once, so the first request does not pay for the first tool runs."""
        from services.paddock.tools.base import ToolError, session_row

        try:
            newest = await asyncio.to_thread(session_row, "latest")
        except ToolError:  # an empty lake: nothing to warm with yet
            return
        req = CoachRequest(
            "debrief", "__warmup__", newest["session_id"], "warm-up", "data_only:DebriefDataPhase"
        )
        async for _ in self._events(req, Run(time.perf_counter(), "warmup"), None, False):
            pass

    async def aclose(self) -> None:
        """Shutdown, before the store closes: every answer still streaming is written as incomplete."""
        for req, run in list(self._live.values()):
            self._write(
                req, run, ending(self, req, run, False, "cancelled: the service is shutting down", True)
            )
        self._live.clear()
        await self.warm.aclose()

    async def resolve(self, req: CoachRequest) -> CoachRequest:
        """Pin the request to one session ("latest" is the driver's newest); ``UnknownSession`` if none."""
        req.session_id = await asyncio.to_thread(
            self._resolve_session, req.kind, req.session_id, req.driver_id
        )
        return req

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
        """``mode: quick``: the same pipeline (one debrief path whatever the tier), recorded as ``warm``."""
        return self._serve(CoachRequest(kind, driver_id, session_id, question, tier="warm"))

    # ---- the lifecycle -----------------------------------------------------------------------------
    async def run(
        self, req: CoachRequest, model_ok: bool, reason: str, ticket: Any = None
    ) -> AsyncIterator[CoachEvent]:
        """One request, start to its one ending. ``ticket`` is the request's place in the model queue
        (taken by the HTTP layer before the response started); it is released however the request ends."""
        run = Run(time.perf_counter(), uuid.uuid4().hex)
        if not self.store.turn(
            run.conv, req.driver_id, req.session_id, req.kind, 0, "user", req.question, asked_at=req.asked_at
        ):
            if ticket is not None:
                ticket.release()
            yield _deleted()
            return
        self._live[run.conv] = (req, run)
        try:
            yield CoachEvent("phase", {"agent": req.agent, "status": "started", "ms": 0})
            await self.ready()
            try:
                async with contextlib.aclosing(self._events(req, run, ticket, model_ok)) as events:
                    async for ev in events:
                        yield ev
            except CoachError as exc:
                run.error = exc
            except Exception as exc:  # the model server, LiteLLM or a tool failed: typed here, once
                run.error = ModelFailed(f"{type(exc).__name__}: {str(exc)[:300]}")
            out = ending(self, req, run, model_ok, reason)
            if out.narrator == "llm" and not run.parts and out.text:  # checked prose, shown whole
                yield CoachEvent("token", {"text": out.text, "agent": run.author})
            yield CoachEvent("phase", {"agent": req.agent, "status": "finished", "ms": run.ms()})
            self._live.pop(run.conv, None)
            yield self._write(req, run, out)
        finally:
            if ticket is not None:
                ticket.release()
            if run.model_used:
                self._in_model = max(0, self._in_model - 1)
            if self._live.pop(run.conv, None) is not None:  # the client went away: keep what it saw
                self._write(
                    req, run, ending(self, req, run, False, "cancelled: the client disconnected", True)
                )

    def _write(self, req: CoachRequest, run: Run, out: Outcome) -> CoachEvent:
        """The one ending: one record, one ``done`` or ``error`` event (the session was deleted meanwhile:
        no record, and an ``error`` saying so)."""
        chars = len(req.question) + len(out.text) + len(run.state.get("evidence") or "")
        self.account(req.driver_id, req.session_id, chars)
        kept = self.store.turn(
            run.conv, req.driver_id, req.session_id, req.kind, 1, "assistant", out.text, out.emotion,
            out.narrator, out.complete, out.record, req.asked_at,
        )  # fmt: skip
        return CoachEvent(out.event, out.data) if kept else _deleted()

    async def _take_model(self, ticket: Any, run: Run, clock: _Clock) -> AsyncIterator[CoachEvent]:
        """Wait for the model (the queue, then any warm-up call in progress); then start the clock."""
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
        await self.wait_warmup()
        clock.model_call()

    def _events(
        self, req: CoachRequest, run: Run, ticket: Any, model_ok: bool
    ) -> AsyncGenerator[CoachEvent, None]:
        return tree_events(self, req, run, ticket, model_ok)


def _deleted() -> CoachEvent:
    return CoachEvent(
        "error",
        {
            "code": "session_deleted",
            "message": "this session was deleted; nothing about it is kept",
            "retryable": False,
        },
    )


def ask(
    svc: CoachService, driver_id: str, question: str, session_id: str | None = None, intent: str | None = None
) -> AsyncIterator[CoachEvent]:
    """Q&A: routed and answered by the pipeline; from the data, labelled, when the model cannot."""
    return svc._serve(CoachRequest("ask", driver_id, session_id or "latest", question, intent))

"""The values one coach request is made of, shared by the service and the steps it runs (``tree_run``,
``answer``): the request, a client event, what a run has produced so far; and ``CoachHost``, what those
steps use of the service (so they never import it)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from services.paddock.agents.stream import CoachError, _Clock
from services.paddock.store import PaddockStore
from shared.settings import Settings

Kind = Literal["debrief", "brief", "ask"]


@dataclass
class CoachRequest:
    kind: Kind
    driver_id: str
    session_id: str  # "latest" until ``CoachService.resolve`` makes it the driver's newest session
    question: str
    intent: str | None = None
    tier: Literal["adk", "warm"] = "adk"  # kept for the record: every tier runs the same pipeline
    # when it was asked (monotonic): a request asked before its session was deleted leaves no turn
    asked_at: float = field(default_factory=time.monotonic)

    @property
    def agent(self) -> str:
        return "Ask" if self.kind == "ask" else f"{self.kind.capitalize()}Pipeline"


@dataclass
class CoachEvent:
    type: str  # phase | data | token | done | error
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Run:
    """What one request has produced so far (read by ``answer.ending``)."""

    t0: float
    conv: str
    state: dict[str, Any] = field(default_factory=dict)  # data outputs, evidence, plan, route
    parts: list[str] = field(default_factory=list)  # checked text the client has seen
    held: list[str] = field(default_factory=list)  # a specialist's prose: shown only once checked
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[Any] = field(default_factory=list)
    narration: dict[str, Any] | None = None
    author: str | None = None
    inv: str | None = None
    error: CoachError | None = None
    model_used: bool = False
    model_calls: int = 0

    def ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 1)


class CoachHost(Protocol):
    """What a request's steps use of ``CoachService``."""

    settings: Settings
    store: PaddockStore
    runner: Any
    plugin: Any
    _reachable_at: float

    async def _session(self, driver_id: str, session_id: str, state: dict[str, Any]) -> str: ...

    def _take_model(self, ticket: Any, run: Run, clock: _Clock) -> AsyncIterator[CoachEvent]: ...

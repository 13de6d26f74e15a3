"""Coaching: brief, debrief and Q&A (SSE with ``Accept: text/event-stream``, else the final JSON)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from services.paddock.agents.classifier import INTENTS
from services.paddock.agents.registry import AGENT_REGISTRY
from services.paddock.agents.service import CoachEvent, ask
from services.paddock.deps import Coach, Gate, Store
from services.paddock.sse import final_json, sse_response

router = APIRouter(prefix="/coach", tags=["coach"])
ID = r"^[A-Za-z0-9_.-]{1,64}$"
MODE_DOC = "adk: the agent pipeline; quick: the warm tier, one streamed call over the same data, no ADK"


class BriefRequest(BaseModel):
    driver_id: str = Field(pattern=ID)
    date: str | None = Field(None, max_length=32)
    focus: str | None = Field(None, max_length=200)
    goal: str | None = Field(None, max_length=200)
    hour_local: int | None = Field(None, ge=0, le=23)
    session_id: str = Field("latest", pattern=ID, description="the session to brief from; latest by default")
    mode: Literal["adk", "quick"] = Field("adk", description=MODE_DOC)


class DebriefRequest(BaseModel):
    session_id: str = Field(pattern=ID)
    driver_id: str = Field(pattern=ID)
    mode: Literal["adk", "quick"] = Field("adk", description=MODE_DOC)


class AskRequest(BaseModel):
    driver_id: str = Field(pattern=ID)
    session_id: str | None = Field(None, pattern=ID)
    question: str = Field(min_length=1, max_length=2000)
    intent: str | None = Field(None, max_length=32)


class EndRequest(BaseModel):
    driver_id: str = Field(pattern=ID)


async def _gated(gate: Any, events: AsyncIterator[CoachEvent]) -> AsyncIterator[CoachEvent]:
    # the client hears at once that it is queued for the one local model, before waiting for it
    yield CoachEvent("phase", {"agent": "ModelQueue", "status": "queued", "ahead": gate.waiting, "ms": 0})
    async with gate.slot():
        async for ev in events:
            yield ev


async def _respond(request: Request, gate: Any, events: AsyncIterator[CoachEvent]) -> Any:
    if gate.waiting >= gate.size:
        from services.paddock.sse import ModelBusy

        raise ModelBusy(5 * gate.waiting)
    stream = _gated(gate, events)
    if "text/event-stream" in request.headers.get("accept", ""):
        return sse_response(request, stream)
    return await final_json(stream)


@router.post("/brief")
async def brief(req: BriefRequest, request: Request, coach: Coach, gate: Gate) -> Any:
    """Pre-session brief: data phase, then one narrative; SSE or JSON."""
    q = " ".join(x for x in ("brief me", req.focus or "", req.goal or "") if x)
    if req.mode == "quick":
        return await _respond(request, gate, coach.quick("brief", req.session_id, req.driver_id, q))
    return await _respond(request, gate, coach.brief(req.driver_id, q, req.session_id))


@router.post("/debrief")
async def debrief(req: DebriefRequest, request: Request, coach: Coach, gate: Gate) -> Any:
    """Post-session debrief: nine data agents, then one narrative; SSE or JSON."""
    if req.mode == "quick":
        return await _respond(
            request, gate, coach.quick("debrief", req.session_id, req.driver_id, "debrief my session")
        )
    return await _respond(request, gate, coach.debrief(req.session_id, req.driver_id))


@router.post("/ask")
async def ask_route(req: AskRequest, request: Request, coach: Coach, gate: Gate) -> Any:
    """A question routed to one specialist; ``{available: false, reason}`` without a model."""
    return await _respond(request, gate, ask(coach, req.driver_id, req.question, req.session_id, req.intent))


@router.post("/ask/end")
def ask_end(req: EndRequest, store: Store) -> dict[str, Any]:
    """Mark the driver's open conversations closed (turns were already written)."""
    return {"driver_id": req.driver_id, "closed": store.close_conversations(req.driver_id)}


@router.get("/agents")
def agents() -> dict[str, Any]:
    """AGENT_REGISTRY (every agent with its description and tools) and the intent each question can be routed to."""
    return {"agents": AGENT_REGISTRY, "count": len(AGENT_REGISTRY), "intents": INTENTS}


@router.get("/traces")
def traces(
    store: Store,
    session_id: str | None = None,
    limit: int = Query(200, ge=1, le=1000),
    since_ts: str | None = None,
) -> dict[str, Any]:
    """Agent traces for polling; always 200."""
    try:
        sql = "SELECT * FROM agent_traces WHERE 1=1"
        params: list[Any] = []
        if session_id:
            sql += " AND pitwall_sid = ?"
            params.append(session_id)
        if since_ts:
            sql += " AND ts > CAST(? AS TIMESTAMP)"
            params.append(since_ts)
        got = store.query(sql + " ORDER BY ts DESC LIMIT ?", [*params, limit])
        return {"available": True, "traces": got, "count": len(got)}
    except Exception as exc:
        return {"available": False, "traces": [], "count": 0, "reason": str(exc).splitlines()[0]}

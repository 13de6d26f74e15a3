"""Coaching: brief, debrief and Q&A (SSE with ``Accept: text/event-stream``, else the final JSON)."""

from __future__ import annotations

import weakref
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, Field

from services.paddock.agents.classifier import INTENTS
from services.paddock.agents.registry import AGENT_REGISTRY
from services.paddock.agents.service import CoachRequest, CoachService, UnknownSession
from services.paddock.deps import Coach, Gate, Store
from services.paddock.sse import ModelGate, final_json, sse_response
from shared.ids import ID_PATTERN as ID
from shared.names import DriverId

router = APIRouter(prefix="/coach", tags=["coach"])
MODE_DOC = "adk: the agent pipeline; quick: the warm tier, one streamed call over the same data, no ADK"


class BriefRequest(BaseModel):
    driver_id: DriverId
    date: str | None = Field(None, max_length=32)
    focus: str | None = Field(None, max_length=200)
    goal: str | None = Field(None, max_length=200)
    hour_local: int | None = Field(None, ge=0, le=23)
    session_id: str = Field("latest", pattern=ID, description="the session to brief from; latest by default")
    mode: Literal["adk", "quick"] = Field("adk", description=MODE_DOC)


class DebriefRequest(BaseModel):
    session_id: str = Field(pattern=ID)
    driver_id: DriverId
    mode: Literal["adk", "quick"] = Field("adk", description=MODE_DOC)


class AskRequest(BaseModel):
    driver_id: DriverId
    session_id: str | None = Field(None, pattern=ID)
    question: str = Field(min_length=1, max_length=2000)
    intent: str | None = Field(None, max_length=32)


class EndRequest(BaseModel):
    driver_id: DriverId


async def _respond(request: Request, coach: CoachService, gate: ModelGate, req: CoachRequest) -> Any:
    """The request's session is checked (404) and, when the model will be called, its place in the model
    queue is taken (429 with Retry-After) before the response starts; the template and data answers never
    take a place."""
    try:
        await coach.resolve(req)
    except UnknownSession as exc:
        raise HTTPException(404, {"code": "unknown_session", "message": str(exc)}) from exc
    ok, reason = await coach.model_reachable()
    ticket = gate.reserve() if ok else None  # synchronous: nothing runs between the check and the take
    events = coach.run(req, ok, reason, ticket)
    if ticket is not None:  # a stream that never starts (client gone first) still gives its place back
        weakref.finalize(events, ticket.release)
    if "text/event-stream" in request.headers.get("accept", ""):
        return sse_response(request, events)
    return await final_json(events)


@router.post("/brief")
async def brief(req: BriefRequest, request: Request, coach: Coach, gate: Gate) -> Any:
    """Pre-session brief from the driver's session (the newest by default): data phase, then one
    narrative; SSE or JSON."""
    q = " ".join(x for x in ("brief me", req.focus or "", req.goal or "") if x)
    tier: Literal["adk", "warm"] = "warm" if req.mode == "quick" else "adk"
    return await _respond(
        request, coach, gate, CoachRequest("brief", req.driver_id, req.session_id, q, tier=tier)
    )


@router.post("/debrief")
async def debrief(req: DebriefRequest, request: Request, coach: Coach, gate: Gate) -> Any:
    """Post-session debrief of this session only: eleven data agents, then one narrative; SSE or JSON."""
    tier: Literal["adk", "warm"] = "warm" if req.mode == "quick" else "adk"
    return await _respond(
        request,
        coach,
        gate,
        CoachRequest("debrief", req.driver_id, req.session_id, "debrief my session", tier=tier),
    )


@router.post("/ask")
async def ask_route(req: AskRequest, request: Request, coach: Coach, gate: Gate) -> Any:
    """A question routed to one specialist; without a model, lap, corner and where-do-I-lose-time
    questions are answered from the data (``narrator: "data"``), others ``{available: false, reason}``."""
    return await _respond(
        request,
        coach,
        gate,
        CoachRequest("ask", req.driver_id, req.session_id or "latest", req.question, req.intent),
    )


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

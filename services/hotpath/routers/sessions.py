from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from services.hotpath.deps import State
from services.hotpath.state import UnknownSession
from shared.profiles.track import TrackProfile

router = APIRouter(tags=["sessions"])


class SessionStart(BaseModel):
    driver_id: str = Field("driver", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    car: str = Field("bmw_e46_m3_aim_mxp", min_length=1, max_length=64)
    track: str | None = Field("sonoma", max_length=64)
    driver_level: Literal["novice", "intermediate", "advanced", "pro"] = "intermediate"
    note: str | None = Field(None, max_length=500)
    # a track this hot path has not stored yet (one ``pitwall replay`` detected from a file): stored
    # under its data directory's ``tracks/`` and used; ``track`` must be its id
    track_profile: TrackProfile | None = None


class SessionStarted(BaseModel):
    session_id: str


@router.post("/session/start", response_model=SessionStarted)
def start(req: SessionStart, state: State) -> SessionStarted:
    """Start a live session; frames without a session id go to it."""
    try:
        sid = state.start_session(
            req.driver_id, req.car, req.track, req.driver_level, req.note, req.track_profile
        )
    except (KeyError, ValueError) as exc:
        raise HTTPException(422, detail=str(exc).strip('"')) from exc
    return SessionStarted(session_id=sid)


@router.post("/session/{session_id}/end")
async def end(session_id: str, state: State) -> dict[str, Any]:
    """End a live session: flush, close it in the store, publish it to the lake (waits for the lake)."""
    try:
        view = state.end_session(session_id)
    except UnknownSession as exc:
        raise HTTPException(404, detail=f"no live session {session_id!r}") from exc
    await asyncio.to_thread(state.writer.flush, 30.0)
    return view


@router.get("/sessions/{session_id}/live")
def live(session_id: str, state: State) -> dict[str, Any]:
    """Laps so far and the lap in progress."""
    try:
        return state.session(session_id).live_view()
    except UnknownSession as exc:
        raise HTTPException(404, detail=f"no live session {session_id!r}") from exc

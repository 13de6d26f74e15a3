from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from services.hotpath.deps import State
from services.hotpath.frame_intake import UnknownSession
from services.hotpath.state import BadArgument, SessionIsLive
from shared.ids import ID_BODY, ID_PATTERN
from shared.names import DriverId
from shared.paths import PathEscapeError
from shared.profiles.car import PROFILE_NAME
from shared.profiles.track import TrackProfile
from shared.store.deletion import UnknownSessionError

router = APIRouter(tags=["sessions"])


class SessionStart(BaseModel):
    driver_id: DriverId = "driver"
    car: str = Field(
        "bmw_e46_m3_aim_mxp",
        pattern=PROFILE_NAME,
        description="a car profile's name: shipped, or <data>/profiles/cars/<name>.yaml; never a path",
    )
    track: str | None = Field(
        None,
        pattern=ID_PATTERN,
        description="a track's id; omitted: found from the session's GPS fixes among the known tracks "
        "(no lap timing or corner cues until it is found; an unknown track stays unknown)",
    )
    driver_level: Literal["novice", "intermediate", "advanced", "pro"] = "intermediate"
    note: str | None = Field(None, max_length=500)
    reference: str | None = Field(
        None,
        pattern=rf"^({ID_BODY}:(\d{{1,4}}|achievable)|gold|session_best|last_lap|alltime|achievable)$",
        description="the delta's and the coach's reference: gold (default: the gold lap when saved, else the "
        "session best), session_best, last_lap (the previous valid lap), alltime (your fastest lap here in this "
        "car), achievable (the achievable lap of the session holding your fastest lap here: its laps joined where "
        "they matched), SESSION:LAP (any stored lap at this track, a friend's too) or SESSION:achievable",
    )
    # a track this hot path has not stored yet (one ``pitwall replay`` detected from a file): stored
    # under its data directory's ``tracks/`` and used; ``track`` must be its id
    track_profile: TrackProfile | None = None


class SessionStarted(BaseModel):
    session_id: str


@router.post("/session/start", response_model=SessionStarted)
def start(req: SessionStart, state: State) -> SessionStarted:
    """Start a live session; frames without a session id go to it."""
    try:
        ref: tuple[str, int | str] | str | None = None if req.reference in (None, "gold") else req.reference
        if req.reference and ":" in req.reference:
            ref_sid, ref_lap = req.reference.rsplit(":", 1)
            ref = (ref_sid, ref_lap if ref_lap == "achievable" else int(ref_lap))
        sid = state.start_session(
            req.driver_id, req.car, req.track, req.driver_level, req.note, ref, req.track_profile
        )
    except BadArgument as exc:
        raise HTTPException(
            422, detail={"code": "bad_argument", "argument": exc.argument, "message": exc.message}
        ) from exc
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


@router.delete("/sessions/{session_id}")
async def delete(session_id: str, state: State) -> dict[str, Any]:
    """Delete a finished session from the hot store and the lake (the paddock drops its own records)."""
    try:
        return await asyncio.to_thread(state.delete_session, session_id)
    except SessionIsLive as exc:
        raise HTTPException(409, detail=f"session {session_id!r} is live: end it first") from exc
    except UnknownSessionError as exc:
        raise HTTPException(404, detail=f"no session {session_id!r}") from exc
    except PathEscapeError as exc:  # the session's folder links out of the data directory: not followed
        raise HTTPException(422, detail=str(exc)) from exc

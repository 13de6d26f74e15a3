from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from services.hotpath.deps import State

router = APIRouter(tags=["cues"])


@router.get("/cues/stream")
async def cue_stream(state: State, session_id: str | None = Query(None)) -> StreamingResponse:
    """SSE: a hello event, then cue (spoken) and dropped events; keepalive comments every 15 s."""
    return StreamingResponse(
        state.hub.stream(session_id),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )

from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from services.hotpath.deps import State

router = APIRouter(tags=["cues"])


@router.get("/cues/stream")
async def cue_stream(
    state: State, session_id: str | None = Query(None), delta: bool = Query(True)
) -> StreamingResponse:
    """SSE: a hello event, then cue (spoken) and dropped events, and the predictive lap delta (``delta``
    events, about 10 a second, newest only: never in a cue's way; ``delta=false`` leaves them out);
    keepalive comments every 15 s."""
    return StreamingResponse(
        state.hub.stream(session_id, state=delta),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )

"""Live ingest: WebSocket batches (JSON text or msgpack binary) and NDJSON over HTTP."""

from __future__ import annotations

import json
import time
from typing import Any

import msgpack
from fastapi import APIRouter, HTTPException, Query, Request, WebSocket, WebSocketDisconnect

from services.hotpath.deps import State
from services.hotpath.state import HotpathState, UnknownSession
from shared.http_auth import auth_failure

router = APIRouter(tags=["ingest"])
MAX_BODY = 8_000_000


def _frames(msg: Any) -> tuple[str | None, list[Any]]:
    if isinstance(msg, list):
        return None, msg
    if isinstance(msg, dict) and isinstance(msg.get("frames"), list):
        return msg.get("session_id"), msg["frames"]
    if isinstance(msg, dict) and "t_s" in msg:
        return msg.get("session_id"), [msg]
    raise ValueError("expected {session_id?, frames: [...]}, a list of frames, or one frame")


@router.post("/ingest/frames")
async def ingest_ndjson(
    request: Request, state: State, session_id: str | None = Query(None)
) -> dict[str, Any]:
    """NDJSON body: one frame object per line."""
    arrived = time.perf_counter()
    body = await request.body()
    if len(body) > MAX_BODY:
        raise HTTPException(413, detail=f"body over {MAX_BODY} bytes; send smaller batches")
    frames: list[Any] = []
    bad = 0
    for lineno, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            frames.append(json.loads(line))
        except ValueError:
            bad += 1
            state.reject("malformed")
            if len(frames) == 0 and bad > 10:
                raise HTTPException(422, detail=f"line {lineno}: not JSON") from None
    try:
        res = state.ingest(session_id, frames, arrived)
    except UnknownSession as exc:
        state.reject("no_session", len(frames))
        raise HTTPException(404, detail="no live session: POST /session/start first") from exc
    if bad:
        res["rejected"]["malformed"] = res["rejected"].get("malformed", 0) + bad
    if res["accepted"] == 0 and (frames or bad):
        raise HTTPException(422, detail={"message": "no frame accepted", **res})
    return res


async def _handle(ws: WebSocket, state: HotpathState, default_sid: str | None) -> None:
    while True:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            return
        arrived = time.perf_counter()
        try:
            if msg.get("bytes") is not None:
                payload = msgpack.unpackb(msg["bytes"], raw=False)
            else:
                payload = json.loads(msg.get("text") or "")
            sid, frames = _frames(payload)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
            state.reject("malformed")
            await ws.close(code=1007, reason=f"malformed batch: {str(exc)[:80]}")
            return
        try:
            res = state.ingest(sid or default_sid, frames, arrived)
        except UnknownSession:
            state.reject("no_session", len(frames))
            await ws.close(code=1008, reason="no live session: POST /session/start first")
            return
        await ws.send_json(res)


@router.websocket("/ingest/ws")
async def ingest_ws(ws: WebSocket, session_id: str | None = None) -> None:
    state: HotpathState = ws.app.state.hot
    if auth_failure(ws, state.settings) is not None:
        await ws.close(code=1008, reason="bearer token required")
        return
    await ws.accept()
    try:
        await _handle(ws, state, session_id)
    except WebSocketDisconnect:
        return

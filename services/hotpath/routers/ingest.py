"""Live ingest: WebSocket batches (JSON text or msgpack binary) and NDJSON over HTTP.

Hostile input never crashes a handler: an undecodable batch is a 422 (HTTP) or a close frame with the
reason (WebSocket), and every refusal is counted per reason in ``/health``. Big batches are decoded off
the event loop and fed to the frame path in slices of at most ~5 ms of work, yielding between them, so
``/health`` and the cue stream keep answering while a maximal batch is processed. One batch at a time
is processed (as before: a batch is never interleaved with another), under ``app.state.ingest_lock``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request, WebSocket, WebSocketDisconnect

from services.hotpath.columns import ColumnBatch
from services.hotpath.deps import State
from services.hotpath.frame_intake import UnknownSession
from services.hotpath.ingest_decode import BadBatch, check_frames, decode, precheck, read_message
from services.hotpath.loop_share import hand_back
from services.hotpath.state import HotpathState
from shared.http_auth import auth_failure
from shared.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter(tags=["ingest"])
CHUNK_FRAMES = 100  # frames validated together (the column-wise fast path needs a few)
CHUNK_CELLS = 5_000  # at most this many values per chunk: fewer frames per chunk when frames are wide
SLICE_S = 0.005  # at most about this much frame work between two hand-backs to the event loop
OFF_LOOP_BYTES = 64 * 1024  # messages bigger than this are decoded in a worker thread
DURABLE_WAIT_S = 5.0  # longest an ack with ?durable=true waits for the store


async def ingest_sliced(
    app_state: Any,
    state: HotpathState,
    sid: str | None,
    frames: list[Any] | ColumnBatch,
    arrived: float,
    durable: bool = False,
) -> dict[str, Any]:
    """Feed ``frames`` to the session in chunks, handing the loop back every SLICE_S of work (for as
    long as a request or a cue waits: ``loop_share.hand_back``).
    The ack says how far the store's durability reaches (``durable_through_t_s``); with ``durable`` it
    is sent only once this batch is committed (or says ``durable: false`` when the store cannot write)."""
    sess = state.session(sid)
    res = await _feed(app_state, state, sid, frames, arrived)
    if durable and res["accepted"]:
        res["durable"] = await _stored(state, sess)
    res["durable_through_t_s"] = sess.durable_t
    res["stored_frames"] = sess.stored_frames
    if state.writer.blocked:
        res["refused"] = f"{state.writer.blocked}; frames are refused until the store can write again"
    return res


async def _stored(state: HotpathState, sess: Any, timeout: float = DURABLE_WAIT_S) -> bool:
    """Hand the session's buffer to the writer now and wait until it is committed."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def settle() -> None:
        if not done.done():
            done.set_result(True)

    def mark() -> None:  # on the writer thread
        loop.call_soon_threadsafe(settle)

    sess.flush_rows()
    state.writer.mark(mark)
    state.writer.wake()
    try:
        return bool(await asyncio.wait_for(done, timeout))
    except TimeoutError:
        return False


async def _feed(
    app_state: Any, state: HotpathState, sid: str | None, frames: list[Any] | ColumnBatch, arrived: float
) -> dict[str, Any]:
    accepted = 0
    rejected: dict[str, int] = {}
    n = len(frames)
    requests = getattr(app_state, "requests", None)
    step = chunk_frames(frames)
    async with app_state.ingest_lock:
        # a message of many chunks is validated once, as a whole (its slices are then not checked again),
        # in a worker thread: the loop's thread takes the interpreter lock between its Python steps
        whole = await asyncio.to_thread(state.clean, sid, frames) if n > step else None
        i = 0
        while True:
            t0 = time.perf_counter()
            published = state.hub.published
            while True:
                part = None
                if whole is not None:
                    fr, mx = whole
                    part = (
                        fr[i : i + step],
                        None if mx is None else (mx[0], mx[1][i : i + step]),
                    )
                res = state.ingest(sid, frames[i : i + step], arrived, part)
                i += step
                accepted += res["accepted"]
                for k, v in res["rejected"].items():
                    rejected[k] = rejected.get(k, 0) + v
                # a cue goes out at once: the loop is handed back to the cue stream before more frames
                if i >= n or time.perf_counter() - t0 >= SLICE_S or state.hub.published != published:
                    break
            if i >= n:
                break
            await hand_back(requests, state.hub)
    if state.hub.undelivered:  # this batch's cue is sent before its ack
        await hand_back(requests, state.hub)
    return {"accepted": accepted, "rejected": rejected}


def chunk_frames(frames: list[Any] | ColumnBatch) -> int:
    """Frames per chunk: CHUNK_FRAMES, fewer when frames carry many channels (at most CHUNK_CELLS values)."""
    if isinstance(frames, ColumnBatch):
        wide = len(frames.names)
    else:
        wide = max((len(f) for f in frames if isinstance(f, dict)), default=1)
    return max(1, min(CHUNK_FRAMES, CHUNK_CELLS // max(1, wide)))


def _ndjson(body: bytes, settings: Settings, in_thread: bool = False) -> tuple[int, list[Any], list[str]]:
    """(frame lines, frames, errors) of an NDJSON body; over the frame cap nothing is decoded, and a line
    over the channel cap is refused alone before its object is built."""
    lines = [(i, line) for i, line in enumerate(body.splitlines(), start=1) if line.strip()]
    if len(lines) > settings.ingest_max_batch_frames:
        return len(lines), [], []
    frames: list[Any] = []
    bad: list[str] = []
    for lineno, line in lines:
        try:
            frames.append(decode(settings, line.decode("utf-8", "replace"), in_thread))
        except BadBatch as exc:
            bad.append(f"line {lineno}: {exc}")
    return len(lines), frames, bad


@router.post("/ingest/frames")
async def ingest_ndjson(
    request: Request,
    state: State,
    session_id: str | None = Query(None, max_length=64),
    durable: bool = Query(False, description="Acknowledge only once the frames are in the store"),
) -> dict[str, Any]:
    """NDJSON body: one frame object per line (the body limit is enforced while it streams). Counted
    and decoded in a worker thread, so a maximal body never holds up /health or the cue stream."""
    arrived = time.perf_counter()
    body = await request.body()
    if len(body) > OFF_LOOP_BYTES:
        n, frames, bad = await asyncio.to_thread(_ndjson, body, state.settings, True)
    else:
        n, frames, bad = _ndjson(body, state.settings)
    try:
        check_frames(state.settings, n)
    except BadBatch as exc:
        state.reject(exc.reason, n)
        raise HTTPException(413, detail={"code": exc.reason, "message": str(exc)}) from None
    if bad:
        state.reject("malformed", len(bad))
    try:
        res = await ingest_sliced(request.app.state, state, session_id, frames, arrived, durable)
    except UnknownSession as exc:
        state.reject("no_session", len(frames))
        raise HTTPException(404, detail="no live session: POST /session/start first") from exc
    if bad:
        res["rejected"]["malformed"] = res["rejected"].get("malformed", 0) + len(bad)
        res["errors"] = bad[:5]
    if res.get("refused"):
        raise HTTPException(507, detail={"code": "disk_full", "message": res["refused"], **res})
    if res["accepted"] == 0 and (frames or bad):
        raise HTTPException(422, detail={"message": "no frame accepted", **res})
    return res


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    await ws.close(code=code, reason=reason.encode()[:120].decode(errors="ignore"))


async def _handle(ws: WebSocket, state: HotpathState, default_sid: str | None, durable: bool) -> None:
    limit = state.settings.ingest_max_body_bytes
    while True:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            return
        arrived = time.perf_counter()
        raw = msg.get("bytes")
        data: bytes | str = raw if isinstance(raw, bytes) else str(msg.get("text") or "")
        try:
            if len(data) > limit:
                raise BadBatch(
                    "too_large",
                    f"message of {len(data)} bytes is over {limit} (PITWALL_INGEST_MAX_BODY_BYTES)",
                )
            precheck(state.settings, data)  # frames and channels counted before anything is decoded
            if len(data) > OFF_LOOP_BYTES:
                sid, frames = await asyncio.to_thread(read_message, state.settings, data, True)
            else:
                sid, frames = read_message(state.settings, data)
        except BadBatch as exc:
            state.reject(exc.reason)
            await _close(ws, 1009 if exc.reason == "too_large" else 1007, f"{exc.reason}: {exc}")
            return
        try:
            res = await ingest_sliced(ws.app.state, state, sid or default_sid, frames, arrived, durable)
        except UnknownSession:
            state.reject("no_session", len(frames))
            await _close(ws, 1008, "no live session: POST /session/start first")
            return
        await ws.send_json(res)


@router.websocket("/ingest/ws")
async def ingest_ws(ws: WebSocket, session_id: str | None = None, durable: bool = False) -> None:
    """Batches in, one JSON ack per batch: accepted, rejected by reason, ``durable_through_t_s`` (the
    last frame committed to the store) and ``stored_frames``; with ``?durable=true`` each ack waits until
    its batch is committed. While the store cannot write (a full disk) frames are refused: the ack says
    why in ``refused`` and ``rejected.disk_full``; the connection stays open."""
    state: HotpathState = ws.app.state.hot
    if auth_failure(ws, state.settings) is not None:
        await ws.close(code=1008, reason="bearer token required")
        return
    await ws.accept()
    if session_id is not None and len(session_id) > 64:
        state.reject("malformed")
        await _close(ws, 1008, "session_id must be at most 64 characters")
        return
    try:
        await _handle(ws, state, session_id, durable)
    except WebSocketDisconnect:
        return
    except Exception:  # a bug, not the client's input: still a close frame with a reason, never a drop
        log.exception("ingest WebSocket handler failed")
        state.reject("internal")
        try:
            await _close(ws, 1011, "internal error; the frames of this batch may be partly processed")
        except RuntimeError:  # already closed
            return

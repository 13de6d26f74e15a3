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

import msgpack
from fastapi import APIRouter, HTTPException, Query, Request, WebSocket, WebSocketDisconnect

from services.hotpath.columns import BadColumns, ColumnBatch, column_batch
from services.hotpath.deps import State
from services.hotpath.loop_share import hand_back
from services.hotpath.state import HotpathState, UnknownSession
from shared.asgi_guard import BadJSON, strict_json_loads
from shared.http_auth import auth_failure

log = logging.getLogger(__name__)
router = APIRouter(tags=["ingest"])
CHUNK_FRAMES = 100  # frames validated together (the column-wise fast path needs a few)
SLICE_S = 0.005  # at most about this much frame work between two hand-backs to the event loop
OFF_LOOP_BYTES = 64 * 1024  # messages bigger than this are decoded in a worker thread
DURABLE_WAIT_S = 5.0  # longest an ack with ?durable=true waits for the store


class BadBatch(ValueError):
    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


def _frames(msg: Any) -> tuple[str | None, list[Any] | ColumnBatch]:
    frames: list[Any] | ColumnBatch
    if isinstance(msg, list):
        return None, msg
    if isinstance(msg, dict) and isinstance(msg.get("frames"), list):
        frames = msg["frames"]
    elif isinstance(msg, dict) and "columns" in msg and "frames" not in msg:
        try:
            frames = column_batch(msg["columns"])
        except BadColumns as exc:
            raise BadBatch("malformed", str(exc)) from None
    elif isinstance(msg, dict) and "t_s" in msg and "frames" not in msg:
        frames = [msg]
    else:
        raise BadBatch(
            "malformed",
            "expected {session_id?, frames: [...]}, {session_id?, columns: {t_s: [...], ...}}, "
            "a list of frames, or one frame",
        )
    sid = msg.get("session_id")
    if sid is not None and (not isinstance(sid, str) or len(sid) > 64):
        raise BadBatch("malformed", "session_id must be a string of at most 64 characters")
    return sid, frames


def _same(obj: dict[str, Any]) -> dict[str, Any]:
    return obj


def _decode(data: bytes | str, in_thread: bool = False) -> Any:
    """One WebSocket message: msgpack (bytes) or JSON (text). Raises BadBatch naming the problem.
    ``in_thread``: a big message decoded in a worker thread; an identity hook per map (per frame) lets the
    event loop's thread take the interpreter lock between frames, instead of waiting for the whole
    batch (30 ms for 20,000 frames)."""
    if isinstance(data, bytes):
        try:
            if in_thread:
                return msgpack.unpackb(data, raw=False, strict_map_key=True, object_hook=_same)
            return msgpack.unpackb(data, raw=False, strict_map_key=True)
        except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
            raise BadBatch("malformed", f"not msgpack: {type(exc).__name__}: {exc}") from None
        except RecursionError:
            raise BadBatch("malformed", "msgpack nested too deeply") from None
    try:
        return strict_json_loads(data, allow_nan=True)
    except BadJSON as exc:
        raise BadBatch("malformed", f"not JSON: {exc}") from None


def msgpack_frame_count(data: bytes) -> int | None:
    """How many frames a msgpack batch declares, read from its headers without decoding the frames (so an
    oversized batch is refused before it costs a long decode); None when the headers are not a batch."""
    up = msgpack.Unpacker(raw=False)
    up.feed(data)
    try:
        if data[:1] and (data[0] & 0xF0 == 0x90 or data[0] in (0xDC, 0xDD)):
            return int(up.read_array_header())
        for _ in range(min(int(up.read_map_header()), 16)):
            key = up.unpack()
            if key == "frames":
                return int(up.read_array_header())
            if key == "columns":  # the length of the first column
                if not up.read_map_header():
                    return None
                up.skip()
                kind = data[up.tell()]
                if kind & 0xF0 == 0x90 or kind in (0xDC, 0xDD):
                    return int(up.read_array_header())
                first = up.unpack()
                return len(first) // 8 if isinstance(first, bytes) else None
            up.skip()
    except Exception:  # malformed headers: the full decode names the problem
        return None
    return None


def _check_size(state: HotpathState, n_frames: int) -> None:
    cap = state.settings.ingest_max_batch_frames
    if n_frames > cap:
        raise BadBatch(
            "too_large",
            f"a batch of {n_frames} frames is over {cap} (PITWALL_INGEST_MAX_BATCH_FRAMES); send smaller batches",
        )


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
    async with app_state.ingest_lock:
        # a message of many chunks is validated once, as a whole (its slices are then not checked again)
        whole = state.clean(sid, frames) if n > CHUNK_FRAMES else None
        i = 0
        while True:
            t0 = time.perf_counter()
            published = state.hub.published
            while True:
                part = None
                if whole is not None:
                    fr, mx = whole
                    part = (
                        fr[i : i + CHUNK_FRAMES],
                        None if mx is None else (mx[0], mx[1][i : i + CHUNK_FRAMES]),
                    )
                res = state.ingest(sid, frames[i : i + CHUNK_FRAMES], arrived, part)
                i += CHUNK_FRAMES
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


def _ndjson(body: bytes, cap: int) -> tuple[int, list[Any], list[str]]:
    """(frame lines, frames, errors) of an NDJSON body; over ``cap`` lines nothing is decoded."""
    lines = [(i, line) for i, line in enumerate(body.splitlines(), start=1) if line.strip()]
    if len(lines) > cap:
        return len(lines), [], []
    frames: list[Any] = []
    bad: list[str] = []
    for lineno, line in lines:
        try:
            frames.append(strict_json_loads(line, allow_nan=True))
        except BadJSON as exc:
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
    cap = state.settings.ingest_max_batch_frames
    if len(body) > OFF_LOOP_BYTES:
        n, frames, bad = await asyncio.to_thread(_ndjson, body, cap)
    else:
        n, frames, bad = _ndjson(body, cap)
    try:
        _check_size(state, n)
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
            if isinstance(data, bytes):
                _check_size(state, msgpack_frame_count(data) or 0)
            else:  # every frame is an object: more braces than the cap allows is over it, before decoding
                _check_size(state, max(0, data.count("{") - 1))
            big = len(data) > OFF_LOOP_BYTES
            payload = await asyncio.to_thread(_decode, data, True) if big else _decode(data)
            sid, frames = _frames(payload)
            _check_size(state, len(frames))
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

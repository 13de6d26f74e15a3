"""SSE for the paddock: event ids, comment keepalives, no proxy buffering, cancellation on disconnect."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse

from services.paddock.agents.service import CoachEvent

KEEPALIVE_S = 15.0
_CLOSING: set[asyncio.Task[None]] = set()  # runs finishing their clean-up after their client went away
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}


class ModelBusy(Exception):
    def __init__(self, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(f"the model server is busy; retry in {retry_after_s} s")


class ModelGate:
    """A bounded queue in front of the one local model: at most ``size`` requests hold a ticket (waiting
    for the model or using it), and one model call runs at a time. Only requests that will call the model
    take a ticket; the template and data answers never wait here."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.sem = asyncio.Semaphore(1)
        self.waiting = 0

    def reserve(self) -> Ticket:
        """Take a place in the queue now, before the response starts; ``ModelBusy`` (429) when it is full.
        Synchronous, so nothing can run between the check and the increment."""
        if self.waiting >= self.size:
            raise ModelBusy(retry_after_s=5 * self.waiting)
        self.waiting += 1
        return Ticket(self)


class Ticket:
    """One request's place in the model queue; ``acquire`` waits for the model, ``release`` is idempotent."""

    def __init__(self, gate: ModelGate) -> None:
        self.gate = gate
        self.held = False
        self.released = False

    @property
    def ahead(self) -> int:
        return max(0, self.gate.waiting - 1)

    async def acquire(self) -> None:
        if not self.held and not self.released:
            await self.gate.sem.acquire()
            self.held = True

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.gate.waiting -= 1
        if self.held:
            self.held = False
            self.gate.sem.release()


def sse_response(request: Request, events: AsyncIterator[CoachEvent]) -> StreamingResponse:
    async def gen() -> AsyncIterator[str]:
        q: asyncio.Queue[CoachEvent | None] = asyncio.Queue()

        async def pump() -> None:
            try:
                async for ev in events:
                    await q.put(ev)
            except Exception as exc:  # surfaced as an error event, never a broken stream
                await q.put(
                    CoachEvent(
                        "error",
                        {"code": "internal", "message": f"{type(exc).__name__}: {exc}", "retryable": True},
                    )
                )
            finally:
                await q.put(None)

        task = asyncio.create_task(pump())
        n = 0
        try:
            while True:
                try:
                    ev = await asyncio.wait_for(q.get(), timeout=KEEPALIVE_S)
                except TimeoutError:
                    if await request.is_disconnected():
                        break
                    yield ": keepalive\n\n"
                    continue
                if ev is None:
                    break
                n += 1
                yield f"id: {n}\nevent: {ev.type}\ndata: {json.dumps(ev.data, default=str)}\n\n"
        finally:
            # client gone: cancel the ADK run and its upstream request, once. Starlette keeps cancelling
            # this generator while it waits here; the wait is shielded, so those cancellations never
            # reach the run a second time (a second one would cut the upstream connection's own close
            # short, and the model server would go on writing into an open socket).
            task.cancel()
            _CLOSING.add(task)
            task.add_done_callback(_CLOSING.discard)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(task)

    return StreamingResponse(gen(), media_type="text/event-stream", headers=HEADERS)


async def final_json(events: AsyncIterator[CoachEvent]) -> dict[str, Any]:
    data: dict[str, Any] = {"events": {}}
    async for ev in events:
        data["events"][ev.type] = data["events"].get(ev.type, 0) + 1
        if ev.type in ("done", "error"):
            data.update({"type": ev.type, **ev.data})
    return data

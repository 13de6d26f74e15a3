"""Cue fan-out to SSE clients: a bounded 32-message queue per client, oldest dropped (and counted).

``publish`` is called on the event loop by the frame path and never waits for a client. State events
(the predictive ``delta``) go to clients that asked for them into a one-slot mailbox per kind: only the
newest matters, and they never push a cue out of the queue.

``send_ms``: each cue's time from ``publish`` to its response having written it (the stream resumed after
the yield), a histogram in ``/metrics`` and summed up in ``/health``: the service's part of the cue's way
after the decision (the frame's part is the decision latency).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from services.hotpath.metrics import Histogram

KEEPALIVE_S = 15.0


class ClientQueue:
    def __init__(self, session_id: str | None, maxlen: int, state: bool = False) -> None:
        self.session_id = session_id
        self.wants_state = state
        self.state: dict[str, dict[str, Any]] = {}
        self.q: deque[tuple[str, dict[str, Any], float]] = deque(maxlen=maxlen)  # kind, data, put at
        self.dropped = 0
        self.unsent = 0  # cues put and not yet handed on to the response (queued or being yielded)
        self.event = asyncio.Event()

    def put(self, kind: str, data: dict[str, Any]) -> None:
        if len(self.q) == self.q.maxlen:
            self.dropped += 1  # the oldest goes: it is no longer waiting to be sent
        else:
            self.unsent += 1
        self.q.append((kind, data, time.perf_counter()))
        self.event.set()


class CueHub:
    def __init__(self, maxlen: int = 32) -> None:
        self.maxlen = maxlen
        self.clients: set[ClientQueue] = set()
        self.published = 0
        self.send_ms = Histogram()

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        self.published += 1
        sid = data.get("session_id")
        for c in self.clients:
            if c.session_id is None or c.session_id == sid:
                c.put(kind, data)

    @property
    def undelivered(self) -> bool:
        """Is a cue (or dropped-cue event) waiting for some client, not yet handed to its response?"""
        return any(c.unsent for c in self.clients)

    def publish_state(self, kind: str, data: dict[str, Any]) -> None:
        sid = data.get("session_id")
        for c in self.clients:
            if c.wants_state and (c.session_id is None or c.session_id == sid):
                c.state[kind] = data
                c.event.set()

    async def stream(
        self, session_id: str | None, keepalive_s: float = KEEPALIVE_S, state: bool = False
    ) -> AsyncIterator[str]:
        client = ClientQueue(session_id, self.maxlen, state)
        self.clients.add(client)
        seq = 0
        try:
            seq += 1
            hello = {"session_id": session_id, "queue": self.maxlen, "server_ms": int(time.time() * 1000)}
            yield f"id: {seq}\nevent: hello\ndata: {json.dumps(hello)}\n\n"
            while True:
                try:  # asyncio.timeout, not wait_for: no extra task between a publish and the send
                    async with asyncio.timeout(keepalive_s):
                        await client.event.wait()
                except TimeoutError:
                    yield ": keepalive\n\n"
                    continue
                client.event.clear()
                while client.q:
                    kind, data, put_at = client.q.popleft()
                    seq += 1
                    if client.dropped:
                        data = {**data, "dropped_before": client.dropped}
                        client.dropped = 0
                    yield f"id: {seq}\nevent: {kind}\ndata: {json.dumps(data)}\n\n"
                    self.send_ms.observe((time.perf_counter() - put_at) * 1000)
                    client.unsent -= 1  # resumed: the response has written it
                while client.state:  # after the cues: a cue is never held behind a delta
                    kind, data = client.state.popitem()
                    seq += 1
                    yield f"id: {seq}\nevent: {kind}\ndata: {json.dumps(data)}\n\n"
        finally:
            self.clients.discard(client)

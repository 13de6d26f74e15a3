"""How the sliced ingest shares the event loop: HTTP requests in progress are counted, and between two
slices of frame work the loop is handed back for as long as one of them (or a cue not yet sent) waits.

A fixed real sleep between slices (1 ms) cost about 15 % of ingest while nothing else needed the loop,
and could still be too short for a request that needs several loop turns. Now each hand-back is two bare
loop turns (``sleep(0)``: a request that just arrived gets its task started), then more turns only while
a request or a cue is pending, up to ``HANDBACK_S``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from shared.asgi_guard import ASGIApp, Receive, Scope, Send

HANDBACK_S = 0.005  # longest hand-back between two slices while something waits (then frames go on)
SPIN_TURNS = 8  # bare loop turns before a hand-back sleeps for real (a request waiting on a thread)
NAP_S = 0.0005
# long-lived requests the frame work never waits for: the cue stream, the ingest itself, imports
LONG_PATHS = ("/cues/stream", "/ingest/", "/imports")


class RequestsInProgress:
    """How many HTTP requests are being answered, other than long ones (counted by ``CountRequests``)."""

    def __init__(self) -> None:
        self.n = 0


class CountRequests:
    """Pure ASGI middleware, outermost: counts into ``requests`` from a request's first loop turn."""

    def __init__(self, app: ASGIApp, requests: RequestsInProgress) -> None:
        self.app = app
        self.requests = requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).startswith(LONG_PATHS):
            await self.app(scope, receive, send)
            return
        self.requests.n += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.requests.n -= 1


async def hand_back(requests: RequestsInProgress | None, hub: Any) -> None:
    """Between two slices of frame work: let the loop answer what waits (see the module doc)."""
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    if not ((requests is not None and requests.n) or hub.undelivered):
        return
    t0 = time.perf_counter()
    turns = 0
    while (requests is not None and requests.n) or hub.undelivered:
        if time.perf_counter() - t0 >= HANDBACK_S:
            return
        turns += 1
        await asyncio.sleep(0 if turns <= SPIN_TURNS else NAP_S)

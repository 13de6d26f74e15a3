"""Keep the newest session's telemetry in memory, so the debrief a driver asks for after a run starts hot.

Polls the lake's file signature (cheap: a directory listing). When a lap or a session is published, the
newest session's arrays are read once in a worker thread; the data agents then share them.
"""

from __future__ import annotations

import asyncio
import logging
import time

from services.paddock.lake import Lake

log = logging.getLogger(__name__)


def prefetch_newest() -> str | None:
    from services.paddock.tools.base import (
        SESSION_CHANNELS,
        ToolError,
        session_arrays,
        session_row,
        track_corners,
    )

    try:
        newest = session_row("latest")
    except ToolError:  # an empty lake
        return None
    t0 = time.perf_counter()
    try:
        session_arrays(newest["session_id"], SESSION_CHANNELS)
    except ToolError as exc:  # the store is away (or the session damaged): /health says so; try again later
        log.warning("prefetch of session %s skipped: %s", newest["session_id"], exc.message)
        return None
    track_corners(newest["track_id"])
    log.info("prefetched session %s in %.0f ms", newest["session_id"], (time.perf_counter() - t0) * 1000)
    return str(newest["session_id"])


async def prefetch_loop(lake: Lake, interval_s: float = 2.0) -> None:
    last: tuple[int, float] | None = None
    while True:
        try:
            lake.refresh()
            if lake.signature != last:
                last = lake.signature
                await asyncio.to_thread(prefetch_newest)  # unchanged newest session: cached, nothing read
        except Exception:  # an unreadable lake now is retried on the next change; never kill the loop
            log.exception("prefetch failed")
        await asyncio.sleep(interval_s)

"""The hot path HTTP/WebSocket service (``pitwall hotpath``)."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from services.hotpath import drive, interpreter
from services.hotpath.loop_share import CountRequests, RequestsInProgress
from services.hotpath.routers import cues, health, imports, ingest, sessions
from services.hotpath.state import HotpathState
from shared import __version__
from shared.asgi_guard import LoopLag, RequestGuard, short_errors
from shared.hotpath_link import announce, withdraw
from shared.http_auth import TokenCheck, add_cors, redact_access_log
from shared.settings import Settings, get_settings

log = logging.getLogger(__name__)


FLUSH_TICK_S = 0.05


async def _flush_idle(state: HotpathState) -> None:
    """Frames never wait in a session buffer for a later frame: a stream that stops is still stored."""
    while True:
        await asyncio.sleep(FLUSH_TICK_S)
        try:
            state.flush_idle()
        except Exception:  # never let the timer die: the next tick tries again
            log.exception("flushing idle session buffers failed")


def create_app(settings: Settings | None = None, can: str | None = None) -> FastAPI:
    settings = settings or get_settings()
    redact_access_log()
    http_rejected: Counter[str] = Counter()
    requests = RequestsInProgress()  # the sliced ingest hands the loop back while any is answered

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = HotpathState(settings)
        app.state.hot = state
        app.state.ingest_lock = asyncio.Lock()
        app.state.import_lock = asyncio.Lock()
        app.state.http_rejected = http_rejected
        app.state.requests = requests
        app.state.loop_lag = lag = LoopLag()
        lag.start()
        flusher = asyncio.create_task(_flush_idle(state))
        reader = None
        if can:
            from services.hotpath.can_reader import CanReader

            reader = CanReader(state, can, asyncio.get_running_loop())
            reader.start()
            app.state.can = reader
        announce(settings)  # `pitwall import` on this data dir imports through this process
        interpreter.settle(settings.hotpath_nice)  # no full collection walks the start-up heap; priority
        log.info("hot path ready: data in %s", settings.data_dir)
        try:
            yield
        finally:
            withdraw(settings)
            flusher.cancel()
            lag.stop()
            if reader is not None:
                reader.stop()
            state.close()
            interpreter.unsettle()

    app = FastAPI(title="Pitwall hot path", version=__version__, lifespan=lifespan)
    for r in (health.router, sessions.router, ingest.router, cues.router, drive.router, imports.router):
        app.include_router(r)

    # inside the token check: the body limit (enforced while the body streams) and strict JSON
    app.add_middleware(
        RequestGuard,
        max_body=settings.ingest_max_body_bytes,
        setting="PITWALL_INGEST_MAX_BODY_BYTES",
        rejected=http_rejected,
        per_path={
            "/imports": (settings.import_max_decompressed_bytes, "PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES")
        },
    )

    app.add_middleware(TokenCheck, settings=settings)

    add_cors(app, settings)  # a preflight is answered before the token check
    app.add_middleware(CountRequests, requests=requests)  # outermost: counted from the first loop turn

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        http_rejected["invalid_request"] += 1
        return JSONResponse(
            {"error": {"code": "invalid_request", "detail": short_errors(exc.errors())}}, status_code=422
        )

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        http_rejected["internal"] += 1
        return JSONResponse(
            {"error": {"code": "internal", "message": "internal error; see the hot path's log"}},
            status_code=500,
        )

    return app

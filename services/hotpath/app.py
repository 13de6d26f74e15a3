"""The hot path HTTP/WebSocket service (``pitwall hotpath``)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from services.hotpath import drive
from services.hotpath.routers import cues, health, ingest, sessions
from services.hotpath.state import HotpathState
from shared import __version__
from shared.http_auth import auth_failure
from shared.settings import Settings, get_settings

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, can: str | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = HotpathState(settings)
        app.state.hot = state
        reader = None
        if can:
            import asyncio

            from services.hotpath.can_reader import CanReader

            reader = CanReader(state, can, asyncio.get_running_loop())
            reader.start()
            app.state.can = reader
        log.info("hot path ready: data in %s", settings.data_dir)
        try:
            yield
        finally:
            if reader is not None:
                reader.stop()
            state.close()

    app = FastAPI(title="Pitwall hot path", version=__version__, lifespan=lifespan)
    for r in (health.router, sessions.router, ingest.router, cues.router, drive.router):
        app.include_router(r)

    @app.middleware("http")
    async def _auth(request: Request, call_next):  # type: ignore[no-untyped-def]
        denied = auth_failure(request, settings)
        return denied if denied is not None else await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": {"code": "invalid_request", "detail": exc.errors()}}, status_code=422)

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse(
            {"error": {"code": "internal", "message": f"{type(exc).__name__}: {exc}"}}, status_code=500
        )

    return app

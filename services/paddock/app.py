"""The paddock HTTP service (``pitwall paddock``): REST and SSE for the tablet, over the read-only lake."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.paddock.agents.service import CoachService
from services.paddock.lake import configure_lake
from services.paddock.prefetch import prefetch_loop
from services.paddock.routers import coach, conversations, sessions, tools, web
from services.paddock.sse import ModelBusy, ModelGate
from services.paddock.store import PaddockStore
from shared import __version__
from shared.http_auth import auth_failure
from shared.settings import Settings, get_settings

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.ensure_dirs()
        app.state.settings = settings
        app.state.lake = configure_lake(settings)
        app.state.store = PaddockStore(settings)
        app.state.coach = CoachService(settings, app.state.store)
        app.state.gate = ModelGate(settings.llm_queue_size)
        app.state.coach.start_loading()  # ADK + LiteLLM load in a worker thread: health answers at once
        warm = asyncio.create_task(app.state.coach.warm_up())  # waits for the load, then warms the model
        prefetch = asyncio.create_task(prefetch_loop(app.state.lake))
        log.info("paddock ready: lake %s", settings.lake_dir)
        try:
            yield
        finally:
            warm.cancel()
            prefetch.cancel()
            await app.state.coach.warm.aclose()
            app.state.store.close()

    app = FastAPI(title="Pitwall paddock", version=__version__, lifespan=lifespan)
    for r in (sessions.router, coach.router, conversations.router, tools.router, web.router):
        app.include_router(r)
    app.mount("/static", web.static_files(), name="static")
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "Accept"],
        )

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        denied = None if web.is_shell(request.method, request.url.path) else auth_failure(request, settings)
        if denied is not None:
            return denied
        size = request.headers.get("content-length")
        if size and size.isdigit() and int(size) > settings.max_request_bytes:
            return JSONResponse(
                {"error": {"code": "too_large", "message": f"body over {settings.max_request_bytes} bytes"}},
                413,
            )
        return await call_next(request)

    @app.get("/health", tags=["health"])
    async def health(request: Request) -> dict[str, Any]:
        """Status, version, model reachability (probed via /v1/models, cached 5 s), lake freshness."""
        ok, reason = request.app.state.coach.model_status()  # never waits for the model server
        lake = request.app.state.lake
        lake.refresh()
        newest = lake.newest_file_mtime
        return {
            "status": "ok",
            "version": __version__,
            "model": {
                "reachable": ok,
                "detail": reason,
                "url": settings.adk_openai_url,
                "model": settings.llm_model_id,
            },
            "lake": {"newest_file_age_s": round(time.time() - newest, 1) if newest else None},
            "active_driver_sessions": len(request.app.state.coach._adk_sessions),
            "warm_up": request.app.state.coach.warm_state,
            "agents_ready": request.app.state.coach.runner is not None,
            "queue": {"waiting": request.app.state.gate.waiting, "size": request.app.state.gate.size},
        }

    @app.exception_handler(ModelBusy)
    async def busy(_: Request, exc: ModelBusy) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": "model_busy", "message": str(exc), "retryable": True}},
            429,
            headers={"Retry-After": str(exc.retry_after_s)},
        )

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": "invalid_request", "detail": jsonable_encoder(exc.errors())}}, 422
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            {
                "error": exc.detail
                if isinstance(exc.detail, dict)
                else {"code": "http_error", "message": str(exc.detail)},
                "detail": exc.detail,
            },
            exc.status_code,
        )

    @app.exception_handler(Exception)
    async def crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse({"error": {"code": "internal", "message": f"{type(exc).__name__}: {exc}"}}, 500)

    return app

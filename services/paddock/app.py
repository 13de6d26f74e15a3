"""The paddock HTTP service (``pitwall paddock``): REST and SSE for the tablet, over the read-only lake."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.paddock.agents.service import CoachService
from services.paddock.lake import configure_lake
from services.paddock.prefetch import prefetch_loop
from services.paddock.routers import coach, conversations, gold, sessions, tools, web
from services.paddock.sse import ModelBusy, ModelGate
from services.paddock.store import PaddockStore
from services.paddock.tools.base import ToolError
from shared import __version__
from shared.asgi_guard import LoopLag, RequestGuard, short_errors
from shared.http_auth import TokenCheck, add_cors, is_trusted, redact_access_log
from shared.serve import loop_priority
from shared.settings import Settings, get_settings

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    redact_access_log()
    http_rejected: Counter[str] = Counter()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.ensure_dirs()
        app.state.settings = settings
        app.state.http_rejected = http_rejected
        app.state.loop_lag = lag = LoopLag()
        lag.start()
        app.state.lake = configure_lake(settings, follow=True)  # refreshed by a worker thread
        app.state.store = PaddockStore(settings)
        app.state.coach = CoachService(settings, app.state.store)
        app.state.gate = ModelGate(settings.llm_queue_size)
        app.state.coach.start_loading()  # ADK + LiteLLM load in a worker thread: health answers at once
        warm = asyncio.create_task(app.state.coach.warm_up())  # waits for the load, then warms the model
        prefetch = asyncio.create_task(prefetch_loop(app.state.lake))
        # last: the lake's follower, the store's and the agents' threads, started above, keep their nice
        loop_priority(settings.paddock_nice, "PITWALL_PADDOCK_NICE")
        log.info("paddock ready: lake %s", app.state.lake.url)
        try:
            yield
        finally:
            lag.stop()
            warm.cancel()
            prefetch.cancel()
            app.state.lake.close()
            await app.state.coach.aclose()  # incomplete answers are written before the store closes
            app.state.store.close()

    app = FastAPI(title="Pitwall paddock", version=__version__, lifespan=lifespan)
    for r in (sessions.router, coach.router, conversations.router, gold.router, tools.router, web.router):
        app.include_router(r)
    app.mount("/static", web.static_files(), name="static")
    # inside the token check: the body limit, enforced while the body streams (a chunked body has no
    # Content-Length to trust), and strict JSON (NaN, Infinity and runaway nesting are a 422, not a 500)
    app.add_middleware(
        RequestGuard,
        max_body=settings.max_request_bytes,
        setting="PITWALL_MAX_REQUEST_BYTES",
        rejected=http_rejected,
    )

    # the token check as a plain ASGI layer (no task and no stream per request; the tablet's shell exempt)
    app.add_middleware(TokenCheck, settings=settings, exempt=web.is_shell, rejected=http_rejected)

    add_cors(app, settings)  # outermost: a preflight is answered before the token check

    @app.get("/health", tags=["health"])
    async def health(request: Request) -> dict[str, Any]:
        """Status, version, model reachability (probed via /v1/models, cached 5 s), lake freshness and
        reachability (never waits for the lake). A client beyond loopback without the token sees liveness
        only."""
        if not is_trusted(request, settings):
            return {"status": "ok", "version": __version__}
        ok, reason = request.app.state.coach.model_status()  # never waits for the model server
        return {
            "status": "ok",
            "version": __version__,
            "model": {
                "reachable": ok,
                "detail": reason,
                "url": settings.adk_openai_url,
                "model": settings.llm_model_id,
            },
            "lake": request.app.state.lake.health.as_dict(time.time()),  # swapped by the follower
            "active_driver_sessions": request.app.state.coach.active_drivers,
            "warm_up": request.app.state.coach.warm_state,
            "agents_ready": request.app.state.coach.runner is not None,
            "queue": {"waiting": request.app.state.gate.waiting, "size": request.app.state.gate.size},
            "requests_rejected": dict(http_rejected),
            "event_loop_lag": request.app.state.loop_lag.as_dict(),
        }

    @app.get("/metrics", tags=["health"], response_class=PlainTextResponse, include_in_schema=False)
    async def metrics(request: Request) -> str:
        """Prometheus text: event-loop lag, requests refused by reason, model queue depth."""
        lines = request.app.state.loop_lag.render("pitwall_paddock")
        lines.append("# TYPE pitwall_paddock_requests_rejected_total counter")
        lines += [
            f'pitwall_paddock_requests_rejected_total{{reason="{k}"}} {v}'
            for k, v in sorted(http_rejected.items())
        ]
        lines += ["# TYPE pitwall_paddock_model_queue_waiting gauge"]
        lines.append(f"pitwall_paddock_model_queue_waiting {request.app.state.gate.waiting}")
        return "\n".join(lines) + "\n"

    @app.exception_handler(ModelBusy)
    async def busy(_: Request, exc: ModelBusy) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": "model_busy", "message": str(exc), "retryable": True}},
            429,
            headers={"Retry-After": str(exc.retry_after_s)},
        )

    @app.exception_handler(ToolError)
    async def lake_data(_: Request, exc: ToolError) -> JSONResponse:
        """A read found the session damaged in the lake (409, naming the file), missing (404), or needs the
        store while it is away (503)."""
        status = 409 if exc.code == "damaged_session" else 404 if exc.code.startswith("unknown") else 422
        status = 503 if exc.code == "lake_unreachable" else status
        return JSONResponse({"error": exc.as_dict()["error"]}, status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        http_rejected["invalid_request"] += 1
        return JSONResponse(
            {"error": {"code": "invalid_request", "detail": jsonable_encoder(short_errors(exc.errors()))}},
            422,
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
        http_rejected["internal"] += 1
        return JSONResponse(
            {"error": {"code": "internal", "message": "internal error; see the paddock's log"}}, 500
        )

    return app

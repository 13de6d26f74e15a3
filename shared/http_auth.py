"""The one bearer-token rule both services apply: loopback clients are trusted, anyone else needs
``Authorization: Bearer <PITWALL_API_TOKEN>`` (401 when missing, 403 when wrong). ``/health`` stays open
(the services decide how much it shows to an untrusted client with :func:`is_trusted`).

Without a token the services may bind loopback only: the settings refuse any other bind address without
one, and refuse an empty or blank token at start-up (an empty token once meant "no authentication")."""

from __future__ import annotations

import hmac
import logging
import re
from collections import Counter
from collections.abc import Callable

from starlette.middleware.cors import CORSMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from shared.settings import Settings, is_loopback_host

_TOKEN_IN_QUERY = re.compile(r"([?&]token=)[^&\s\"]*", re.IGNORECASE)


def _configured(settings: Settings) -> str | None:
    token = settings.api_token.get_secret_value() if settings.api_token else None
    return token if token and token.strip() else None


def _presented(conn: HTTPConnection) -> str | None:
    """The token the client sent: ``Authorization: Bearer X`` (scheme in any case) or ``?token=X``."""
    header = conn.headers.get("authorization", "")
    if header:
        scheme, _, value = header.strip().partition(" ")
        return value.strip() if scheme.lower() == "bearer" else ""
    if "token" in conn.query_params:
        return conn.query_params["token"]
    return None


def auth_failure(conn: HTTPConnection, settings: Settings) -> JSONResponse | None:
    """The response to send instead of serving ``conn``, or None when it may proceed."""
    host = conn.client.host if conn.client else ""
    if is_loopback_host(host) or conn.url.path == "/health":
        return None
    token = _configured(settings)
    if token is None:  # the settings refuse a bind beyond loopback without a (non-empty) token
        return None
    got = _presented(conn)
    if got is None:
        return JSONResponse({"error": {"code": "unauthorized", "message": "bearer token required"}}, 401)
    if not hmac.compare_digest(got.encode(), token.encode()):
        return JSONResponse({"error": {"code": "forbidden", "message": "wrong token"}}, 403)
    return None


class TokenCheck:
    """:func:`auth_failure` on every HTTP request, as a plain ASGI middleware: no extra task and no memory
    stream between a route and the socket (a cue on an SSE stream is written in the same loop turn it is
    yielded in; a request costs the event loop no task switch). ``exempt(method, path)``: requests served
    without the check (the tablet's shell); ``rejected``: counts refusals as ``unauthorized``."""

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        exempt: Callable[[str, str], bool] | None = None,
        rejected: Counter[str] | None = None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.exempt = exempt
        self.rejected = rejected

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not (self.exempt and self.exempt(scope["method"], scope["path"])):
            denied = auth_failure(HTTPConnection(scope), self.settings)
            if denied is not None:
                if self.rejected is not None:
                    self.rejected["unauthorized"] += 1
                await denied(scope, receive, send)
                return
        await self.app(scope, receive, send)


def is_trusted(conn: HTTPConnection, settings: Settings) -> bool:
    """Loopback, a service without a token (bound to loopback), or a client that presented the right
    token: it may see more than liveness."""
    host = conn.client.host if conn.client else ""
    token = _configured(settings)
    if token is None or is_loopback_host(host):
        return True
    got = _presented(conn)
    return bool(got and hmac.compare_digest(got.encode(), token.encode()))


class RedactTokens(logging.Filter):
    """Keeps ``?token=…`` out of the access log (uvicorn logs the full request line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN_IN_QUERY.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args
            )
        elif isinstance(record.msg, str):
            record.msg = _TOKEN_IN_QUERY.sub(r"\1***", record.msg)
        return True


def redact_access_log() -> None:
    """Install :class:`RedactTokens` on uvicorn's loggers once (called from each app factory); the
    WebSocket handshake line goes to ``uvicorn.error``."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def add_cors(app: ASGIApp, settings: Settings) -> None:
    """CORS for ``PITWALL_CORS_ORIGINS``, installed last so it is the outermost layer: a preflight
    (``OPTIONS`` with an allowed ``Origin``) is answered before the token check (a browser never sends the
    token on a preflight), and a 401/403 still carries the CORS headers the page needs to read it. The
    actual request still needs the token. Call it after every other middleware."""
    if settings.cors_origins:
        app.add_middleware(  # type: ignore[attr-defined]
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "Accept"],
        )

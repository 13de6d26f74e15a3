"""The one bearer-token rule both services apply: loopback clients are trusted, anyone else needs
``Authorization: Bearer <PITWALL_API_TOKEN>`` (401 when missing, 403 when wrong). ``/health`` stays open."""

from __future__ import annotations

import hmac

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse

from shared.settings import Settings, is_loopback_host


def auth_failure(conn: HTTPConnection, settings: Settings) -> JSONResponse | None:
    """The response to send instead of serving ``conn``, or None when it may proceed."""
    token = settings.api_token.get_secret_value() if settings.api_token else None
    host = conn.client.host if conn.client else ""
    if not token or is_loopback_host(host) or conn.url.path == "/health":
        return None
    got = conn.headers.get("authorization", "") or (
        f"Bearer {conn.query_params['token']}" if "token" in conn.query_params else ""
    )
    if not got:
        return JSONResponse({"error": {"code": "unauthorized", "message": "bearer token required"}}, 401)
    if not hmac.compare_digest(got, f"Bearer {token}"):
        return JSONResponse({"error": {"code": "forbidden", "message": "wrong token"}}, 403)
    return None

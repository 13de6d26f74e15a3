"""The one token rule (``shared/http_auth.py``) case by case, on real Starlette connections built from
ASGI scopes (the client address is the only thing a test cannot get from loopback)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from starlette.requests import Request

from shared.http_auth import RedactTokens, auth_failure, is_trusted
from shared.settings import Settings, settings_for

TOKEN = "s3cret-token"


def _conn(host: str, path: str = "/sessions", auth: str | None = None, query: str = "") -> Request:
    headers = [(b"authorization", auth.encode())] if auth is not None else []
    return Request(
        {
            "type": "http",
            "method": "GET",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "headers": headers,
            "client": (host, 1234),
            "server": ("127.0.0.1", 8710),
            "scheme": "http",
        }
    )


@pytest.fixture()
def with_token(tmp_path: Path) -> Settings:
    return settings_for(tmp_path, api_token=TOKEN)


@pytest.fixture()
def without_token(tmp_path: Path) -> Settings:
    return settings_for(tmp_path)


def _status(conn: Request, s: Settings) -> int | None:
    r = auth_failure(conn, s)
    return None if r is None else r.status_code


def test_loopback_and_health_need_no_token(with_token: Settings) -> None:
    for host in ("127.0.0.1", "::1", "localhost", "127.8.9.10"):
        assert _status(_conn(host), with_token) is None, host
        assert is_trusted(_conn(host), with_token)
    assert _status(_conn("10.0.0.9", "/health"), with_token) is None
    assert not is_trusted(_conn("10.0.0.9", "/health"), with_token)


def test_strangers_need_the_exact_token(with_token: Settings) -> None:
    lan = "192.168.1.20"
    assert _status(_conn(lan), with_token) == 401
    assert _status(_conn(lan, auth=f"Bearer {TOKEN}"), with_token) is None
    assert _status(_conn(lan, auth=f"bearer {TOKEN}"), with_token) is None
    assert _status(_conn(lan, auth=f"  Bearer   {TOKEN}  "), with_token) is None
    assert _status(_conn(lan, auth=f"Bearer {TOKEN}x"), with_token) == 403
    assert _status(_conn(lan, auth=f"Bearer {TOKEN[:-1]}"), with_token) == 403
    assert _status(_conn(lan, auth=f"Token {TOKEN}"), with_token) == 403
    assert _status(_conn(lan, auth="Bearer"), with_token) == 403
    assert _status(_conn(lan, auth=""), with_token) == 401
    assert _status(_conn(lan, query=f"token={TOKEN}"), with_token) is None
    assert _status(_conn(lan, query="token=nope"), with_token) == 403
    assert _status(_conn(lan, query="token="), with_token) == 403
    # a header wins over the query: a wrong header is not rescued by a right ?token=
    assert _status(_conn(lan, auth="Bearer nope", query=f"token={TOKEN}"), with_token) == 403
    body = auth_failure(_conn(lan), with_token)
    assert body is not None
    assert json.loads(body.body) == {"error": {"code": "unauthorized", "message": "bearer token required"}}
    body = auth_failure(_conn(lan, auth="Bearer x"), with_token)
    assert body is not None
    assert json.loads(body.body) == {"error": {"code": "forbidden", "message": "wrong token"}}


def test_a_connection_without_a_peer_address_is_local(with_token: Settings) -> None:
    """A Unix-socket connection has no client address: only a local process can open it."""
    conn = _conn("127.0.0.1")
    conn.scope["client"] = None
    assert _status(conn, with_token) is None
    assert is_trusted(conn, with_token)


def test_trust_follows_the_token(with_token: Settings, without_token: Settings) -> None:
    lan = "10.20.30.40"
    assert is_trusted(_conn(lan, auth=f"Bearer {TOKEN}"), with_token)
    assert is_trusted(_conn(lan, auth=f"BEARER {TOKEN}"), with_token)
    assert is_trusted(_conn(lan, query=f"token={TOKEN}"), with_token)
    assert not is_trusted(_conn(lan), with_token)
    assert not is_trusted(_conn(lan, auth="Bearer nope"), with_token)
    assert not is_trusted(_conn(lan, auth=f"Basic {TOKEN}"), with_token)
    # without a token the service is bound to loopback (the settings refuse anything else)
    assert is_trusted(_conn(lan), without_token)
    assert _status(_conn(lan), without_token) is None


def _record(msg: str, args: tuple[object, ...] | None) -> logging.LogRecord:
    return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, msg, args, None)


def test_redaction_of_tokens_in_log_lines() -> None:
    f = RedactTokens()
    rec = _record('%s "%s %s" %d', ("1.2.3.4", "GET", "/x?a=1&token=hunter2&b=2", 200))
    assert f.filter(rec) is True
    assert rec.getMessage() == '1.2.3.4 "GET /x?a=1&token=***&b=2" 200'
    rec = _record("GET /ws?TOKEN=hunter2", None)
    assert f.filter(rec) is True and rec.getMessage() == "GET /ws?TOKEN=***"
    rec = _record("GET /x?token=hunter2", ())
    assert f.filter(rec) is True and rec.getMessage() == "GET /x?token=***"
    rec = _record("%s", ("/x?notatoken=keep",))
    f.filter(rec)
    assert rec.getMessage() == "/x?notatoken=keep"

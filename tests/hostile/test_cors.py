"""CORS before the token: a preflight from an allowed origin beyond loopback is answered (a browser never
sends the token on a preflight), the actual request still needs the token, on both services. The LAN
client is simulated at the ASGI boundary (no traffic leaves loopback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from shared.settings import settings_for

ORIGIN = "http://tablet.local:5173"


def _app(service: str, tmp_path: Path) -> tuple[FastAPI, str, str]:
    settings = settings_for(
        tmp_path / "d", api_token="tok", cors_origins=[ORIGIN], adk_openai_url="http://127.0.0.1:9/v1"
    )
    if service == "paddock":
        from services.paddock.app import create_app as paddock

        return paddock(settings), "/coach/ask", "/sessions"
    from services.hotpath.app import create_app as hotpath

    return hotpath(settings), "/session/start", "/metrics"


def _preflight(c: TestClient, path: str, origin: str) -> object:
    return c.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )


@pytest.mark.parametrize("service", ["paddock", "hotpath"])
def test_preflight_from_an_allowed_origin_is_answered_before_the_token_check(
    service: str, tmp_path: Path
) -> None:
    app, post_path, get_path = _app(service, tmp_path)
    with TestClient(app, client=("10.0.0.7", 4000)) as lan:
        r = _preflight(lan, post_path, ORIGIN)
        assert r.status_code == 200, r.text  # type: ignore[attr-defined]
        assert r.headers["access-control-allow-origin"] == ORIGIN  # type: ignore[attr-defined]
        assert "POST" in r.headers["access-control-allow-methods"]  # type: ignore[attr-defined]
        assert "authorization" in r.headers["access-control-allow-headers"].lower()  # type: ignore[attr-defined]
        # a foreign origin's preflight gets no grant
        bad = _preflight(lan, post_path, "http://evil.example")
        assert bad.headers.get("access-control-allow-origin") != "http://evil.example"  # type: ignore[attr-defined]
        # the actual request still needs the token, and the refusal is readable by the page
        denied = lan.get(get_path, headers={"Origin": ORIGIN})
        assert denied.status_code == 401
        assert denied.headers.get("access-control-allow-origin") == ORIGIN
        ok = lan.get(get_path, headers={"Origin": ORIGIN, "Authorization": "Bearer tok"})
        assert ok.status_code == 200
        assert ok.headers.get("access-control-allow-origin") == ORIGIN
        # an OPTIONS that is not a CORS preflight (no Origin) is not let through without the token
        assert lan.options(get_path).status_code == 401

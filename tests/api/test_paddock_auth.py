"""Paddock token rules; the non-loopback client is simulated at the ASGI boundary (no traffic leaves loopback)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from services.paddock.app import create_app
from shared.settings import settings_for


def test_paddock_401_403_matrix_and_cors(tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path / "d",
        api_token="tok",
        cors_origins=["http://tablet.local"],
        adk_openai_url="http://127.0.0.1:9/v1",
    )
    app = create_app(settings)
    with TestClient(app, client=("10.0.0.7", 4000)) as lan:
        assert lan.get("/health").status_code == 200
        assert lan.get("/sessions").status_code == 401
        assert lan.get("/sessions", headers={"Authorization": "Bearer bad"}).status_code == 403
        assert lan.get("/sessions", headers={"Authorization": "Bearer tok"}).status_code == 200
        assert lan.get("/").status_code == 200  # the tablet's shell: served before any token is typed
        assert lan.post("/").status_code == 401  # only GET/HEAD of the shell is exempt
        seen = lan.get("/health", headers={"Authorization": "Bearer tok"}).json()
        assert seen["requests_rejected"] == {"unauthorized": 3}  # the 401, the 403 and the POST
        r = lan.options(
            "/sessions",
            headers={
                "Origin": "http://evil.example",
                "Access-Control-Request-Method": "GET",
                "Authorization": "Bearer tok",
            },
        )
        assert r.headers.get("access-control-allow-origin") != "http://evil.example"
    with TestClient(app, client=("127.0.0.1", 4000)) as local:
        assert local.get("/sessions").status_code == 200
        q = local.post("/coach/ask", json={"driver_id": "a", "question": "race pace?"})
        assert q.status_code == 200 and q.json()["available"] is False and q.json()["reason"]

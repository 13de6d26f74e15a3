"""Token rules: loopback clients are trusted; any other client needs the bearer token.

The non-loopback client is simulated at the ASGI boundary (Starlette's TestClient ``client=`` address),
so no traffic leaves loopback.
"""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from services.hotpath.app import create_app
from shared.settings import settings_for


def test_401_403_matrix(tmp_path: Path) -> None:
    app = create_app(settings_for(tmp_path / "d", api_token="s3cret"))
    with TestClient(app, client=("10.9.8.7", 5555)) as lan:
        assert lan.get("/health").status_code == 200  # liveness stays open for probes
        assert lan.get("/metrics").status_code == 401
        assert lan.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 403
        assert lan.get("/metrics", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        r = lan.post("/session/start", json={})
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    with TestClient(app, client=("127.0.0.1", 5555)) as local:
        assert local.get("/metrics").status_code == 200
        assert local.post("/session/start", json={}).status_code == 200


def test_settings_refuse_a_lan_bind_without_a_token(tmp_path: Path) -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="PITWALL_API_TOKEN"):
        settings_for(tmp_path, hotpath_host="0.0.0.0")
    with pytest.raises(ValidationError, match="loopback"):
        settings_for(tmp_path, adk_openai_url="http://203.0.113.5:8080/v1")

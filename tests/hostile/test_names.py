"""Any Unicode driver name works in every tool and endpoint: the gold-lap tool (where the name becomes a
file name), the coach, conversations and the hot path's session start. A name never becomes a path, two
names never share a gold lap, and only blank or control-character names are refused (422)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.paddock import lake as lake_mod
from services.paddock.lake import configure_lake
from services.paddock.tools.registry import run_tool
from shared.ingest import import_sim
from shared.names import file_stem
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from shared.store.gold import gold_path, load_gold_lap, save_gold_lap

NAMES = [
    "Zoë Smith",
    "José Ñúñez-Ibáñez",
    "佐藤 健",
    "🏁 Ana 👩\u200d🚀",
    'O\'Brien "Fast" Jr.',
    "../../etc/passwd",
    "a/b\\c",
    ".",
    "a%2Fb",
    "ana",
]
REFUSED = ["", "   ", "a\nb", "tab\there", "x" * 65]


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    settings = settings_for(tmp_path_factory.mktemp("names") / "d")
    sids = {n: import_sim(cached_sim(laps=4, rate_hz=20.0), settings, driver_id=n).session_id for n in NAMES}
    saved = lake_mod._LAKE
    configure_lake(settings)
    try:
        yield {"settings": settings, "sids": sids}
    finally:
        lake_mod._LAKE.con.close()  # type: ignore[union-attr]
        lake_mod._LAKE = saved


def test_file_stems_are_plain_distinct_and_never_paths() -> None:
    stems = [file_stem(n) for n in NAMES]
    assert len(set(stems)) == len(NAMES)
    for s in stems:
        assert "/" not in s and "\\" not in s and not s.startswith(".") and s.isascii()


@pytest.mark.parametrize("name", NAMES)
def test_the_gold_lap_tool_works_for_any_driver_name(lake: dict[str, Any], name: str) -> None:
    settings, sid = lake["settings"], lake["sids"][name]
    assert run_tool("get_gold_lap_comparison", {"session_id": sid})["available"] is False
    p = save_gold_lap(settings, None, name, sid, 2).path
    assert p.parent == settings.gold_dir / "sonoma" and p == gold_path(settings, "sonoma", name)
    got = load_gold_lap(settings, "sonoma", name)
    assert got is not None and got[1]["driver_id"] == name and got[1]["session_id"] == sid
    out = run_tool("get_gold_lap_comparison", {"session_id": sid})
    assert out["available"] is True, out
    assert out["gold"]["driver_id"] == name and out["gold"]["session_id"] == sid


def test_paddock_endpoints_take_any_driver_name(lake: dict[str, Any]) -> None:
    from services.paddock.app import create_app

    settings = lake["settings"].model_copy(update={"adk_openai_url": "http://127.0.0.1:9/v1"})
    with TestClient(create_app(settings)) as c:
        for name in NAMES:
            sid = lake["sids"][name]
            r = c.post("/api/tools/get_gold_lap_comparison", json={"session_id": sid})
            assert r.status_code == 200, r.text
            q = c.post("/coach/ask", json={"driver_id": name, "session_id": sid, "question": "my best lap?"})
            assert q.status_code == 200, (name, q.text)
            latest = c.post("/coach/ask", json={"driver_id": name, "question": "my best lap?"})
            assert latest.status_code == 200, (name, latest.text)
            assert c.post("/coach/ask/end", json={"driver_id": name}).status_code == 200
            assert c.post("/session/reset", json={"driver_id": name}).status_code == 200
            if "%" in name:  # Starlette's TestClient unquotes the path twice (uvicorn once)
                continue
            conv = c.get("/conversations/driver/" + _quote(name))
            assert conv.status_code == 200, (name, conv.text)
            assert conv.json() and all(t["driver_id"] == name for t in conv.json())
        for bad in REFUSED:
            r = c.post("/coach/ask", json={"driver_id": bad, "question": "x"})
            assert r.status_code == 422 and "driver_id" in r.text, (bad, r.text)


def test_hot_path_session_start_takes_any_driver_name(tmp_path: Path) -> None:
    from services.hotpath.app import create_app

    with TestClient(create_app(settings_for(tmp_path / "d"))) as c:
        for name in NAMES:
            r = c.post("/session/start", json={"driver_id": name})
            assert r.status_code == 200, (name, r.text)
            assert c.post(f"/session/{r.json()['session_id']}/end").status_code == 200
        for bad in REFUSED:
            r = c.post("/session/start", json={"driver_id": bad})
            assert r.status_code == 422 and "driver_id" in r.text, (bad, r.text)


def _quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="").replace(".", "%2E")  # a lone "." segment would be normalised away

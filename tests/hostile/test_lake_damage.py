"""Damage stays local: one truncated, emptied, overwritten or missing lake file marks its session
``damaged`` (listed in ``/sessions`` with the file and the reason; its own endpoints and tools answer a
409 / ``damaged_session`` error naming the file), the paddock starts and every other session keeps
working; the hot path's start-up repair publishes the damaged session again from the hot store."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.paddock import lake as lake_mod
from services.paddock.lake import Lake
from services.paddock.tools.registry import run_tool
from shared.ingest import import_sim
from shared.settings import Settings, settings_for
from shared.simulator.fixtures import cached_sim


def _cut(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


DAMAGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated lap file": ("telemetry/lap_0002.parquet", _cut),
    "truncated session file": ("session.parquet", _cut),
    "empty laps file": ("laps.parquet", lambda p: p.write_bytes(b"")),
    "overwritten corners file": ("corners.parquet", lambda p: p.write_bytes(b"PAR1" + b"\0" * 300 + b"PAR1")),
    "missing laps file": ("laps.parquet", lambda p: p.unlink()),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two imported sessions: the first will be damaged, the second must not notice."""
    data = tmp_path_factory.mktemp("damage") / "d"
    settings = settings_for(data)
    sim = cached_sim(laps=4, rate_hz=20.0)
    bad = import_sim(sim, settings, driver_id="bad").session_id
    good = import_sim(sim, settings, driver_id="good").session_id
    return data, bad, good


@pytest.fixture()
def lake_env(template: tuple[Path, str, str], tmp_path: Path) -> Iterator[dict[str, Any]]:
    src, bad, good = template
    data = tmp_path / "d"
    shutil.copytree(src, data)
    saved = lake_mod._LAKE
    try:
        yield {"settings": settings_for(data), "bad": bad, "good": good}
    finally:
        if lake_mod._LAKE is not None and lake_mod._LAKE is not saved:
            lake_mod._LAKE.con.close()
        lake_mod._LAKE = saved


def _damage(settings: Settings, sid: str, case: str) -> str:
    rel, how = DAMAGE[case]
    how(settings.lake_dir / "sessions" / sid / rel)
    return rel


def _good_still_works(sid: str) -> None:
    pace = run_tool("get_race_pace_model", {"session_id": sid})
    assert "error" not in pace and pace["session_id"] == sid, pace
    q = run_tool(
        "query_pitwall_db", {"sql": f"SELECT count(*) AS n FROM telemetry WHERE session_id = '{sid}'"}
    )
    assert "error" not in q and q["rows"][0]["n"] > 0, q
    delta = run_tool("get_lap_delta", {"session_id": sid, "lap_a": 1, "lap_b": 2})
    assert "error" not in delta, delta


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_one_damaged_file_marks_its_session_and_nothing_else(lake_env: dict[str, Any], case: str) -> None:
    settings, bad, good = lake_env["settings"], lake_env["bad"], lake_env["good"]
    rel = _damage(settings, bad, case)
    lake_mod._LAKE = lake = Lake(settings)  # starts: the damaged file does not stop it
    assert set(lake.damaged) == {bad}
    assert lake.damaged[bad]["file"] == f"sessions/{bad}/{rel}"
    _good_still_works(good)
    for tool, args in (
        ("get_race_pace_model", {"session_id": bad}),
        ("get_lap_delta", {"session_id": bad, "lap_a": 1, "lap_b": 2}),
    ):
        err = run_tool(tool, args)["error"]
        assert err["code"] == "damaged_session" and rel in err["message"], err
    # "latest" and SQL over the whole lake skip it instead of failing
    assert "error" not in run_tool("get_session_highlights", {"session_id": "latest"})
    assert "error" not in run_tool("query_pitwall_db", {"sql": "SELECT count(*) AS n FROM telemetry"})


def test_paddock_starts_lists_the_damage_and_serves_the_other_session(lake_env: dict[str, Any]) -> None:
    from services.paddock.app import create_app

    settings, bad, good = lake_env["settings"], lake_env["bad"], lake_env["good"]
    rel = _damage(settings, bad, "truncated lap file")
    app = create_app(settings.model_copy(update={"adk_openai_url": "http://127.0.0.1:9/v1"}))
    with TestClient(app) as c:
        listed = {s["session_id"]: s for s in c.get("/sessions").json()}
        assert set(listed) == {bad, good}
        assert listed[bad]["status"] == "damaged" and listed[bad]["damage"]["file"].endswith(rel)
        assert listed[bad]["driver_id"] == "bad"  # what its intact session.parquet still says
        assert listed[good]["status"] != "damaged"
        for path in ("", "/laps", "/corners", "/notes", "/quality", "/laps/1/trace"):
            r = c.get(f"/sessions/{bad}{path}")
            assert r.status_code == 409, (path, r.text)
            assert r.json()["error"]["code"] == "damaged_session" and rel in r.json()["error"]["message"]
            assert c.get(f"/sessions/{good}{path}").status_code == 200, path
        tool = c.post("/api/tools/get_race_pace_model", json={"session_id": bad})
        assert tool.status_code == 200 and tool.json()["error"]["code"] == "damaged_session"
        assert "error" not in c.post("/api/tools/get_race_pace_model", json={"session_id": good}).json()


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_hot_path_start_up_republishes_a_damaged_session(lake_env: dict[str, Any], case: str) -> None:
    from services.hotpath.state import HotpathState
    from shared.store.hot import HotStore

    settings, bad, good = lake_env["settings"], lake_env["bad"], lake_env["good"]
    store = HotStore(settings)
    want = [(r["lap"], r["time_s"]) for r in store.laps(bad)]
    store.close()
    _damage(settings, bad, case)
    state = HotpathState(settings)  # the hot path's start-up
    try:
        assert state.recovered == [bad]
    finally:
        state.close()
    lake_mod._LAKE = lake = Lake(settings)
    assert lake.damaged == {}
    laps = run_tool(
        "query_pitwall_db", {"sql": f"SELECT lap, time_s FROM laps WHERE session_id = '{bad}' ORDER BY lap"}
    )
    assert [(r["lap"], r["time_s"]) for r in laps["rows"]] == want
    _good_still_works(bad)
    _good_still_works(good)


def test_pitwall_repair_republishes_and_names_what_it_cannot(lake_env: dict[str, Any]) -> None:
    import json
    import subprocess
    import sys

    from tests.support.procs import REPO

    settings, bad, good = lake_env["settings"], lake_env["bad"], lake_env["good"]
    _damage(settings, bad, "truncated lap file")
    orphan = settings.lake_dir / "sessions" / "19990101-000000-abcdef"  # in the lake, not in the store
    shutil.copytree(settings.lake_dir / "sessions" / good, orphan)
    _cut(orphan / "laps.parquet")
    cmd = [sys.executable, "-m", "shared.cli", "repair", "--json", "--data-dir", str(settings.data_dir)]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    out = json.loads(r.stdout)
    assert out["repaired"] == [bad]
    assert list(out["still_damaged"]) == [orphan.name]
    assert out["still_damaged"][orphan.name]["file"].endswith("laps.parquet")
    lake_mod._LAKE = lake = Lake(settings)
    assert set(lake.damaged) == {orphan.name}
    _good_still_works(bad)


def _scramble_middle(p: Path) -> None:
    """Every data page overwritten, footer intact: only reading the data shows the damage."""
    b = bytearray(p.read_bytes())
    footer = int.from_bytes(b[-8:-4], "little") + 8
    b[4 : len(b) - footer] = b"\x5a" * (len(b) - footer - 4)
    p.write_bytes(bytes(b))


def test_damage_behind_an_intact_footer_is_found_when_read(lake_env: dict[str, Any]) -> None:
    from services.paddock.app import create_app

    settings, bad, good = lake_env["settings"], lake_env["bad"], lake_env["good"]
    rel = "telemetry/lap_0002.parquet"
    _scramble_middle(settings.lake_dir / "sessions" / bad / rel)
    app = create_app(settings.model_copy(update={"adk_openai_url": "http://127.0.0.1:9/v1"}))
    with TestClient(app) as c:
        assert c.get(f"/sessions/{bad}").status_code == 200  # the footer reads: not known yet
        r = c.get(f"/sessions/{bad}/laps/2/trace")
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "damaged_session" and rel in r.json()["error"]["message"]
        err = c.post("/api/tools/get_race_pace_model", json={"session_id": bad}).json()["error"]
        assert err["code"] == "damaged_session"
        listed = {s["session_id"]: s for s in c.get("/sessions").json()}
        assert listed[bad]["status"] == "damaged" and listed[bad]["damage"]["file"].endswith(rel)
        assert c.get(f"/sessions/{good}/laps/2/trace").status_code == 200
        assert "error" not in c.post("/api/tools/get_race_pace_model", json={"session_id": good}).json()
    from services.hotpath.state import HotpathState

    # the deep damage is the paddock's finding; the hot path's start-up checks footers, so repair by hand
    state = HotpathState(settings)
    try:
        state.publisher.publish_session(bad)
    finally:
        state.close()
    lake_mod._LAKE = lake = Lake(settings)
    assert lake.damaged == {}
    _good_still_works(bad)

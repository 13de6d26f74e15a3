"""Deleting a session removes it everywhere (hot store, lake, the paddock's conversations) and the next
hot-path start does not bring it back; an interrupted deletion is finished at start-up. Real DuckDB
files, the real CLI, real hot path and paddock processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from services.hotpath.state import HotpathState
from services.paddock.store import PaddockStore
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from shared.store.deletion import tombstone_path
from shared.store.hot import HotStore
from shared.store.lake_layout import session_dir
from tests.support.procs import start_hotpath, start_paddock
from tests.support.scripted_llm import start_scripted_llm

REPO = Path(__file__).resolve().parents[2]


def _two_sessions(root: Path):
    settings = settings_for(root / "data")
    keep = import_sim(simulate(laps=2, seed=1, rate_hz=10, scenario=Scenario.clean(2)), settings).session_id
    gone = import_sim(simulate(laps=2, seed=2, rate_hz=10, scenario=Scenario.clean(2)), settings).session_id
    store = PaddockStore(settings)
    try:
        for sid in (keep, gone):
            store.turn("c-" + sid, "ana", sid, "ask", 1, "user", f"how was {sid}?")
    finally:
        store.close()
    return settings, keep, gone


def _ids(settings) -> set[str]:
    store = HotStore(settings)
    try:
        return {r["session_id"] for r in store.sessions()}
    finally:
        store.close()


def _turns(settings) -> set[str]:
    store = PaddockStore(settings)
    try:
        return {r["session_id"] for r in store.query("SELECT session_id FROM conversations", [])}
    finally:
        store.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "shared.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


def test_cli_delete_removes_it_everywhere_and_a_restart_does_not_restore_it(tmp_path: Path) -> None:
    settings, keep, gone = _two_sessions(tmp_path)
    d = str(settings.data_dir)
    r = _cli("delete", gone, "--data-dir", d)  # no terminal to confirm on: refused, nothing deleted
    assert r.returncode == 2 and "--yes" in r.stderr and _ids(settings) == {keep, gone}
    r = _cli("delete", gone, "--yes", "--json", "--data-dir", d)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["session_id"] == gone and out["conversation_turns"] == 1 and out["laps"] >= 2
    assert _ids(settings) == {keep} and _turns(settings) == {keep}
    assert not session_dir(settings.lake_dir, gone).exists() and session_dir(settings.lake_dir, keep).is_dir()
    HotpathState(settings).close()  # start-up recovery republishes what the store has: not the deleted one
    assert not session_dir(settings.lake_dir, gone).exists() and _ids(settings) == {keep}
    r = _cli("delete", gone, "--yes", "--data-dir", d)
    assert r.returncode == 1 and "no session" in r.stderr and "Traceback" not in r.stderr
    for bad in ("..", "../sessions", ".", "x/../.."):  # a session id is never a path
        r = _cli("delete", bad, "--yes", "--data-dir", d)
        assert r.returncode == 1 and "no session" in r.stderr
    assert session_dir(settings.lake_dir, keep).is_dir() and _ids(settings) == {keep}


def test_an_interrupted_deletion_is_finished_at_start_up(tmp_path: Path) -> None:
    settings, keep, gone = _two_sessions(tmp_path)
    stone = tombstone_path(settings.lake_dir, gone)
    stone.parent.mkdir(parents=True)
    stone.write_text(json.dumps({"session_id": gone}))  # crashed right after writing its tombstone
    HotpathState(settings).close()
    assert (
        _ids(settings) == {keep} and not session_dir(settings.lake_dir, gone).exists() and not stone.exists()
    )


@pytest.mark.e2e
def test_delete_from_the_tablet_goes_through_the_hot_path_and_the_paddock(tmp_path: Path) -> None:
    settings, keep, gone = _two_sessions(tmp_path)
    hot = start_hotpath(settings.data_dir, tmp_path)
    pad = None
    try:
        env = {"PITWALL_HOTPATH_URL": hot.url, "PITWALL_LLM_WARMUP": "false"}
        pad = start_paddock(settings.data_dir, tmp_path, "http://127.0.0.1:9/v1", extra_env=env)
        before = {s["session_id"] for s in httpx.get(f"{pad.url}/sessions", timeout=10).json()}
        assert before == {keep, gone}
        r = httpx.delete(f"{pad.url}/sessions/{gone}", timeout=60)
        assert r.status_code == 200, r.text
        assert r.json()["session_id"] == gone and r.json()["conversation_turns"] == 1
        after = {s["session_id"] for s in httpx.get(f"{pad.url}/sessions", timeout=10).json()}
        assert after == {keep}
        assert httpx.get(f"{pad.url}/sessions/{gone}", timeout=10).status_code == 404
        assert httpx.delete(f"{pad.url}/sessions/{gone}", timeout=60).status_code == 404
        assert httpx.delete(f"{hot.url}/sessions/nope", timeout=60).status_code == 404
    finally:
        if pad is not None:
            pad.stop()
        hot.stop()
    hot = start_hotpath(settings.data_dir, tmp_path)  # a restart does not bring it back
    try:
        assert not session_dir(settings.lake_dir, gone).exists()
    finally:
        hot.stop()
    assert _ids(settings) == {keep} and _turns(settings) == {keep}


def test_a_turn_asked_before_its_session_was_deleted_is_not_stored(tmp_path: Path) -> None:
    """The store decides under one lock: a request asked before the deletion writes nothing later (its
    user turn and its answer alike); one asked after it (the session imported again) is kept."""
    store = PaddockStore(settings_for(tmp_path / "data"))
    try:
        asked = time.monotonic()
        assert store.turn("c1", "ana", "s1", "debrief", 0, "user", "debrief me", asked_at=asked) is True
        assert store.turn("c2", "ana", "s2", "ask", 0, "user", "and s2?", asked_at=asked) is True
        assert store.forget_session("s1") == 1
        assert store.turn("c1", "ana", "s1", "debrief", 1, "assistant", "Solid.", asked_at=asked) is False
        assert store.turn("c3", "ana", "s1", "ask", 0, "user", "late", asked_at=asked) is False
        assert store.turn("c2", "ana", "s2", "ask", 1, "assistant", "Fine.", asked_at=asked) is True
        again = time.monotonic()
        assert store.turn("c4", "ana", "s1", "ask", 0, "user", "re-imported", asked_at=again) is True
        rows = store.query(
            "SELECT conversation_id, turn FROM conversations ORDER BY conversation_id, turn", []
        )
        assert [(r["conversation_id"], r["turn"]) for r in rows] == [("c2", 0), ("c2", 1), ("c4", 0)]
    finally:
        store.close()


@pytest.mark.e2e
def test_a_debrief_under_way_when_its_session_is_deleted_leaves_nothing(tmp_path: Path) -> None:
    """The model's stream is held open (scripted server) while the tablet deletes the session: the debrief
    ends with a ``session_deleted`` error and no turn about the session is left, also not under the
    driver's conversations."""
    settings, keep, gone = _two_sessions(tmp_path)
    llm = start_scripted_llm([{"hold_after": 2}])
    hot = start_hotpath(settings.data_dir, tmp_path)
    pad = None
    try:
        env = {"PITWALL_HOTPATH_URL": hot.url, "PITWALL_LLM_WARMUP": "false"}
        pad = start_paddock(settings.data_dir, tmp_path, llm.url, extra_env=env)
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(
                httpx.post,
                f"{pad.url}/coach/debrief",
                json={"session_id": gone, "driver_id": "ana"},
                timeout=180,
            )
            deadline = time.monotonic() + 120
            while llm.stats["held"] == 0 and not asked.done() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert llm.stats["held"] == 1, (
                asked.result().text if asked.done() else "the model was never called"
            )
            during = httpx.get(f"{pad.url}/conversations/{gone}", timeout=10).json()
            assert sorted(t["text"] for t in during) == ["debrief my session", f"how was {gone}?"]
            r = httpx.delete(f"{pad.url}/sessions/{gone}", timeout=60)
            assert r.status_code == 200 and r.json()["conversation_turns"] == 2, r.text
            llm.release()
            out = asked.result().json()
        assert llm.stats["streams_completed"] == 1  # the model's answer was produced whole, then refused
        assert out["type"] == "error" and out["code"] == "session_deleted", out
        assert httpx.get(f"{pad.url}/conversations/{gone}", timeout=10).json() == []
        mine = httpx.get(f"{pad.url}/conversations/driver/ana", timeout=10).json()
        assert [(t["session_id"], t["text"]) for t in mine] == [(keep, f"how was {keep}?")]
    finally:
        llm.release()
        if pad is not None:
            pad.stop()
        hot.stop()
        llm.stop()
    assert _turns(settings) == {keep}

"""The paddock follows an S3 catalog incrementally, off the request path (services/paddock/lake.py,
lake_catalog_view.py), against a real SeaweedFS server: a publish by one car costs one LIST and one GET of
that car's fragment; the snapshot file serves a new paddock before it reads anything; a request never waits
for a refresh that hangs on the store (the hang is injected at the filesystem boundary).

The expected catalog is built here, row by row, and compared with what the paddock lists.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import services.paddock.lake as lake_mod
import services.paddock.lake_s3 as lake_s3_mod
import services.paddock.lake_scope as lake_scope
from services.paddock.lake import Lake
from services.paddock.lake_follow import LakeHealth, clock
from services.paddock.tools.base import rows as rows_of
from services.paddock.tools.sessions import query_pitwall_db
from shared.lake_url import s3_target
from shared.settings import Settings
from shared.store.lake_catalog import CLOCK_SLACK_S, KEYS_COLUMN, fragment_key
from shared.store.lake_migrate import migrate_s3
from tests.support.counting_fs import CountingHandler

WRITERS = 5
T0 = datetime(2026, 3, 1, tzinfo=UTC)


class _Store(CountingHandler):
    """The real server behind a counter; ``hang`` holds every LIST until released (a store that does not
    answer), ``down`` fails every request (a refused connection)."""

    def __init__(self, base: pafs.FileSystem) -> None:
        super().__init__(base)
        self.hang = threading.Event()
        self.release = threading.Event()
        self.down = False
        self.hung = 0  # LISTs held

    def get_file_info_selector(self, selector: pafs.FileSelector) -> list[pafs.FileInfo]:
        if self.down:
            raise OSError("When listing objects: curlCode: 7, Couldn't connect to server")
        if self.hang.is_set():
            self.hung += 1
            self.release.wait(120)
        return super().get_file_info_selector(selector)

    def open_input_stream(self, path: str) -> Any:
        if self.down:
            raise OSError("When reading: curlCode: 7, Couldn't connect to server")
        return super().open_input_stream(path)


def _row(sid: str, driver: str, i: int, published: datetime, deleted: bool | None = None) -> dict[str, Any]:
    r = {
        "session_id": sid,
        "driver_id": driver,
        "track_id": "sonoma",
        "started_at": T0 + timedelta(hours=i),
        KEYS_COLUMN: [f"track=sonoma/date=2026-03-01/session={sid}/laps.parquet"],
        "published_at": published,
    }
    return r if deleted is None else r | {"deleted": deleted}


def _put(fs: pafs.FileSystem, settings: Settings, writer: int, rows: list[dict[str, Any]]) -> None:
    with fs.open_output_stream(s3_target(settings).path(fragment_key(f"car{writer}"))) as f:
        pq.write_table(pa.Table.from_pylist(rows), f)


def _fleet(w: Any, settings: Settings) -> dict[int, list[dict[str, Any]]]:
    """WRITERS fragments of three sessions each, written long enough ago to be settled."""
    fs = w.filesystem()
    pub = datetime.now(UTC) - timedelta(minutes=5)
    rows = {k: [_row(f"s{k}{j}", f"d{k}", 3 * k + j, pub) for j in range(3)] for k in range(WRITERS)}
    for k, r in rows.items():
        _put(fs, settings, k, r)
    time.sleep(1.0 + CLOCK_SLACK_S)  # S3 times are whole seconds: let the writes settle
    return rows


def _listed(lake: Lake) -> list[str]:
    return [r[0] for r in lake.cursor().execute("SELECT session_id FROM sessions ORDER BY 1").fetchall()]


def test_a_publish_costs_one_list_and_one_get_of_that_cars_fragment(weed: Any, tmp_path: Path) -> None:
    settings = weed.settings(tmp_path / "pad", "incr")
    rows = _fleet(weed, settings)
    store = _Store(weed.filesystem())
    lake = Lake(settings, refresh_ttl_s=0.0, fs=pafs.PyFileSystem(store))
    assert store.calls == {"list": 1, "open": WRITERS}  # the start-up read: every fragment once
    store.reset()
    assert _listed(lake) == sorted(r["session_id"] for rs in rows.values() for r in rs)
    assert store.calls == {"list": 1}  # nothing published since: a LIST, no GET
    # car 2 publishes a new session; car 4 deletes car 1's first session (a tombstone, newer)
    now = datetime.now(UTC)
    _put(weed.filesystem(), settings, 2, [*rows[2], _row("s2new", "d2", 99, now)])
    store.reset()
    lake.refresh()
    assert store.calls == {"list": 1, "open": 1} and store.opened[0].endswith(fragment_key("car2"))
    assert "s2new" in _listed(lake)
    tomb = _row("s10", "d1", 3, now + timedelta(seconds=1), True)
    _put(weed.filesystem(), settings, 4, [*(r | {"deleted": False} for r in rows[4]), tomb])
    store.reset()
    lake.refresh()
    assert store.opened == [s3_target(settings).path(fragment_key("car4"))] or set(store.opened) == {
        s3_target(settings).path(fragment_key(f"car{k}")) for k in (2, 4)
    }  # car 2's fragment is read again while its second may still hide a same-size rewrite
    want = sorted({r["session_id"] for rs in rows.values() for r in rs} - {"s10"} | {"s2new"})
    assert _listed(lake) == want
    time.sleep(1.0 + CLOCK_SLACK_S)
    lake.refresh()
    store.reset()
    lake.refresh()  # settled: an unchanged listing reads nothing
    assert store.calls == {"list": 1}


def test_the_snapshot_serves_a_new_paddock_before_it_reads_and_while_the_store_is_down(
    weed: Any, tmp_path: Path
) -> None:
    settings = weed.settings(tmp_path / "pad", "snap")
    rows = _fleet(weed, settings)
    want = sorted(r["session_id"] for rs in rows.values() for r in rs)
    first = Lake(settings, refresh_ttl_s=3600, follow=True)
    first.close()
    snap = settings.paddock_dir / "lake_snapshot.parquet"
    assert sorted(pq.read_table(snap).column("session_id").to_pylist()) == want
    store = _Store(weed.filesystem())
    store.down = True
    lake = Lake(settings, refresh_ttl_s=3600, fs=pafs.PyFileSystem(store), follow=True)
    try:
        assert _listed(lake) == want  # from the snapshot, nothing read from the store
        deadline = time.monotonic() + 60
        while lake.status.reachable and time.monotonic() < deadline:
            time.sleep(0.1)
        st = lake.status.as_dict()
        assert st["reachable"] is False and "cannot reach" in st["problem"]
        assert st["message"].startswith(f"Lake unreachable since {st['unreachable_since']}")
        said = lake.health.as_dict(time.time())  # what /health says: swapped after the failed look
        assert {k: said[k] for k in st} == st and said["old_layout"] is None
        assert _listed(lake) == want and store.opened == []
    finally:
        lake.close()


def test_requests_never_wait_for_a_refresh_that_hangs(weed: Any, tmp_path: Path) -> None:
    settings = weed.settings(tmp_path / "pad", "hang")
    rows = _fleet(weed, settings)
    store = _Store(weed.filesystem())
    lake = Lake(settings, refresh_ttl_s=0.05, fs=pafs.PyFileSystem(store), follow=True)
    try:
        store.hang.set()  # the follower's next LIST hangs, holding the refresh
        deadline = time.monotonic() + 60
        while store.hung < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        said = lake.health.as_dict(time.time())  # /health: the last look's, while the next one hangs
        assert said["reachable"] is True and said["sessions_as_of"] == clock(lake.status.read_at or 0)
        done: list[list[str]] = []
        t = threading.Thread(target=lambda: done.append(_listed(lake)))
        t.start()
        t.join(60)  # a request that waited for the refresh would wait for the release below
        assert done == [sorted(r["session_id"] for rs in rows.values() for r in rs)]
        lake.refresh()  # what /health and every tool call do: returns at once under a follower
        assert not store.release.is_set()
    finally:
        store.release.set()
        lake.close()


def test_a_query_naming_a_session_the_follower_has_not_seen_looks_once(weed: Any, tmp_path: Path) -> None:
    settings = weed.settings(tmp_path / "pad", "named")
    rows = _fleet(weed, settings)
    store = _Store(weed.filesystem())
    lake = Lake(
        settings, refresh_ttl_s=3600, fs=pafs.PyFileSystem(store), follow=True
    )  # read once, then idle
    try:
        _put(weed.filesystem(), settings, 0, [*rows[0], _row("s0new", "d0", 50, datetime.now(UTC))])
        q = "SELECT driver_id FROM sessions WHERE session_id = ?"
        store.reset()
        assert lake.cursor(["d0"], q).execute(q, ["d0"]).fetchall() == []  # a driver: no look
        assert store.calls["list"] == 0
        assert lake.cursor(["s0new"], q).execute(q, ["s0new"]).fetchall() == [("d0",)]
        assert store.calls["list"] == 1
        lake.cursor(["s0new"], q).close()
        lake.cursor(["nope"], q).close()
        lake.cursor(["nope"], q).close()  # looked for once since the catalog last changed
        assert store.calls["list"] == 2
    finally:
        lake.close()


def test_the_sql_tool_on_a_large_lake_reads_only_the_sessions_its_query_names(
    weed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = weed.settings(tmp_path / "pad", "sql")
    rows = _fleet(weed, settings)
    store = _Store(weed.filesystem())
    lake = Lake(settings, refresh_ttl_s=3600, fs=pafs.PyFileSystem(store))
    monkeypatch.setattr(lake_mod, "_LAKE", lake)
    monkeypatch.setattr(lake_scope, "SQL_ALL_SESSIONS", 3 * WRITERS - 1)  # one session too many: "large"
    assert query_pitwall_db("SELECT count(*) AS n FROM laps")["error"]["code"] == "scope_needed"
    assert query_pitwall_db("SELECT count(*) AS n FROM sessions")["rows"] == [{"n": 3 * WRITERS}]
    assert lake.s3.sessions_named(["d1", "s40", "nobody"]) == ["s40", "s10", "s11", "s12"]
    store.reset()
    query_pitwall_db("SELECT count(*) AS n FROM laps WHERE driver_id = 'd1'")  # its objects are not there
    target = s3_target(settings)
    d1 = {target.path(k) for r in rows[1] for k in r[KEYS_COLUMN]}
    assert store.opened and set(store.opened) <= d1, store.opened


def test_an_old_layout_lake_is_read_and_says_once_that_migrate_converts_it(
    weed: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = weed.settings(tmp_path / "pad", "oldlayout")
    rows = _fleet(weed, settings)
    want = sorted(r["session_id"] for rs in rows.values() for r in rs)
    caplog.set_level(logging.WARNING, logger="services.paddock.lake_catalog_view")
    lake = Lake(settings, refresh_ttl_s=0.0)
    lake.refresh()
    lake.refresh()
    assert _listed(lake) == want  # read as it is
    said = [r.getMessage() for r in caplog.records if "pitwall lake migrate" in r.getMessage()]
    assert said == [
        f"the lake {s3_target(settings).url} holds {WRITERS} catalog files of the old layout (read as they "
        "are): `pitwall lake migrate` converts them"
    ]
    assert lake.s3 is not None and lake.s3.view.old_layout() == (
        f"the lake holds {WRITERS} catalog files of the old layout (read as they are): "
        "`pitwall lake migrate` converts them"
    )
    migrate_s3(weed.filesystem(), s3_target(settings))
    lake.refresh()
    assert (
        lake.s3.view.old_layout() is None and _listed(lake) == want
    )  # the same sessions, from the Delta table
    assert lake.s3 is not None and lake.s3.view.whole_reads == 1


def test_the_newest_sessions_are_listed_from_the_order_kept_per_catalog_version(
    weed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = weed.settings(tmp_path / "pad", "newest")
    fs = weed.filesystem()
    pub = datetime.now(UTC) - timedelta(minutes=5)
    rows = {k: [_row(f"s{k}{j}", f"d{k}", 3 * k + j, pub) for j in range(3)] for k in range(WRITERS)}
    rows[0].append(_row("s0undated", "d0", 0, pub) | {"started_at": None})  # listed last, not first
    for k, r in rows.items():
        _put(fs, settings, k, r)
    monkeypatch.setattr(lake_s3_mod, "LISTED_AT_MOST", 4)
    lake = Lake(settings, refresh_ttl_s=3600)
    monkeypatch.setattr(lake_mod, "_LAKE", lake)
    sql = "SELECT session_id FROM sessions ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT ?"
    # started_at is T0 + (3k + j) hours: the newest are car 4's, then car 3's last
    assert [r["session_id"] for r in json.loads(lake.sessions_page(4))] == ["s42", "s41", "s40", "s32"]
    assert [r["session_id"] for r in json.loads(lake.sessions_page(2))] == ["s42", "s41"]
    assert [r["session_id"] for r in json.loads(lake.sessions_page(100))] == ["s42", "s41", "s40", "s32"]
    # car 1 publishes a session newer than all: the next refresh lists it first
    _put(fs, settings, 1, [*rows[1], _row("s1new", "d1", 99, datetime.now(UTC))])
    lake.refresh(force=True)
    assert [r["session_id"] for r in json.loads(lake.sessions_page(2))] == ["s1new", "s42"]
    everything = [r["session_id"] for r in rows_of(sql, [100])]
    assert len(everything) == 3 * WRITERS + 2 and everything[-1] == "s0undated"


def test_health_says_the_age_of_the_newest_publication_and_what_the_last_look_left() -> None:
    said = {"reachable": False, "unreachable_since": "14:05", "old_layout": None}
    h = LakeHealth(1_000.0, said)
    assert h.as_dict(1_012.34) == {"newest_file_age_s": 12.3, **said}
    assert LakeHealth().as_dict(1_012.34) == {"newest_file_age_s": None}  # nothing read yet

"""The paddock follows the Delta catalog version by version (shared/store/delta_log.py,
services/paddock/lake_catalog_view.py): after more commits it reads each new commit's log entry and the data
files those commits added, nothing else, and its catalog equals the table read independently (polars,
newest publication per session computed here, deletions honoured). A compaction's files are not read; a
schema change, a cleaned-up log entry, a vacuumed file fall back to one whole read.

Every object the follower reads goes through a counting filesystem; the table is written by the product's
own append (``LakeTables.append``) and deletion (``forget_in_catalog``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.fs as pafs
import pytest
from deltalake import DeltaTable

from services.paddock.lake_catalog_lookup import INDEX_AFTER
from services.paddock.lake_catalog_view import CatalogView
from shared.lake_url import LakeTarget, s3_target
from shared.store import delta_log
from shared.store.delta_log import DeltaLog
from shared.store.lake_catalog import KEYS_COLUMN, forget_in_catalog
from shared.store.lake_tables import LakeTables
from tests.support.counting_fs import counting

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
PUB = datetime(2026, 3, 2, tzinfo=UTC)


def _rows(sids: list[str], published: datetime, driver: str = "d1", **extra: Any) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {
                "session_id": s,
                "driver_id": driver,
                "track_id": "sonoma",
                "started_at": T0,
                KEYS_COLUMN: [f"track=sonoma/date=2026-03-01/session={s}/laps.parquet"],
                "published_at": published,
                "track": "sonoma",
                "date": "2026-03-01",
                **extra,
            }
            for s in sids
        ]
    ).cast(
        pa.schema(
            [
                ("session_id", pa.string()),
                ("driver_id", pa.string()),
                ("track_id", pa.string()),
                ("started_at", pa.timestamp("us", tz="UTC")),
                (KEYS_COLUMN, pa.list_(pa.string())),
                ("published_at", pa.timestamp("us", tz="UTC")),
                ("track", pa.string()),
                ("date", pa.string()),
                *((k, pa.string()) for k in extra),
            ]
        )
    )


def _files(uri: str, version: int, opts: dict[str, str] | None = None) -> set[str]:
    dt = DeltaTable(uri, storage_options=opts)
    dt.load_as_version(version)
    return {u.split("/_delta/sessions/", 1)[1] for u in dt.file_uris()}


# ---- the log alone, on a local table ---------------------------------------------------------------


def test_the_log_names_the_files_new_commits_added_and_falls_back_when_it_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = LakeTables.local(tmp_path / "lake")
    uri = tables.uri("sessions")
    for k in range(3):
        tables.append("sessions", _rows([f"a{k}"], PUB))
    fs, store = counting(pafs.LocalFileSystem())
    dlog = DeltaLog(tables, "sessions", fs, uri)
    fetch = lambda fn, items: [fn(i) for i in items]  # noqa: E731
    assert dlog.newest() == 2
    assert store.calls == {}  # the table is loaded by deltalake, nothing read through our filesystem
    for k in range(3, 5):
        tables.append("sessions", _rows([f"a{k}"], PUB))
    assert dlog.newest() == 4
    monkeypatch.setattr(delta_log, "FOLLOW_AT_MOST", 1)  # two versions behind is too many: read whole
    assert dlog.added(2, 4, fetch) is None and store.calls == {}
    monkeypatch.setattr(delta_log, "FOLLOW_AT_MOST", 2)
    paths = dlog.added(2, 4, fetch)
    assert paths is not None
    new = _files(uri, 4) - _files(uri, 2)
    assert len(new) == 2 and sorted(p.split("/_delta/sessions/", 1)[1] for p in paths) == sorted(new)
    got = dlog.read_files(paths, fetch)
    assert sorted(s for t in got for s in t.column("session_id").to_pylist()) == ["a3", "a4"]
    log = f"{uri}/_delta_log"
    assert store.opened == [f"{log}/{3:020d}.json", f"{log}/{4:020d}.json", *paths]
    assert dlog.files_read == 2
    # a compaction rewrites every file: nothing new to read
    tables.maintain("sessions")
    compacted = dlog.newest()
    assert compacted == 5 and dlog.added(4, 5, fetch) == []
    # a new column (schema change): read whole
    tables.append("sessions", _rows(["a5"], PUB, weather="wet"))
    assert dlog.newest() == 6 and dlog.added(5, 6, fetch) is None
    whole = dlog.whole()
    assert sorted(whole.column("session_id").to_pylist()) == [f"a{k}" for k in range(6)]
    # a log entry cleaned up past the version held: read whole
    tables.append("sessions", _rows(["a6"], PUB))
    assert dlog.newest() == 7
    Path(f"{log}/{7:020d}.json").unlink()
    assert dlog.added(6, 7, fetch) is None


# ---- the paddock's view, on SeaweedFS ---------------------------------------------------------------


def _target(w: Any, data: Path, prefix: str) -> LakeTarget:
    return s3_target(w.settings(data, prefix))


def _truth(target: LakeTarget) -> set[tuple[str, str, datetime]]:
    """The catalog from the table read by polars: each session's newest publication, deleted ones out."""
    df = pl.read_delta(LakeTables.s3(target).uri("sessions"), storage_options=dict(target.options))
    if "deleted" not in df.columns:
        df = df.with_columns(pl.lit(None, pl.Boolean).alias("deleted"))
    newest = df.sort("published_at", descending=True).group_by("session_id").first()
    live = newest.filter(~pl.col("deleted").fill_null(False))
    return {(r["session_id"], r["driver_id"], r["published_at"]) for r in live.iter_rows(named=True)}


def _held(view: CatalogView) -> set[tuple[str, str, datetime]]:
    cat = view.catalog
    assert cat is not None
    return {(r["session_id"], r["driver_id"], r["published_at"]) for r in cat.to_pylist()}


def _look(view: CatalogView, pool: ThreadPoolExecutor) -> int:
    view.list_fragments()
    return view.update(pool)


def test_the_view_reads_only_the_new_commits_and_equals_a_whole_read(weed: Any, tmp_path: Path) -> None:
    target = _target(weed, tmp_path / "pad", "follow")
    tables = LakeTables.s3(target)
    uri = tables.uri("sessions")
    for k in range(4):  # 4 commits of 3 sessions
        tables.append("sessions", _rows([f"s{k}{j}" for j in range(3)], PUB + timedelta(minutes=k)))
    fs, store = counting(weed.filesystem())
    forget_in_catalog(fs, target, "s31")  # the first deletion adds the ``deleted`` column (a new schema)
    view = CatalogView(fs, target, tmp_path / "snap.parquet")
    pool = ThreadPoolExecutor(4)
    _look(view, pool)
    assert view.whole_reads == 1 and _held(view) == _truth(target) and len(_held(view)) == 11
    store.reset()
    assert _look(view, pool) == 0 and store.calls["open"] == 0  # nothing new: no GET
    before = tables.version("sessions")
    assert before == 4
    later = PUB + timedelta(hours=1)
    tables.append("sessions", _rows(["s00", "s01"], later, driver="d2"))  # republished, newer
    tables.append("sessions", _rows(["n1", "n2"], later))  # new sessions
    forget_in_catalog(fs, target, "s10")  # a deletion: a newer row marked deleted
    tables.append("sessions", _rows(["s10"], PUB))  # a late, older publication: must not bring it back
    store.reset()
    assert _look(view, pool) == 4  # one data file per commit
    new_files = _files(uri, 8, dict(target.options)) - _files(uri, 4, dict(target.options))
    data = [p for p in store.opened if not p.endswith(".json")]
    logs = [p for p in store.opened if p.endswith(".json")]
    assert sorted(p.split("/_delta/sessions/", 1)[1] for p in data) == sorted(new_files)
    assert sorted(p.rsplit("/", 1)[1] for p in logs) == [f"{v:020d}.json" for v in range(5, 9)]
    assert view.whole_reads == 1
    truth = _truth(target)
    assert _held(view) == truth
    assert ("s00", "d2", later) in truth and not any(s == "s10" for s, _, _ in truth)
    assert len(truth) == 12
    # late, older publications arriving in a look of their own: the rows held (a deletion, a newer row) win
    tables.append("sessions", _rows(["s10", "s00"], PUB - timedelta(days=1), driver="d3"))
    assert _look(view, pool) == 1
    assert _held(view) == _truth(target) == truth
    # compaction: a new version whose files hold rows already held, not read
    tables.maintain("sessions")
    store.reset()
    assert _look(view, pool) == 0 and all(p.endswith(".json") for p in store.opened)
    assert _held(view) == _truth(target) and view.whole_reads == 1
    # a new paddock from the snapshot follows from the snapshot's version
    assert view.save(force=True)
    fs2, store2 = counting(weed.filesystem())
    fresh = CatalogView(fs2, target, tmp_path / "snap.parquet")
    assert fresh.load() and _held(fresh) == _truth(target)
    tables.append("sessions", _rows(["n3"], later))
    assert _look(fresh, pool) == 1 and fresh.whole_reads == 0
    assert _held(fresh) == _truth(target) and len([p for p in store2.opened if not p.endswith(".json")]) == 1
    # a schema change: one whole read
    tables.append("sessions", _rows(["n4"], later, weather="dry"))
    _look(fresh, pool)
    assert fresh.whole_reads == 1 and _held(fresh) == _truth(target)
    assert fresh.rows(["n4"])["n4"]["weather"] == "dry"
    # a lookup scans the ids until INDEX_AFTER lookups of one version, then uses the id -> row dict: both
    # answer as the table does (a present session's keys, None for a deleted or unknown one)
    want = {s: [f"track=sonoma/date=2026-03-01/session={s}/laps.parquet"] for s, _, _ in _truth(target)}
    asked = [*sorted(want), "s10", "nope"] * 3
    assert len(want) == 14 and len(asked) > 2 * INDEX_AFTER
    assert [fresh.keys(s) for s in asked] == [want.get(s) for s in asked]
    assert [fresh.has(s) for s in asked] == [s in want for s in asked]
    pool.shutdown()

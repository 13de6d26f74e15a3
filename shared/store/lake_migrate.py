"""``pitwall lake migrate``: a lake of the layout before the Delta tables converted, nothing lost.

* A local lake: every ``sessions/<id>/`` with its ``session.parquet`` becomes a publication in the Delta
  tables (catalog row, laps, corners, events), dated by its ``session.parquet``'s time, so a second run
  finds it there and adds nothing. The session folders stay (telemetry is per session, as before).
* An S3 lake: every row of the old catalog fragments (``_catalog/sessions-<writer>.parquet``, each
  session's newest one, deletions included) becomes a publication with its own ``published_at``: a
  finished session's laps, corners and events read from its objects, then its row. Only once all are
  committed are the fragments deleted; until then readers read both (:func:`read_catalog`), and a run
  cut short is run again (a publication already there is not appended twice).

Also ``pitwall lake maintain``: compaction, checkpoint and vacuum of every table, through the library.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.ids import is_id
from shared.lake_url import LakeTarget
from shared.store.lake_catalog import (
    DELETED_COLUMN,
    KEYS_COLUMN,
    legacy_fragments,
    object_reader,
    read_catalog,
)
from shared.store.lake_read import LocalSession
from shared.store.lake_tables import TABLES, LakeTables, session_tables

_STAMP = pa.timestamp("us", tz="UTC")


def migrate_local(lake_dir: Path) -> dict[str, Any]:
    """Every session folder of a local lake into its Delta tables. Returns the sessions converted
    (``sessions``) and the rows of each table after the run (``rows``)."""
    tables = LakeTables.local(lake_dir)
    root = Path(lake_dir) / "sessions"
    seen = 0
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        f = d / "session.parquet"
        if not (is_id(d.name) and f.is_file()):
            continue
        when = datetime.fromtimestamp(f.stat().st_mtime, UTC)
        row = pq.read_table(f)
        row = row.append_column("published_at", pa.array([when] * row.num_rows, _STAMP))
        session_tables(tables, row, LocalSession(lake_dir, d.name).table)
        seen += 1
    return {"sessions": seen, "rows": _counts(tables)}


def migrate_s3(fs: pafs.FileSystem, target: LakeTarget) -> dict[str, Any]:
    """The old catalog fragments of an S3 lake into its Delta tables, then the fragments deleted."""
    tables = LakeTables.s3(target)
    listed = legacy_fragments(fs, target)
    old = read_catalog(fs, target, listed=listed, keep_deleted=True)
    for i in range(old.num_rows if old is not None else 0):
        assert old is not None
        row = old.slice(i, 1)
        r = row.to_pylist()[0]
        if r.get("published_at") is None:  # a row written before rows were dated: dated now, once
            now = pa.array([datetime.now(UTC)], _STAMP)
            row = row.set_column(row.schema.get_field_index("published_at"), "published_at", now)
        if r.get(DELETED_COLUMN) or r.get("status") == "live":
            session_tables(tables, row, lambda _stem: None)
        else:
            session_tables(tables, row, object_reader(fs, target, r.get(KEYS_COLUMN) or []))
    for info in listed:
        with contextlib.suppress(FileNotFoundError):
            fs.delete_file(info.path)
    return {"sessions": 0 if old is None else old.num_rows, "rows": _counts(tables)}


def _counts(tables: LakeTables) -> dict[str, int]:
    out = {}
    for name in TABLES:
        dt = tables.table(name)
        out[name] = 0 if dt is None else dt.to_pyarrow_dataset().count_rows()
    return out


def maintain(tables: LakeTables, retention_hours: int = 1) -> list[dict[str, Any]]:
    """Compaction, a checkpoint and vacuum of every table (the library's own operations)."""
    return [tables.maintain(name, retention_hours) for name in TABLES]

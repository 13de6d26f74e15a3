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
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.ids import is_id
from shared.lake_url import LakeTarget
from shared.store.lake_catalog import legacy_fragments, object_reader, read_catalog
from shared.store.lake_read import LocalSession
from shared.store.lake_tables import TABLES, LakeTables, publish

_STAMP = pa.timestamp("us", tz="UTC")


def migrate_local(lake_dir: Path) -> dict[str, Any]:
    """Every session folder of a local lake into its Delta tables (one commit per table). Returns the
    sessions converted (``sessions``) and the rows of each table after the run (``rows``)."""
    root = Path(lake_dir) / "sessions"
    rows = []
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        f = d / "session.parquet"
        if not (is_id(d.name) and f.is_file()):
            continue
        when = datetime.fromtimestamp(f.stat().st_mtime, UTC)
        row = pq.read_table(f)
        rows.append(row.append_column("published_at", pa.array([when] * row.num_rows, _STAMP)))
    tables = LakeTables.local(lake_dir)
    if rows:
        publish(
            tables,
            pa.concat_tables(rows, promote_options="permissive"),
            lambda r, stem: LocalSession(lake_dir, r["session_id"]).table(stem),
        )
    return {"sessions": len(rows), "rows": _counts(tables)}


def migrate_s3(fs: pafs.FileSystem, target: LakeTarget) -> dict[str, Any]:
    """The old catalog fragments of an S3 lake into its Delta tables (one commit per table), then the
    fragments deleted."""
    tables = LakeTables.s3(target)
    listed = legacy_fragments(fs, target)
    old = read_catalog(fs, target, listed=listed, keep_deleted=True)
    if old is not None and old.num_rows:
        if "published_at" not in old.column_names:  # rows written before rows were dated: dated now
            old = old.append_column("published_at", pa.nulls(old.num_rows, _STAMP))
        when = pc.fill_null(old.column("published_at").cast(_STAMP), pa.scalar(datetime.now(UTC), _STAMP))
        old = old.set_column(old.schema.get_field_index("published_at"), "published_at", when)
        publish(tables, old, object_reader(fs, target))
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

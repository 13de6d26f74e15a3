"""The lake's tables in Delta Lake format (``deltalake``), one code path for a local lake and an S3 one.

    <lake>/_delta/sessions   the session catalog: a row per publication of a session (its ``sessions`` row,
                             ``object_keys`` on S3, ``published_at``; ``deleted`` for a deletion)
    <lake>/_delta/laps       ``laps`` rows of each publication of a finished session
    <lake>/_delta/corners    ``corner_results``
    <lake>/_delta/events     ``driver_events``

``<lake>`` is the local lake directory or ``s3://bucket/prefix``: the same ``deltalake`` call writes and
reads both (the S3 settings become its storage options). Laps, corners and events are partitioned by
``track`` and ``date`` (Hive folders ``track=<track>/date=<YYYY-MM-DD>``), so a driver's history at a track
reads that track's files only; the catalog, read whole, by ``track`` only (every row still has ``date``). Telemetry stays per session (one object per session, named by its catalog row).

Writes are appends only, each one commit: a commit is one new log entry written with a conditional PUT
(``If-None-Match``), so writers never overwrite each other and a losing writer retries on the next version
(delta-rs does; a failure past its retries is retried here). A session published again appends a newer
publication; readers keep each session's newest ``published_at`` (its rows in every table carry it), and a
deletion is a newer catalog row marked ``deleted``. Compaction, checkpoints and vacuum are the library's (:meth:`LakeTables.maintain`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable, write_deltalake
from deltalake.exceptions import CommitFailedError, TableNotFoundError

from shared.lake_url import LakeTarget

TABLES_DIR = "_delta"
# table -> the per-session file its rows come from (``sessions/<id>/<stem>.parquet``, or its S3 object)
TABLES = {"sessions": "session", "laps": "laps", "corners": "corners", "events": "events"}
# the catalog is read whole (``/sessions``): by track only, so compaction leaves a file per track; the
# other tables are read by session or by driver at a track: by track and date
PARTITION_BY = {
    "sessions": ["track"],
    "laps": ["track", "date"],
    "corners": ["track", "date"],
    "events": ["track", "date"],
}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_COMMIT_TRIES = 20
MAINTAIN_EVERY = 50  # versions between compactions of a table (by whichever writer reaches one)
log = logging.getLogger(__name__)


def key_part(text: str) -> str:
    """``text`` safe in an object key or a partition folder (letters, digits, ``.``, ``_``, ``-``)."""
    return _UNSAFE.sub("_", text)


def partition_values(track_id: object, started_at: object) -> tuple[str, str]:
    """(track, date) of a session: its track id and start date made safe for a key, ``unknown`` /
    ``undated`` when not known (the same values as the S3 objects' Hive keys)."""
    track = key_part(str(track_id)) if track_id else "unknown"
    date = key_part(str(started_at)[:10]) if started_at is not None else "undated"
    return track, date


@dataclass(frozen=True)
class LakeTables:
    """The Delta tables of one lake: ``root`` a local directory or ``s3://bucket/prefix``."""

    root: str
    options: dict[str, str] = field(default_factory=dict)  # deltalake storage options (S3)

    @classmethod
    def local(cls, lake_dir: Path) -> LakeTables:
        return cls(str(Path(lake_dir).resolve()))

    @classmethod
    def s3(cls, target: LakeTarget) -> LakeTables:
        return cls(target.url, dict(target.options))

    def uri(self, name: str) -> str:
        return f"{self.root.rstrip('/')}/{TABLES_DIR}/{name}"

    def table(self, name: str) -> DeltaTable | None:
        """The table's newest version; None when it was never written."""
        try:
            return DeltaTable(self.uri(name), storage_options=self.options or None)
        except TableNotFoundError:
            return None

    def append(self, name: str, rows: pa.Table) -> None:
        """One commit adding ``rows`` (which carry the partition columns); new columns are added to the
        table's schema. A commit that loses to another writer's past delta-rs's own retries is retried.
        Every :data:`MAINTAIN_EVERY` versions the writer that reached it compacts the table (a file per
        partition, not one per publication) and checkpoints it (readers replay a short log)."""
        if rows.num_rows == 0:
            return
        for attempt in range(_COMMIT_TRIES):
            dt = self.table(name)
            try:
                write_deltalake(
                    self.uri(name) if dt is None else dt,
                    rows,
                    mode="append",
                    partition_by=PARTITION_BY[name],
                    schema_mode="merge",
                    storage_options=self.options or None,
                )
                break
            except CommitFailedError:  # e.g. two writers creating the table at once: one wins
                if attempt == _COMMIT_TRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        if dt is not None and dt.version() % MAINTAIN_EVERY == 0:
            try:
                self.maintain(name)
            except Exception:  # the rows are committed; a lost race with another compaction: next time
                log.warning("compacting the lake table %s failed; tried again later", name, exc_info=True)

    def read(self, name: str, session_ids: list[str] | None = None) -> pa.Table | None:
        """Every row of a table (or of ``session_ids``' rows); None when it was never written."""
        dt = self.table(name)
        if dt is None:
            return None
        flt = None if session_ids is None else pc.field("session_id").isin(sorted(set(session_ids)))
        return dt.to_pyarrow_dataset().to_table(filter=flt)

    def version(self, name: str) -> int | None:
        dt = self.table(name)
        return None if dt is None else dt.version()

    def maintain(self, name: str, retention_hours: int = 1) -> dict[str, Any]:
        """Compact small files, write a checkpoint, vacuum files no version newer than
        ``retention_hours`` needs, drop expired log entries: all through the library."""
        dt = self.table(name)
        if dt is None:
            return {"table": name, "written": False}
        metrics = dt.optimize.compact()
        dt.create_checkpoint()
        removed = dt.vacuum(retention_hours=retention_hours, enforce_retention_duration=False, dry_run=False)
        dt.cleanup_metadata()
        return {
            "table": name,
            "written": True,
            "files_added": int(metrics.get("numFilesAdded", 0)),
            "files_removed": int(metrics.get("numFilesRemoved", 0)),
            "vacuumed": len(removed),
            "version": dt.version(),
        }


def publish(
    tables: LakeTables,
    rows: pa.Table,
    read: Callable[[dict[str, Any], str], pa.Table | None],
    before_row: Callable[[], None] | None = None,
) -> None:
    """Append publications of sessions, one commit per table for all of them: their laps, corners and
    events (``read(row, stem)``: that session's per-session table, None for none), then their catalog rows
    (``rows``: one per publication, with ``published_at``) last, so the catalog never names a publication
    whose rows are missing. A publication a table already has (a redo after a crash, a second migration)
    is not appended to it again. ``before_row``: called between the tables and the rows (a crash point)."""
    stamp = pa.timestamp("us", tz="UTC")
    rows = rows.set_column(
        rows.schema.get_field_index("published_at"), "published_at", rows.column("published_at").cast(stamp)
    )
    listed = rows.to_pylist()
    sids = sorted({r["session_id"] for r in listed})
    for name, stem in reversed(TABLES.items()):  # the catalog rows (first in TABLES) last
        if name == "sessions" and before_row is not None:
            before_row()
        done = _published(tables, name, sids)
        parts = []
        for i, r in enumerate(listed):
            if (r["session_id"], r["published_at"]) in done:
                continue
            got = rows.slice(i, 1) if name == "sessions" else read(r, stem)
            if got is None or got.num_rows == 0:
                continue
            n = got.num_rows
            track, date = partition_values(r.get("track_id"), r.get("started_at"))
            if name != "sessions":
                got = got.append_column("published_at", pa.array([r["published_at"]] * n, stamp))
            got = got.append_column("track", pa.array([track] * n, pa.string()))
            parts.append(got.append_column("date", pa.array([date] * n, pa.string())))
        if parts:
            tables.append(name, pa.concat_tables(parts, promote_options="permissive"))


def _published(tables: LakeTables, name: str, sids: list[str]) -> set[tuple[str, Any]]:
    """The (session, published_at) publications ``name`` already holds of these sessions."""
    got = tables.read(name, sids)
    if got is None or got.num_rows == 0:
        return set()
    pairs = got.select(["session_id", "published_at"]).to_pylist()
    return {(p["session_id"], p["published_at"]) for p in pairs}

"""The session catalog of a lake: the Delta table ``_delta/sessions`` (:mod:`shared.store.lake_tables`).

A row is a publication of a session: its ``sessions`` row (driver, car, track, date, best lap, ...), on S3
``object_keys`` (every object of the session, relative to the lake prefix, under Hive-style keys
``track=<track>/date=<YYYY-MM-DD>/session=<id>/...``) with ``object_sizes``, and ``published_at``. ``/sessions`` reads the catalog
instead of listing the bucket, and the paddock reads a session by its own keys, never by a listing.

Several writers share one prefix safely: each publication is an append, one Delta commit, written with a
conditional PUT of the next log entry, so no writer overwrites another's rows; readers keep each session's
newest publication, and a deletion is a newer row marked ``deleted``.

The layout before this one (``_catalog/sessions-<writer>.parquet``, one object per writer) is still read,
beside the table, until ``pitwall lake migrate`` has converted it (:mod:`shared.store.lake_migrate`).
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.faults import crash_point
from shared.lake_url import LakeTarget
from shared.store.lake_tables import LakeTables, key_part, partition_values, publish

CATALOG_DIR = "_catalog"  # the layout before the Delta table: read until migrated
KEYS_COLUMN = "object_keys"
# each object's size in bytes, in the order of ``object_keys`` (rows before it: none): a reader opens a
# telemetry object without asking the store its size first (a HEAD saved per object)
SIZES_COLUMN = "object_sizes"
DELETED_COLUMN = "deleted"  # a deletion: the session's newest row, so it wins over any older row


def hive_base(session_id: str, track_id: str | None, started_at: object) -> str:
    """``track=<track>/date=<YYYY-MM-DD>/session=<id>`` (``unknown`` / ``undated`` when not known)."""
    track, date = partition_values(track_id, started_at)
    return f"track={track}/date={date}/session={session_id}"


def fragment_key(writer: str) -> str:
    """The old layout's catalog object of one writer (read until migrated)."""
    return f"{CATALOG_DIR}/sessions-{key_part(writer)}.parquet"


def legacy_fragments(fs: pafs.FileSystem, target: LakeTarget) -> list[pafs.FileInfo]:
    """The old layout's fragments (one LIST of ``_catalog/``; none once migrated)."""
    sel = pafs.FileSelector(target.path(CATALOG_DIR), allow_not_found=True)
    got = [i for i in fs.get_file_info(sel) if i.type == pafs.FileType.File and i.path.endswith(".parquet")]
    return sorted(got, key=lambda i: i.path)


def _read(fs: pafs.FileSystem, path: str) -> pa.Table | None:
    try:
        with fs.open_input_stream(path) as f:
            return pq.read_table(pa.BufferReader(f.read()))
    except FileNotFoundError:  # removed between the listing and the read (migrated)
        return None


def read_fragment(fs: pafs.FileSystem, target: LakeTarget, path: str) -> pa.Table | None:
    """One old-layout fragment as written (tombstones included); None when it is gone (migrated)."""
    return _read(fs, path)


def _newest_row(table: pa.Table) -> pa.Table:
    """One row per session: its newest publication (two rows of one time: either, they are equal)."""
    if table.num_rows == 0 or "published_at" not in table.column_names:
        return table
    order = pc.sort_indices(table, [("session_id", "ascending"), ("published_at", "descending")])
    sids = table.column("session_id").take(order).combine_chunks()
    first = pc.not_equal(sids.slice(1), sids.slice(0, len(sids) - 1))  # a session's first row, after row 0
    return table.take(order.filter(pa.concat_arrays([pa.array([True]), pc.fill_null(first, True)])))


def _newest(parts: list[pa.Table], session_ids: list[str] | None, keep_deleted: bool) -> pa.Table | None:
    """One row per session (its newest publication); deleted ones (and the ``deleted`` column) left out
    unless ``keep_deleted``."""
    parts = [
        p.drop_columns([c for c in ("track", "date") if c in p.column_names]) for p in parts if p.num_rows
    ]
    if not parts:
        return None
    both = pa.concat_tables(parts, promote_options="permissive")
    if session_ids is not None:
        both = both.filter(
            pc.is_in(both.column("session_id"), pa.array(sorted(set(session_ids)), pa.string()))
        )
    newest = _newest_row(both)
    if DELETED_COLUMN in newest.column_names and not keep_deleted:  # deleted last: gone, whoever published it
        newest = newest.filter(pc.invert(pc.fill_null(newest.column(DELETED_COLUMN), False)))
        newest = newest.drop_columns([DELETED_COLUMN])
    return newest


def read_catalog(
    fs: pafs.FileSystem,
    target: LakeTarget,
    listed: list[pafs.FileInfo] | None = None,
    session_ids: list[str] | None = None,
    keep_deleted: bool = False,
) -> pa.Table | None:
    """An S3 lake's catalog, one row per session (its newest publication; deleted sessions left out
    unless ``keep_deleted``): the Delta table and any old-layout fragment (``listed``: as just listed by
    :func:`legacy_fragments`). ``session_ids``: only these sessions' rows. None when there is none yet."""
    infos = legacy_fragments(fs, target) if listed is None else listed
    parts = [t for t in (_read(fs, i.path) for i in infos) if t is not None]
    delta = LakeTables.s3(target).read("sessions", session_ids)
    return _newest([*parts, *([delta] if delta is not None else [])], session_ids, keep_deleted)


def merge_fragments(parts: list[pa.Table], keep_deleted: bool = False) -> pa.Table | None:
    """The catalog from its parts' rows (old-layout fragments, Delta rows): one row per session, the
    newest; deleted sessions gone unless ``keep_deleted``."""
    return _newest(parts, None, keep_deleted)


def read_local_catalog(
    lake_dir: Path, session_ids: list[str] | None = None, keep_deleted: bool = False
) -> pa.Table | None:
    """A local lake's catalog, as :func:`read_catalog` (the same Delta table, under the lake directory)."""
    delta = LakeTables.local(lake_dir).read("sessions", session_ids)
    return _newest([delta] if delta is not None else [], session_ids, keep_deleted)


def catalog_signature(infos: list[pafs.FileInfo]) -> tuple[int, float]:
    """(a digest of the catalog's entries: old fragments' names, sizes and times, and the Delta table's
    version as an entry whose size it is; the newest time): changes whenever any writer publishes a session."""
    if not infos:
        return (0, 0.0)
    stamp = [(i.path, i.size, i.mtime_ns) for i in infos]
    newest = max((i.mtime.timestamp() for i in infos if i.mtime is not None), default=0.0)
    return (zlib.crc32(repr(stamp).encode()) or 1, newest)


# S3 times are whole seconds (Last-Modified), and the server's clock is not ours: a fragment rewritten
# with the same size in the second it was listed looks unchanged, so a catalog read before that second
# (plus this slack for the clocks) has ended is read again at the next refresh
CLOCK_SLACK_S = 2.0


def catalog_settled(newest_mtime: float, fetched_at: float) -> bool:
    """Whether a catalog read at ``fetched_at`` (our wall clock, before the GETs) saw every write of the
    fragments whose newest time is ``newest_mtime``: only once that whole second, and the slack for the
    two clocks, had passed when it was read."""
    return fetched_at >= newest_mtime + 1.0 + CLOCK_SLACK_S


def _keys_of(table: pa.Table | None) -> set[str]:
    if table is None or table.num_rows == 0:
        return set()
    return {k for keys in table.column(KEYS_COLUMN).to_pylist() for k in keys or []}


@dataclass(frozen=True)
class SpooledRow:
    """A catalog row waiting in the spool, as read at the start of a pass (a newer one may replace it)."""

    path: Path
    stamp: tuple[int, int]  # (inode, mtime): the file read
    table: pa.Table

    @classmethod
    def read(cls, path: Path) -> SpooledRow | None:
        """The row waiting at ``path``, or None when it is gone (merged or replaced meanwhile)."""
        with contextlib.suppress(FileNotFoundError):
            st = path.stat()
            return cls(path, (st.st_ino, st.st_mtime_ns), pq.read_table(path))
        return None

    @property
    def closed(self) -> bool:
        """The session's final row (closed, aborted, imported): it supersedes every key it does not name."""
        return self.table.column("status")[0].as_py() != "live"

    @property
    def keys(self) -> set[str]:
        return set(self.table.column(KEYS_COLUMN)[0].as_py() or [])

    def still_waiting(self) -> bool:
        with contextlib.suppress(FileNotFoundError):
            st = self.path.stat()
            return (st.st_ino, st.st_mtime_ns) == self.stamp
        return False


def object_reader(
    fs: pafs.FileSystem, target: LakeTarget
) -> Callable[[dict[str, Any], str], pa.Table | None]:
    """A finished session's per-session table by file stem, read from the object its catalog row names
    (None for a live session or a deletion: their catalog row only)."""

    def read(row: dict[str, Any], stem: str) -> pa.Table | None:
        if row.get("status") == "live" or row.get(DELETED_COLUMN):
            return None
        keys = row.get(KEYS_COLUMN) or []
        key = next(
            (k for k in keys if k.rsplit("/", 1)[-1] == f"{stem}.parquet" and "/telemetry/" not in k), None
        )
        return None if key is None else _read(fs, target.path(key))

    return read


def merge_into_catalog(fs: pafs.FileSystem, target: LakeTarget, new: pa.Table) -> tuple[list[str], set[str]]:
    """Append the publications in ``new`` (a row per session, objects already up) to the catalog: the
    finished sessions' laps, corners and events first (read from their objects), the catalog rows last,
    one commit per table (:func:`shared.store.lake_tables.publish`); a live session: its row only. Returns the keys the
    sessions' previous rows named and the new ones do not (superseded: compacted lap files, a moved
    session), and the keys the new rows name."""
    sids = new.column("session_id").to_pylist()
    before = _keys_of(read_catalog(fs, target, session_ids=sids))
    closed = any(s != "live" for s in new.column("status").to_pylist())
    between = (lambda: crash_point("tables_appended")) if closed else None
    publish(LakeTables.s3(target), new, object_reader(fs, target), between)
    after = _keys_of(new)
    return sorted(before - after), after


def _tombstone(tables: LakeTables, session_id: str, old: pa.Table | None) -> None:
    """A newer row of the session marked deleted, in its partition."""
    first = old.to_pylist()[0] if old is not None and old.num_rows else {}
    track, date = partition_values(first.get("track_id"), first.get("started_at"))
    tomb = pa.table(
        {
            "session_id": pa.array([session_id], pa.string()),
            KEYS_COLUMN: pa.array([[]], pa.list_(pa.string())),
            SIZES_COLUMN: pa.array([[]], pa.list_(pa.int64())),
            "published_at": pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")),
            DELETED_COLUMN: pa.array([True]),
            "track": pa.array([track], pa.string()),
            "date": pa.array([date], pa.string()),
        }
    )
    tables.append("sessions", tomb)


def forget_in_catalog(fs: pafs.FileSystem, target: LakeTarget, session_id: str) -> list[str]:
    """A deleted session: a newer row marked deleted (the session is gone for every reader, whoever
    published it). Returns the keys of its objects (to delete)."""
    old = read_catalog(fs, target, session_ids=[session_id], keep_deleted=True)
    _tombstone(LakeTables.s3(target), session_id, old)
    return sorted(_keys_of(old))


def forget_local(lake_dir: Path, session_id: str) -> None:
    """A session deleted from a local lake: its catalog row marked deleted (when it has one)."""
    old = read_local_catalog(lake_dir, [session_id], keep_deleted=True)
    if old is not None and old.num_rows:
        _tombstone(LakeTables.local(lake_dir), session_id, old)

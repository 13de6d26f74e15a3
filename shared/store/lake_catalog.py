"""The session catalog of an S3 lake: small Parquet objects, one row per session, one object per writer.

    <prefix>/_catalog/sessions-<writer>.parquet      the rows of the sessions one uploader publishes

A row is the session's ``sessions`` row (driver, car, track, date, best lap, ...) plus ``object_keys``:
every object of the session, relative to the lake prefix, under Hive-style keys
``track=<track>/date=<YYYY-MM-DD>/session=<id>/...``, and ``published_at``. ``/sessions`` reads the catalog
instead of listing the bucket, and the paddock reads a session by its own keys, never by a listing.

Several writers share one prefix safely (two cars publishing to one bucket prefix): each uploader is the
only writer of its own fragment (read, replace the rows of the sessions it uploads, write it back: an
object is replaced atomically), so no writer can overwrite another's rows. A reader lists ``_catalog/``
(one LIST of a handful of keys, never the sessions), reads every fragment and keeps, per session, the row
published last (a deletion is a tombstone row, so it wins over any writer's older row). A conditional
PUT (``If-None-Match`` / ``If-Match``) would allow one shared object, but pyarrow's S3 filesystem does
not send those headers (a second write with ``If-None-Match: *`` replaced the object on SeaweedFS), so
the fragments are what makes concurrent writers safe.
"""

from __future__ import annotations

import contextlib
import re
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.lake_url import LakeTarget

CATALOG_DIR = "_catalog"
KEYS_COLUMN = "object_keys"
DELETED_COLUMN = "deleted"  # a tombstone: the session was deleted (rows of other writers are older)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def hive_base(session_id: str, track_id: str | None, started_at: object) -> str:
    """``track=<track>/date=<YYYY-MM-DD>/session=<id>`` (``unknown`` / ``undated`` when not known)."""
    track = _UNSAFE.sub("_", track_id) if track_id else "unknown"
    date = str(started_at)[:10] if started_at is not None else "undated"
    return f"track={track}/date={_UNSAFE.sub('_', date)}/session={session_id}"


def fragment_key(writer: str) -> str:
    """The catalog object of one writer (an uploader's id: letters, digits, ``-``, ``_``)."""
    return f"{CATALOG_DIR}/sessions-{_UNSAFE.sub('_', writer)}.parquet"


def fragments(fs: pafs.FileSystem, target: LakeTarget) -> list[pafs.FileInfo]:
    """The catalog's fragments (one LIST of ``_catalog/``: a key per writer, never a session's)."""
    sel = pafs.FileSelector(target.path(CATALOG_DIR), allow_not_found=True)
    got = [i for i in fs.get_file_info(sel) if i.type == pafs.FileType.File and i.path.endswith(".parquet")]
    return sorted(got, key=lambda i: i.path)


def read_fragment(fs: pafs.FileSystem, path: str) -> pa.Table | None:
    """One writer's fragment as written (tombstones included), or None when it is gone."""
    try:
        with fs.open_input_stream(path) as f:
            return pq.read_table(pa.BufferReader(f.read()))
    except FileNotFoundError:  # removed between the listing and the read
        return None


def _newest_per_session(table: pa.Table) -> pa.Table:
    """One row per session: the one published last (a session two writers published)."""
    if table.num_rows == 0 or "published_at" not in table.column_names:
        return table
    order = table.sort_by([("session_id", "ascending"), ("published_at", "descending")])
    sids = order.column("session_id").combine_chunks()
    first = pc.not_equal(sids.slice(1), sids.slice(0, len(sids) - 1))  # a session's first row (newest)
    return order.filter(pa.concat_arrays([pa.array([True]), first]))


def read_catalog(
    fs: pafs.FileSystem,
    target: LakeTarget,
    writer: str | None = None,
    listed: list[pafs.FileInfo] | None = None,
) -> pa.Table | None:
    """The catalog (every writer's fragment, one row per session; ``listed``: the fragments when just
    listed), or only ``writer``'s fragment; None when there is none yet."""
    if writer is not None:
        return read_fragment(fs, target.path(fragment_key(writer)))
    infos = fragments(fs, target) if listed is None else listed
    return merge_fragments([t for t in (read_fragment(fs, i.path) for i in infos) if t is not None])


def merge_fragments(parts: list[pa.Table]) -> pa.Table | None:
    """The catalog from its fragments' tables: one row per session, the newest; deleted sessions gone."""
    if not parts:
        return None
    newest = _newest_per_session(pa.concat_tables(parts, promote_options="permissive"))
    if DELETED_COLUMN in newest.column_names:  # a session deleted last: gone, whoever published it
        gone = pc.fill_null(newest.column(DELETED_COLUMN), False)
        newest = newest.filter(pc.invert(gone)).drop_columns([DELETED_COLUMN])
    return newest


def catalog_signature(infos: list[pafs.FileInfo]) -> tuple[int, float]:
    """(a digest of the fragments' names, sizes and times, the newest time): changes whenever any writer
    publishes a session."""
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


def _write(fs: pafs.FileSystem, target: LakeTarget, writer: str, table: pa.Table) -> None:
    with fs.open_output_stream(target.path(fragment_key(writer))) as out:
        pq.write_table(table, out, compression="zstd")


def _keys_of(table: pa.Table | None, session_ids: set[str]) -> set[str]:
    if table is None or table.num_rows == 0:
        return set()
    mask = pc.is_in(table.column("session_id"), pa.array(sorted(session_ids), pa.string()))
    return {k for keys in table.filter(mask).column(KEYS_COLUMN).to_pylist() for k in keys or []}


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


def merge_into_catalog(
    fs: pafs.FileSystem, target: LakeTarget, new: pa.Table, writer: str
) -> tuple[list[str], set[str]]:
    """Replace the rows of the sessions in ``new`` (a row per session) in ``writer``'s fragment, in one
    PUT (merging the same rows again changes nothing). Returns the keys its old rows named and the new
    ones do not (superseded: compacted lap files, a moved session), and the keys the new rows name."""
    sids = set(new.column("session_id").to_pylist())
    old = read_catalog(fs, target, writer)
    before = _keys_of(old, sids)
    if old is not None and old.num_rows:
        keep = old.filter(pc.invert(pc.is_in(old.column("session_id"), pa.array(sorted(sids), pa.string()))))
        new = pa.concat_tables([keep, new], promote_options="permissive")
    _write(fs, target, writer, new.sort_by([("session_id", "ascending")]))
    after = _keys_of(new, sids)
    return sorted(before - after), after


def forget_in_catalog(fs: pafs.FileSystem, target: LakeTarget, session_id: str, writer: str) -> list[str]:
    """A deleted session: its row in ``writer``'s fragment becomes a tombstone (newer than any writer's
    row of it, so the session is gone for every reader even if another writer published it too).
    Returns the keys of its objects (to delete)."""
    old = read_catalog(fs, target, writer)
    keys = _keys_of(old, {session_id})
    tomb = pa.table(
        {
            "session_id": pa.array([session_id], pa.string()),
            KEYS_COLUMN: pa.array([[]], pa.list_(pa.string())),
            "published_at": pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")),
            DELETED_COLUMN: pa.array([True]),
        }
    )
    if old is not None and old.num_rows:
        keep = old.filter(pc.not_equal(old.column("session_id"), session_id))
        tomb = pa.concat_tables([keep, tomb], promote_options="permissive")
    _write(fs, target, writer, tomb.sort_by([("session_id", "ascending")]))
    return sorted(keys)

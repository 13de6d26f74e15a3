"""The session catalog of an S3 lake: one small Parquet object, one row per session.

    <prefix>/_catalog/sessions.parquet

A row is the session's ``sessions`` row (driver, car, track, date, best lap, ...) plus ``object_keys``:
every object of the session, relative to the lake prefix, under Hive-style keys
``track=<track>/date=<YYYY-MM-DD>/session=<id>/...``. ``/sessions`` reads this one object instead of
listing the bucket, and the paddock reads a session by its own keys, never by a listing.

The uploader is its only writer (read, replace the rows of the sessions it uploads, write the whole object
back: an object is replaced atomically). One uploader per lake prefix: cars sharing a bucket use a
prefix each (``s3://series/car-12``); concurrent writers to one catalog could lose a row.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.lake_url import LakeTarget

CATALOG_KEY = "_catalog/sessions.parquet"
KEYS_COLUMN = "object_keys"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def hive_base(session_id: str, track_id: str | None, started_at: object) -> str:
    """``track=<track>/date=<YYYY-MM-DD>/session=<id>`` (``unknown`` / ``undated`` when not known)."""
    track = _UNSAFE.sub("_", track_id) if track_id else "unknown"
    date = str(started_at)[:10] if started_at is not None else "undated"
    return f"track={track}/date={_UNSAFE.sub('_', date)}/session={session_id}"


def read_catalog(fs: pafs.FileSystem, target: LakeTarget) -> pa.Table | None:
    """The catalog table, or None when the lake has none yet."""
    try:
        with fs.open_input_file(target.path(CATALOG_KEY)) as f:
            return pq.read_table(f)
    except FileNotFoundError:
        return None


def catalog_info(fs: pafs.FileSystem, target: LakeTarget) -> tuple[int, float]:
    """(size, mtime) of the catalog object (one HEAD request): changes whenever a session is uploaded."""
    info = fs.get_file_info(target.path(CATALOG_KEY))
    if info.type == pafs.FileType.NotFound:
        return (0, 0.0)
    return (int(info.size or 0), info.mtime.timestamp() if info.mtime else 0.0)


def _write(fs: pafs.FileSystem, target: LakeTarget, table: pa.Table) -> None:
    with fs.open_output_stream(target.path(CATALOG_KEY)) as out:
        pq.write_table(table, out, compression="zstd")


def _keys_of(table: pa.Table | None, session_ids: set[str]) -> set[str]:
    if table is None or table.num_rows == 0:
        return set()
    mask = pc.is_in(table.column("session_id"), pa.array(sorted(session_ids), pa.string()))
    return {k for keys in table.filter(mask).column(KEYS_COLUMN).to_pylist() for k in keys or []}


def merge_into_catalog(
    fs: pafs.FileSystem, target: LakeTarget, row_files: list[Path]
) -> tuple[list[str], set[str]]:
    """Replace the catalog rows of the sessions in ``row_files`` (one-row Parquet files). Returns the
    keys the old rows named and the new ones do not (superseded: compacted lap files, a moved session),
    and the keys the new rows name."""
    new = pa.concat_tables([pq.read_table(f) for f in row_files], promote_options="permissive")
    sids = set(new.column("session_id").to_pylist())
    old = read_catalog(fs, target)
    before = _keys_of(old, sids)
    if old is not None and old.num_rows:
        keep = old.filter(pc.invert(pc.is_in(old.column("session_id"), pa.array(sorted(sids), pa.string()))))
        new = pa.concat_tables([keep, new], promote_options="permissive")
    _write(fs, target, new.sort_by([("session_id", "ascending")]))
    after = _keys_of(new, sids)
    return sorted(before - after), after


def forget_in_catalog(fs: pafs.FileSystem, target: LakeTarget, session_id: str) -> list[str]:
    """Drop a deleted session's row; returns the keys of its objects (to delete)."""
    old = read_catalog(fs, target)
    keys = _keys_of(old, {session_id})
    if old is not None and old.num_rows:
        keep = old.filter(pc.not_equal(old.column("session_id"), session_id))
        if keep.num_rows != old.num_rows:
            _write(fs, target, keep)
    return sorted(keys)

"""The hot path's copy of its lake on S3: each published file goes to the local spool under its Hive key,
with the session's catalog row; the uploader (:mod:`shared.store.uploader`) sends them.

The local lake stays exactly as it is without S3 (the car keeps its own lake and works without a
network). What differs on S3:

* keys are Hive-style, ``track=<track>/date=<YYYY-MM-DD>/session=<id>/<file>`` (:func:`hive_base`);
* while a session is live, each closed lap adds ``telemetry/lap_NNNN.parquet`` and the small per-session
  files; at session end the lap files are **compacted into one** ``telemetry.parquet`` (one row group per
  lap). The catalog row then names the new object; the old lap objects are deleted after a grace period
  (write new, update the catalog, delete old: a reader never finds a key of its catalog missing).
  A crash anywhere in between is finished at the next start (:mod:`shared.store.uploader`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from shared.faults import crash_point
from shared.lake_url import check_s3_lake, s3_filesystem, s3_target
from shared.signals import telemetry_schema
from shared.store.lake_catalog import KEYS_COLUMN, SIZES_COLUMN, hive_base
from shared.store.lake_layout import session_dir
from shared.store.spool import Spool
from shared.store.uploader import Uploader

LIVE_SMALL = ("session", "laps", "corners", "notes", "events", "quality", "analysis")


class LakeMirror:
    def __init__(self, spool: Spool, lake_dir: Path, on_added: Callable[[], None] | None = None) -> None:
        self.spool = spool
        self.lake_dir = lake_dir
        self.on_added = on_added
        self._bases: dict[str, str] = {}  # session -> key base its files went to (a moved one respools)

    def _base(self, con: duckdb.DuckDBPyConnection, sid: str) -> tuple[str, pa.Table]:
        row = con.sql("SELECT * FROM sessions WHERE session_id = ?", params=[sid]).to_arrow_table()
        if row.num_rows == 0:
            raise KeyError(sid)
        r = row.slice(0, 1).to_pylist()[0]
        return hive_base(sid, r.get("track_id"), r.get("started_at")), row

    def _catalog_row(self, sid: str, row: pa.Table, objects: dict[str, int]) -> None:
        """The session's catalog row naming ``objects`` (key -> the size of the file sent under it)."""
        keys = sorted(objects)
        sizes = [objects[k] for k in keys]
        tbl = row.append_column(KEYS_COLUMN, pa.array([keys], pa.list_(pa.string())))
        tbl = tbl.append_column(SIZES_COLUMN, pa.array([sizes], pa.list_(pa.int64())))
        # a new version of the row at every publish: readers cache a session's small tables per version
        tbl = tbl.append_column("published_at", pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")))
        tmp = self.spool.tmp_path(f"row-{sid}.parquet")
        pq.write_table(tbl, tmp)
        self.spool.add_catalog_row(sid, tmp)
        if self.on_added is not None:
            self.on_added()

    def lap_published(self, con: duckdb.DuckDBPyConnection, sid: str, lap: int) -> None:
        """A live session closed ``lap``: its lap file and the small files, then the catalog row."""
        base, row = self._base(con, sid)
        d = session_dir(self.lake_dir, sid)
        laps = sorted((d / "telemetry").glob("lap_*.parquet"))
        if self._bases.get(sid) != base:  # first lap seen by this process, or the session moved
            send = laps
        else:
            send = [p for p in laps if p.name == f"lap_{lap:04d}.parquet"]
        small = [d / f"{s}.parquet" for s in LIVE_SMALL if (d / f"{s}.parquet").exists()]
        for p in [*send, *small]:
            self.spool.add_file(p, f"{base}/{p.relative_to(d).as_posix()}")
        self._bases[sid] = base
        sizes = {f"{base}/{p.relative_to(d).as_posix()}": p.stat().st_size for p in [*laps, *small]}
        self._catalog_row(sid, row, sizes)

    def session_published(self, con: duckdb.DuckDBPyConnection, sid: str) -> None:
        """A whole session (session end, an import, a repair): every small file and one compacted
        ``telemetry.parquet``, then the catalog row naming exactly these objects. Lap files still waiting
        in the spool stay there until the uploader has this row in the bucket (it skips them meanwhile);
        a crash before the row is spooled is redone at the next start (the publisher's marker)."""
        base, row = self._base(con, sid)
        d = session_dir(self.lake_dir, sid)
        files = sorted(d.glob("*.parquet"))
        for p in files:
            self.spool.add_file(p, f"{base}/{p.name}")
        objects = {f"{base}/{p.name}": p.stat().st_size for p in files}
        laps = sorted((d / "telemetry").glob("lap_*.parquet"))
        if laps:
            tmp = self.spool.tmp_path(f"compact-{sid}.parquet")
            compact_laps(laps, tmp)
            # its size before add_file moves it into the spool
            objects[f"{base}/telemetry.parquet"] = tmp.stat().st_size
            self.spool.add_file(tmp, f"{base}/telemetry.parquet", link=False)
        self._bases[sid] = base
        crash_point("compacted_spooled")
        self._catalog_row(sid, row, objects)

    def forget(self, sid: str) -> None:
        """A deleted session: nothing of it waits in the spool; its catalog row and objects go."""
        self._bases.pop(sid, None)
        self.spool.add_forget(sid)
        if self.on_added is not None:
            self.on_added()


def compact_laps(laps: list[Path], out: Path) -> None:
    """The lap files of a session as one Parquet file, one row group per lap, in lap order."""
    schema = telemetry_schema()
    with pq.ParquetWriter(out, schema, compression="zstd") as w:
        for i, p in enumerate(laps):
            w.write_table(pq.read_table(p).cast(schema))
            if i == len(laps) // 2:
                crash_point("compacting")


def mirror_for(settings: Any, on_added: Callable[[], None] | None = None) -> LakeMirror | None:
    """The S3 mirror of the lake when ``PITWALL_LAKE_URL`` is s3://, else None (a local lake only)."""
    if not settings.lake_is_s3:
        return None
    return LakeMirror(Spool(settings.spool_dir), settings.lake_dir, on_added)


def uploader_for(settings: Any, mirror: LakeMirror) -> Uploader:
    return Uploader(mirror.spool, s3_filesystem(settings), s3_target(settings), settings.s3_delete_grace_s)


__all__ = ["LakeMirror", "check_s3_lake", "compact_laps", "mirror_for", "uploader_for"]

"""One session's files, wherever the lake lives: the local directory, or the S3 bucket by the keys the
session's catalog row names (never a listing).

Everything that reads a whole session's files rather than querying the lake (the HTML report, the
``.pitwall`` export, the gold-lap save, the paddock's per-session cache of small tables) reads them through
:class:`SessionFiles`, so it works the same on both lakes. On S3 a finished session's lap files are one
compacted ``telemetry.parquet`` (a row group per lap): :meth:`SessionFiles.lap` reads that lap's row group
only, and :meth:`SessionFiles.members` gives the local layout back (``telemetry/lap_NNNN.parquet``), so an
export from either lake imports the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.lake_url import LakeTarget, s3_filesystem, s3_target
from shared.store.lake_catalog import KEYS_COLUMN, read_catalog
from shared.store.lake_layout import lap_path, session_dir, table_path

_FMT = ds.ParquetFileFormat()


class SessionFiles:
    """The files of one session in the lake (a base class: :class:`LocalSession`, :class:`S3Session`)."""

    session_id: str
    where: str  # for messages: the directory or the key prefix

    def table(self, stem: str, columns: Sequence[str] | None = None) -> pa.Table | None:
        """A per-session table by its file stem (``session``, ``laps``, ...); None when it has none."""
        raise NotImplementedError

    def lap(self, lap: int) -> pa.Table | None:
        """The wide telemetry rows of one lap; None when the lake has no telemetry of that lap."""
        raise NotImplementedError

    def telemetry(self) -> pa.Table | None:
        """Every lap's wide telemetry rows, in lap order; None when the session has none."""
        raise NotImplementedError

    def members(self) -> dict[str, bytes]:
        """Every file of the session in the local layout: ``session.parquet``, ``telemetry/lap_0001.parquet``..."""
        raise NotImplementedError

    def row(self) -> dict[str, Any]:
        """The session's ``sessions`` row (FileNotFoundError when it has none)."""
        got = self.table("session")
        if got is None or got.num_rows == 0:
            raise FileNotFoundError(
                f"session {self.session_id} has no session row in the lake ({self.where})"
            )
        return dict(got.to_pylist()[0])


class LocalSession(SessionFiles):
    def __init__(self, lake_dir: Path, session_id: str) -> None:
        self.lake_dir, self.session_id = lake_dir, session_id
        self.where = str(session_dir(lake_dir, session_id))

    def exists(self) -> bool:
        return table_path(self.lake_dir, self.session_id, "session").is_file()

    def table(self, stem: str, columns: Sequence[str] | None = None) -> pa.Table | None:
        p = table_path(self.lake_dir, self.session_id, stem)
        if not p.is_file():
            return None
        return pq.read_table(p, columns=_present(pq.read_schema(p), columns) if columns else None)

    def lap(self, lap: int) -> pa.Table | None:
        p = lap_path(self.lake_dir, self.session_id, lap)
        return pq.read_table(p) if p.is_file() else None

    def telemetry(self) -> pa.Table | None:
        laps = sorted((session_dir(self.lake_dir, self.session_id) / "telemetry").glob("lap_*.parquet"))
        return pa.concat_tables([pq.read_table(p) for p in laps]) if laps else None

    def members(self) -> dict[str, bytes]:
        src = session_dir(self.lake_dir, self.session_id)
        return {
            p.relative_to(src).as_posix(): p.read_bytes()
            for p in sorted(src.rglob("*"))
            if p.is_file() and not p.name.startswith(".")
        }


class S3Session(SessionFiles):
    """A session in an S3 lake, by the object keys of its catalog row (relative to the lake prefix)."""

    def __init__(self, fs: pafs.FileSystem, target: LakeTarget, session_id: str, keys: Sequence[str]) -> None:
        self.fs, self.target, self.session_id, self.keys = fs, target, session_id, list(keys)
        self.where = f"{target.url}/…/session={session_id}"

    def key(self, stem: str) -> str | None:
        """The key of a per-session table's object (``telemetry``: the compacted lap file)."""
        name = f"{stem}.parquet"
        return next((k for k in self.keys if k.rsplit("/", 1)[-1] == name and "/telemetry/" not in k), None)

    def read_key(self, key: str, columns: Sequence[str] | None = None) -> pa.Table:
        """One object read whole (then ``columns`` of it) as a table: a HEAD and one GET; a Parquet
        reader's own footer and column reads would be 3-5 requests per object."""
        with self.fs.open_input_stream(self.target.path(key)) as f:
            data = f.read()
        pf = pq.ParquetFile(pa.BufferReader(data))
        return pf.read(columns=_present(pf.schema_arrow, columns))

    def table(self, stem: str, columns: Sequence[str] | None = None) -> pa.Table | None:
        key = self.key(stem)
        return self.read_key(key, columns) if key is not None else None

    def lap(self, lap: int) -> pa.Table | None:
        own = next((k for k in self.keys if k.endswith(f"/telemetry/lap_{lap:04d}.parquet")), None)
        if own is not None:  # a live session: a file per lap
            return self.read_key(own)
        key = self.key("telemetry")
        if key is None:
            return None
        frag = _FMT.make_fragment(self.target.path(key), self.fs)
        got = frag.to_table(filter=pc.field("lap") == lap)  # row-group statistics: that lap's group only
        return got if got.num_rows else None

    def telemetry(self) -> pa.Table | None:
        key = self.key("telemetry")
        if key is not None:
            return self.read_key(key)
        laps = sorted(k for k in self.keys if "/telemetry/lap_" in k)
        return pa.concat_tables([self.read_key(k) for k in laps]) if laps else None

    def members(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for key in self.keys:
            rel = key.split(f"session={self.session_id}/", 1)[-1]
            if rel != "telemetry.parquet":
                with self.fs.open_input_stream(self.target.path(key)) as f:
                    out[rel] = f.read()
                continue
            tel = self.read_key(key)
            for lap in sorted(set(tel.column("lap").to_pylist())):
                buf = pa.BufferOutputStream()
                pq.write_table(tel.filter(pc.equal(tel.column("lap"), lap)), buf, compression="zstd")
                out[f"telemetry/lap_{int(lap):04d}.parquet"] = buf.getvalue().to_pybytes()
        return dict(sorted(out.items()))


def _present(schema: pa.Schema, columns: Sequence[str] | None) -> list[str] | None:
    """The asked-for columns the file has (an older file may lack a newer column); None: all."""
    return None if columns is None else [c for c in columns if c in schema.names]


def open_session(settings: Any, session_id: str) -> SessionFiles | None:
    """A session's files: the local lake when it holds the session (the car's own copy), else, on an S3
    lake, the bucket by the session's catalog row (the catalog table's rows of that session). None: not
    in the lake."""
    local = LocalSession(settings.lake_dir, session_id)
    if local.exists() or not settings.lake_is_s3:
        return local if local.exists() else None
    fs, target = s3_filesystem(settings), s3_target(settings)
    cat = read_catalog(fs, target, session_ids=[session_id])
    if cat is None:
        return None
    mine = cat.filter(pc.equal(cat.column("session_id"), session_id))
    if mine.num_rows == 0:
        return None
    return S3Session(fs, target, session_id, mine.column(KEYS_COLUMN)[0].as_py() or [])

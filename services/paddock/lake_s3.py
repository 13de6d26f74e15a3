"""The paddock's reader of an S3 lake: the session catalog, and Arrow datasets DuckDB scans.

Nothing lists the bucket. The catalog (one GET, :mod:`shared.store.lake_catalog`) names every object of
every session; each table is a pyarrow dataset built from those keys, one fragment per object, tagged with
its session (and a lap file with its lap) as a partition expression. DuckDB pushes ``session_id = ?`` (and
``lap = ?``) into the scan, so a query about one session opens only that session's objects; a driver's
history opens only the sessions it names. The sandboxed connection reads no file and no URL itself (httpfs
is not loaded, external access is off): the datasets are the only way to the bucket, and they hold only
the lake prefix's keys.
"""

from __future__ import annotations

import re
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.lake_url import LakeTarget, explain, s3_filesystem, s3_target
from shared.signals import registry_schema, signals_schema, telemetry_schema
from shared.store.lake_catalog import KEYS_COLUMN, catalog_info, read_catalog
from shared.store.schema import ALL_DDL, LAKE_TABLES

_LAP = re.compile(r"/telemetry/lap_(\d+)\.parquet$")
_FMT = ds.ParquetFileFormat()
_DATA_TABLES = [*(t for t in LAKE_TABLES if t != "sessions"), "telemetry"]
_FIXED_SCHEMAS = {
    "telemetry": telemetry_schema,
    "telemetry_signals": signals_schema,
    "signal_registry": registry_schema,
}


def _table_schemas() -> dict[str, pa.Schema]:
    con = duckdb.connect()
    try:
        for ddl in ALL_DDL:
            con.execute(ddl)
        out = {t: con.sql(f"SELECT * FROM {t} LIMIT 0").to_arrow_table().schema for t in LAKE_TABLES}
    finally:
        con.close()
    for t, fn in _FIXED_SCHEMAS.items():
        out[t] = fn()
    return out


def _stem_of(key: str) -> str:
    """The table file stem of an object key (``telemetry`` for lap files and the compacted file)."""
    if "/telemetry/" in key or key.endswith("/telemetry.parquet"):
        return "telemetry"
    return key.rsplit("/", 1)[-1].removesuffix(".parquet")


class S3Lake:
    def __init__(self, settings: Any, fs: pafs.FileSystem | None = None) -> None:
        self.settings = settings
        self.fs = fs if fs is not None else s3_filesystem(settings)
        self.target: LakeTarget = s3_target(settings)
        self.schemas = _table_schemas()
        self.tables: dict[str, Any] = {}  # view name -> Arrow table or dataset, registered per cursor
        self.keys: dict[str, list[str]] = {}  # session id -> its object keys (from the catalog)
        self.catalog: pa.Table | None = None
        self._by_session: dict[str, dict[str, list[ds.Fragment]]] = {}

    def signature(self) -> tuple[int, float]:
        try:
            return catalog_info(self.fs, self.target)
        except OSError as exc:
            raise explain(exc, self.settings) from exc

    def fetch(self) -> None:
        """Read the catalog (one GET)."""
        try:
            cat = read_catalog(self.fs, self.target)
        except OSError as exc:
            raise explain(exc, self.settings) from exc
        self.catalog = cat
        sids = cat.column("session_id").to_pylist() if cat is not None else []
        keys = cat.column(KEYS_COLUMN).to_pylist() if cat is not None else []
        self.keys = {s: list(k or []) for s, k in zip(sids, keys, strict=True)}

    def build(self, skip: frozenset[str]) -> dict[str, int]:
        """Build the datasets from the catalog (no object is opened). Returns fragments per view."""
        cat = self.catalog
        sessions = self.schemas["sessions"]
        if cat is not None and cat.num_rows:
            keep = cat.filter(
                pc.invert(pc.is_in(cat.column("session_id"), pa.array(sorted(skip), pa.string())))
            )
            cols = [
                keep.column(f.name).cast(f.type)
                if f.name in keep.column_names
                else pa.nulls(keep.num_rows, f.type)
                for f in sessions
            ]
            tables: dict[str, Any] = {"sessions": pa.Table.from_arrays(cols, schema=sessions)}
        else:
            tables = {"sessions": sessions.empty_table()}
        frags: dict[str, list[ds.Fragment]] = {t: [] for t in _DATA_TABLES}
        by_session: dict[str, dict[str, list[ds.Fragment]]] = {}
        by_stem = {stem: t for t, stem in LAKE_TABLES.items()} | {"telemetry": "telemetry"}
        for sid, keys in sorted(self.keys.items()):
            if sid in skip:
                continue
            mine: dict[str, list[ds.Fragment]] = {t: [] for t in _DATA_TABLES}
            for key in keys:
                table = by_stem.get(_stem_of(key))
                if table is None or table == "sessions":
                    continue
                expr = pc.field("session_id") == sid
                if m := _LAP.search(key):
                    expr = expr & (pc.field("lap") == int(m.group(1)))
                frag = _FMT.make_fragment(self.target.path(key), self.fs, partition_expression=expr)
                frags[table].append(frag)
                mine[table].append(frag)
            by_session[sid] = mine
        for table, fr in frags.items():
            tables[table] = ds.FileSystemDataset(fr, self.schemas[table], _FMT, self.fs)
        self.tables, self._by_session = tables, by_session
        return {"sessions": tables["sessions"].num_rows} | {t: len(f) for t, f in frags.items()}

    def register(self, cur: duckdb.DuckDBPyConnection, scope: list[str] | None = None) -> None:
        """Make the lake's tables visible on a cursor (registrations are per connection). ``scope``: the
        per-session views of these sessions only (the catalog's ``sessions`` stays whole), so pyarrow
        never weighs the other sessions' objects (about 25 us each per query: 25 ms at 1,000 sessions)."""
        if scope is None:
            for name, obj in self.tables.items():
                cur.register(name, obj)
            return
        cur.register("sessions", self.tables["sessions"])
        for table in _DATA_TABLES:
            fr = [f for sid in scope for f in self._by_session.get(sid, {}).get(table, [])]
            cur.register(table, ds.FileSystemDataset(fr, self.schemas[table], _FMT, self.fs))

    def known(self, session_id: str) -> bool:
        return session_id in self._by_session

    def files_signature(self, session_id: str) -> tuple[tuple[str, int, int], ...]:
        return tuple((k, 0, 0) for k in self.keys.get(session_id, []))

    def deep_problem(self, session_id: str) -> dict[str, str] | None:
        """Read every object of the session whole: the first that does not read is the problem."""
        for key in self.keys.get(session_id, []):
            try:
                with self.fs.open_input_file(self.target.path(key)) as f:
                    pq.read_table(f)
            except FileNotFoundError:
                return {"file": key, "reason": "missing from the bucket"}
            except OSError as exc:
                why = explain(exc, self.settings)
                if not why.reachable:
                    return None  # the server is down: a failed read, not a damaged session
                return {"file": key, "reason": str(why)}
            except Exception as exc:  # a damaged Parquet object
                return {"file": key, "reason": str(exc).splitlines()[0][:200]}
        return None

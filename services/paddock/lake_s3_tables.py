"""The lake's tables as the S3 reader sees them: their schemas, and which table an object key belongs to.

A session's objects are named by its catalog row; a key's file stem names its table (a lap file and the
compacted telemetry file are ``telemetry``). The small tables are read whole and kept per session.
"""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa

from shared.signals import registry_schema, signals_schema, telemetry_schema
from shared.store.schema import ALL_DDL, LAKE_TABLES

LAP_KEY = re.compile(r"/telemetry/lap_(\d+)\.parquet$")
DATA_TABLES = [*(t for t in LAKE_TABLES if t != "sessions"), "telemetry"]
BY_STEM = {stem: t for t, stem in LAKE_TABLES.items()} | {"telemetry": "telemetry"}
# read whole and kept in memory per session (tens of kB); telemetry and the long signals table are not
SMALL_TABLES = frozenset(
    {
        "laps",
        "corner_results",
        "coaching_notes",
        "driver_events",
        "signal_registry",
        "session_quality",
        "corner_analysis",
    }
)


def conform(tbl: pa.Table, schema: pa.Schema) -> pa.Table:
    """``tbl`` with exactly ``schema``'s columns (a file written before a column was added: nulls)."""
    cols = [
        tbl.column(f.name).cast(f.type) if f.name in tbl.column_names else pa.nulls(tbl.num_rows, f.type)
        for f in schema
    ]
    return pa.Table.from_arrays(cols, schema=schema)


_FIXED_SCHEMAS = {
    "telemetry": telemetry_schema,
    "telemetry_signals": signals_schema,
    "signal_registry": registry_schema,
}


def table_schemas() -> dict[str, pa.Schema]:
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


def stem_of(key: str) -> str:
    """The table file stem of an object key (``telemetry`` for lap files and the compacted file)."""
    if "/telemetry/" in key or key.endswith("/telemetry.parquet"):
        return "telemetry"
    return key.rsplit("/", 1)[-1].removesuffix(".parquet")

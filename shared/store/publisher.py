"""Publishing the hot store to the immutable Parquet lake, and the views readers build over it."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa

from shared.signals import WIDE_COLUMNS, registry_schema, signals_schema, telemetry_schema
from shared.store.lake_layout import glob_for, lap_path, session_dir, table_path, write_parquet_atomic
from shared.store.schema import ALL_DDL, LAKE_TABLES

log = logging.getLogger(__name__)


class LakePublisher:
    """Copies a session's rows from the hot DuckDB file into Parquet files (tmp name + os.replace)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, lake_dir: Path) -> None:
        self.con = con
        self.lake_dir = lake_dir

    def _arrow(self, sql: str, params: list[object]) -> pa.Table:
        return self.con.sql(sql, params=params).to_arrow_table()

    def publish_lap(self, session_id: str, lap: int) -> Path:
        tbl = self._arrow(
            "SELECT * FROM telemetry WHERE session_id = ? AND lap = ? ORDER BY t_s", [session_id, lap]
        )
        path = write_parquet_atomic(tbl.cast(telemetry_schema()), lap_path(self.lake_dir, session_id, lap))
        self.publish_small(session_id)
        return path

    def publish_small(self, session_id: str) -> None:
        """The per-session tables that change as laps close (everything but telemetry and signals)."""
        for table, stem in LAKE_TABLES.items():
            if table in ("telemetry_signals", "signal_registry"):
                continue
            tbl = self._arrow(f"SELECT * FROM {table} WHERE session_id = ?", [session_id])
            write_parquet_atomic(tbl, table_path(self.lake_dir, session_id, stem))

    def publish_session(self, session_id: str, truth_json: str | None = None) -> Path:
        laps = [
            r[0]
            for r in self.con.execute(
                "SELECT DISTINCT lap FROM telemetry WHERE session_id = ? ORDER BY lap", [session_id]
            ).fetchall()
        ]
        for lap in laps:
            tbl = self._arrow(
                "SELECT * FROM telemetry WHERE session_id = ? AND lap = ? ORDER BY t_s", [session_id, lap]
            )
            write_parquet_atomic(tbl.cast(telemetry_schema()), lap_path(self.lake_dir, session_id, lap))
        sig = self._arrow("SELECT * FROM telemetry_signals WHERE session_id = ?", [session_id])
        write_parquet_atomic(sig.cast(signals_schema()), table_path(self.lake_dir, session_id, "signals"))
        reg = self._arrow("SELECT * FROM signal_registry WHERE session_id = ?", [session_id])
        write_parquet_atomic(reg.cast(registry_schema()), table_path(self.lake_dir, session_id, "registry"))
        if truth_json is not None:
            (session_dir(self.lake_dir, session_id) / "truth.json").write_text(truth_json, encoding="utf-8")
        self.publish_small(session_id)  # session.parquet last: readers treat it as "session complete"
        return session_dir(self.lake_dir, session_id)

    def remove_session(self, session_id: str) -> None:
        shutil.rmtree(session_dir(self.lake_dir, session_id), ignore_errors=True)


def lake_reader_views(con: duckdb.DuckDBPyConnection, lake_dir: Path) -> dict[str, int]:
    """Create (or replace) views over the lake on ``con``; empty typed views where no files exist yet.

    Returns the number of files behind each view.
    """
    counts: dict[str, int] = {}
    empty = duckdb.connect()
    try:
        for ddl in ALL_DDL:
            empty.execute(ddl)
        views = {**LAKE_TABLES, "telemetry": "telemetry"}
        for table, stem in views.items():
            pattern = glob_for(lake_dir, stem)
            files = sorted(Path(lake_dir).glob(str(Path(pattern).relative_to(lake_dir))))
            counts[table] = len(files)
            if files:
                con.execute(
                    f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet({json.dumps([str(f) for f in files])}, "
                    "union_by_name = true)"
                )
            else:
                cols = empty.execute(f"DESCRIBE {table}").fetchall()
                sel = ", ".join(f"CAST(NULL AS {c[1]}) AS {c[0]}" for c in cols)
                con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT {sel} WHERE false")
    finally:
        empty.close()
    return counts


__all__ = ["WIDE_COLUMNS", "LakePublisher", "lake_reader_views"]

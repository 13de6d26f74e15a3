"""The hot store: the one process that opens the hot DuckDB file read-write.

Imports write a whole session in one transaction from Arrow tables (never row by row); a failure rolls
back and leaves nothing behind. The paddock never opens this file: it reads the Parquet lake.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa

from shared.settings import Settings
from shared.signals import WIDE_COLUMNS, registry_schema, signals_schema, telemetry_schema
from shared.store.schema import ADDED_COLUMNS, ALL_DDL

log = logging.getLogger(__name__)


class StoreLockedError(RuntimeError):
    """Another process holds the hot DuckDB file."""


def new_session_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def open_hot_db(settings: Settings) -> duckdb.DuckDBPyConnection:
    settings.ensure_dirs()
    path = settings.hot_db_path
    try:
        con = duckdb.connect(str(path))
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise StoreLockedError(
                f"{path} is held by another process (DuckDB allows one writer). Stop the running hot path "
                "(pitwall hotpath) or import through it."
            ) from exc
        raise
    con.execute(
        f"SET memory_limit='{int(settings.duckdb_memory_limit_mb)}MB'"
    )  # PITWALL_DUCKDB_MEMORY_LIMIT_MB
    for ddl in ALL_DDL:
        con.execute(ddl)
    for table, column, sql_type in ADDED_COLUMNS:  # a file from an older version
        con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {sql_type}")
    return con


def store_locked(settings: Settings) -> bool:
    """Is the hot DuckDB file held by another process (a running hot path)?"""
    try:
        open_hot_db(settings).close()
    except StoreLockedError:
        return True
    return False


@dataclass
class SessionBundle:
    """A whole session ready to store: one row per table plus Arrow tables for the big ones."""

    session: dict[str, Any]
    laps: list[dict[str, Any]]
    telemetry: pa.Table
    signals: pa.Table | None = None
    registry: pa.Table | None = None
    corners: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    quality: list[dict[str, Any]] = field(default_factory=list)  # session_quality rows (imports)


def rows_table(
    con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]], session_id: str
) -> pa.Table:
    """Rows as an Arrow table typed like the DuckDB table (missing columns are NULL)."""
    cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
    data = {c: [r.get(c) for r in rows] for c in cols if c != "created_at"}
    data["session_id"] = [r.get("session_id") or session_id for r in rows]
    return pa.table(data)


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, tbl: pa.Table) -> None:
    if tbl.num_rows == 0:
        return
    con.register("_pw_batch", tbl)
    try:
        names = ", ".join(tbl.column_names)
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _pw_batch")
    finally:
        con.unregister("_pw_batch")


def mark_best_lap(con: duckdb.DuckDBPyConnection, session_id: str) -> None:
    """Exactly one best lap a session: the fastest valid full lap (the earlier of a tie); none without one.
    A live session marks each new best as it closes; this clears the laps it beat."""
    con.execute(
        """UPDATE laps SET is_best = coalesce(lap = (
               SELECT lap FROM laps WHERE session_id = $sid AND kind = 'full' AND valid
               ORDER BY time_s, lap LIMIT 1), false)
           WHERE session_id = $sid""",
        {"sid": session_id},
    )


class HotStore:
    def __init__(self, settings: Settings, con: duckdb.DuckDBPyConnection | None = None) -> None:
        self.settings = settings
        self.con = con or open_hot_db(settings)

    def close(self) -> None:
        self.con.close()

    # ---- writes ---------------------------------------------------------------
    def write_bundle(self, b: SessionBundle) -> str:
        sid = b.session["session_id"]
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            insert_arrow(con, "sessions", rows_table(con, "sessions", [b.session], sid))
            insert_arrow(con, "laps", rows_table(con, "laps", b.laps, sid))
            insert_arrow(con, "telemetry", b.telemetry)
            if b.signals is not None:
                insert_arrow(con, "telemetry_signals", b.signals)
            if b.registry is not None:
                insert_arrow(con, "signal_registry", b.registry)
            insert_arrow(con, "corner_results", rows_table(con, "corner_results", b.corners, sid))
            insert_arrow(con, "driver_events", rows_table(con, "driver_events", b.events, sid))
            insert_arrow(con, "coaching_notes", rows_table(con, "coaching_notes", b.notes, sid))
            insert_arrow(con, "session_quality", rows_table(con, "session_quality", b.quality, sid))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return sid

    def delete_session(self, session_id: str) -> None:
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            for t in (
                "sessions",
                "laps",
                "telemetry",
                "telemetry_signals",
                "signal_registry",
                "corner_results",
                "driver_events",
                "coaching_notes",
                "session_quality",
            ):
                con.execute(f"DELETE FROM {t} WHERE session_id = ?", [session_id])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def start_live_session(self, row: dict[str, Any]) -> str:
        sid = row.get("session_id") or new_session_id()
        row = {**row, "session_id": sid, "status": "live", "source_format": row.get("source_format", "live")}
        row.setdefault("started_at", datetime.now(UTC).replace(tzinfo=None))
        insert_arrow(self.con, "sessions", rows_table(self.con, "sessions", [row], sid))
        return sid

    def set_session_track(self, session_id: str, track_id: str, track_name: str) -> None:
        """A live session's track, found after it started (from its GPS fixes)."""
        self.con.execute(
            "UPDATE sessions SET track_id = ?, track_name = ? WHERE session_id = ?",
            [track_id, track_name, session_id],
        )

    def close_session(self, session_id: str, status: str = "closed") -> None:
        mark_best_lap(self.con, session_id)
        self.con.execute(
            """UPDATE sessions SET status = ?, ended_at = current_timestamp,
                 n_laps = (SELECT count(*) FROM laps WHERE session_id = ? AND kind = 'full'),
                 best_lap_s = (SELECT min(time_s) FROM laps WHERE session_id = ? AND kind = 'full' AND valid),
                 rows = (SELECT count(*) FROM telemetry WHERE session_id = ?)
               WHERE session_id = ?""",
            [status, session_id, session_id, session_id, session_id],
        )

    def open_live_sessions(self) -> list[str]:
        return [
            r[0] for r in self.con.execute("SELECT session_id FROM sessions WHERE status = 'live'").fetchall()
        ]

    # ---- reads -------------------------------------------------------------------
    def session_by_sha(self, sha256: str) -> str | None:
        r = self.con.execute("SELECT session_id FROM sessions WHERE source_sha256 = ?", [sha256]).fetchone()
        return r[0] if r else None

    def sessions(self) -> list[dict[str, Any]]:
        return _dicts(self.con.execute("SELECT * FROM sessions ORDER BY created_at DESC, session_id DESC"))

    def session(self, session_id: str) -> dict[str, Any] | None:
        rows = _dicts(self.con.execute("SELECT * FROM sessions WHERE session_id = ?", [session_id]))
        return rows[0] if rows else None

    def laps(self, session_id: str) -> list[dict[str, Any]]:
        return _dicts(self.con.execute("SELECT * FROM laps WHERE session_id = ? ORDER BY lap", [session_id]))

    def counts(self) -> dict[str, int]:
        out = {}
        for t in (
            "sessions",
            "laps",
            "telemetry",
            "telemetry_signals",
            "signal_registry",
            "corner_results",
            "driver_events",
            "coaching_notes",
        ):
            r = self.con.execute(f"SELECT count(*) FROM {t}").fetchone()
            out[t] = int(r[0]) if r else 0
        return out


def _dicts(rel: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cols = [d[0] for d in rel.description or []]
    return [dict(zip(cols, row, strict=True)) for row in rel.fetchall()]


def wide_to_arrow(wide: dict[str, Any], session_id: str) -> pa.Table:
    """A Wide dict (numpy arrays, NaN = missing) as the ``telemetry`` Arrow table (NaN -> NULL)."""
    import numpy as np

    n = len(wide["t_s"])
    schema = telemetry_schema()
    cols: dict[str, pa.Array] = {
        "session_id": pa.array([session_id] * n, pa.string()),
        "lap": pa.array(np.asarray(wide.get("lap", np.zeros(n)), dtype=np.int32)),
    }
    for c in WIDE_COLUMNS:
        v = wide.get(c)
        cols[c] = pa.array(
            np.full(n, np.nan) if v is None else np.asarray(v, dtype=np.float64),
            pa.float64(),
            from_pandas=True,
        )
    return pa.Table.from_pydict(cols, schema=schema)


def signals_to_arrow(raw: Any, session_id: str, max_rows: int | None = None) -> pa.Table:
    """Every source channel of a RawLog as the long ``telemetry_signals`` table."""
    import numpy as np

    names, ts, vals = [], [], []
    for name, ch in raw.channels.items():
        names.append(np.full(len(ch.t_s), name, dtype=object))
        ts.append(ch.t_s)
        vals.append(ch.values)
    if not names:
        return signals_schema().empty_table()
    t = np.concatenate(ts)
    v = np.concatenate(vals).astype(np.float64)
    nm = np.concatenate(names)
    return pa.Table.from_pydict(
        {
            "session_id": pa.array(np.full(len(t), session_id, dtype=object), pa.string()),
            "name": pa.array(nm, pa.string()),
            "t_s": pa.array(t, pa.float64()),
            "value": pa.array(v, pa.float64(), from_pandas=True),
        },
        schema=signals_schema(),
    )


def registry_to_arrow(rows: list[dict[str, Any]], session_id: str) -> pa.Table:
    return pa.Table.from_pylist([{**r, "session_id": session_id} for r in rows], schema=registry_schema())

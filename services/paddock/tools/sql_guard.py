"""``query_pitwall_db``: read-only SQL over the lake, checked by DuckDB's own parser, not patterns.

* exactly one statement, and DuckDB must classify it as a SELECT (WITH ... SELECT included);
* wrapped as ``SELECT * FROM (<stmt>) LIMIT 501`` so no comment or string can lift the 500-row cap;
* memory is bounded inside the query, before Python sees a row: every cell that is not a fixed-size value
  is cut in SQL (``left(CAST(c AS VARCHAR), n)``, n = CELL_CAP + 1, smaller when there are many columns so
  501 rows stay within RESULT_BYTES), and rows are fetched in small batches until FETCH_CHARS is reached;
* the answer is cut at a character budget, and a timer interrupts runaway queries;
* the connection is sandboxed (file access only inside the lake, settings locked);
* every refusal is a structured error an LLM can correct from.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import duckdb

ROW_CAP = 500
CHAR_CAP = 20_000
TIMEOUT_S = 5.0
MAX_SQL_CHARS = 10_000
CELL_CAP = 2000
RESULT_BYTES = 32 * 2**20  # what 501 rows of cut cells may take inside DuckDB
FETCH_CHARS = 1_000_000  # rows are fetched until their cells hold this much text (the answer is 20,000)
_BATCH = 50
# fixed-size values, passed through as they are; anything else (text, blobs, lists, structs, maps, JSON,
# enums, bit strings, unions) is cut as text inside the query
_FIXED = {
    "boolean", "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint", "uinteger",
    "ubigint", "uhugeint", "float", "double", "decimal", "date", "time", "timestamp", "timestamp_s",
    "timestamp_ms", "timestamp_ns", "timestamp with time zone", "time with time zone", "interval", "uuid",
    "null",
}  # fmt: skip


def _err(code: str, message: str, hint: str = "") -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "hint": hint}}


def check_sql(sql: str) -> dict[str, Any] | str:
    """The statement to run, or an error object."""
    if not isinstance(sql, str) or not sql.strip():
        return _err("empty", "no SQL given", "send one SELECT statement")
    if len(sql) > MAX_SQL_CHARS:
        return _err(
            "too_large", f"SQL is {len(sql)} characters; the limit is {MAX_SQL_CHARS}", "simplify the query"
        )
    try:
        stmts = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        return _err("parse_error", str(exc).splitlines()[0], "check the syntax; DuckDB SQL dialect")
    if len(stmts) != 1:
        return _err(
            "multiple_statements", f"{len(stmts)} statements; exactly one is allowed", "send one SELECT"
        )
    st = stmts[0]
    if st.type != duckdb.StatementType.SELECT:
        return _err(
            "not_select",
            f"{st.type.name} statements are not allowed",
            "read-only: use SELECT (or WITH ... SELECT)",
        )
    return st.query


def run_query(con: duckdb.DuckDBPyConnection, sql: str, timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    checked = check_sql(sql)
    if isinstance(checked, dict):
        return checked
    body = checked.strip().rstrip(";")
    timer = threading.Timer(timeout_s, con.interrupt)
    timer.start()
    try:
        cols, types = _shape(con, body)
        rows, fetch_cut = _fetch(con, _bounded(body, types), cols)
    except duckdb.InterruptException:
        return _err(
            "timeout",
            f"the query ran longer than {timeout_s:g} s and was stopped",
            "filter earlier, aggregate, avoid cross joins",
        )
    except duckdb.BinderException as exc:
        return _err(
            "binder_error",
            str(exc).splitlines()[0],
            "check table and column names: sessions, laps, telemetry, corner_results, coaching_notes, driver_events",
        )
    except duckdb.Error as exc:
        msg = str(exc).splitlines()[0]
        code = (
            "permission_denied" if "permission" in msg.lower() or "disabled" in msg.lower() else "query_error"
        )
        return _err(code, msg, "only the lake's tables can be read")
    finally:
        timer.cancel()
    truncated = len(rows) > ROW_CAP
    rows = rows[:ROW_CAP]
    cut_cells = [0]
    data = [dict(zip(cols, [_plain(v, cut_cells) for v in r], strict=True)) for r in rows]
    text = json.dumps(data, default=str)
    char_cut = cut_cells[0] > 0 or fetch_cut
    while len(text) > CHAR_CAP and data:
        data = data[: max(1, len(data) // 2)] if len(data) > 1 else []
        text = json.dumps(data, default=str)
        char_cut = True
    return {
        "columns": cols,
        "rows": data,
        "row_count": len(data),
        "truncated": truncated or char_cut,
        "row_cap": ROW_CAP,
        "char_cap": CHAR_CAP,
    }


def _shape(con: duckdb.DuckDBPyConnection, body: str) -> tuple[list[str], list[str]]:
    """The statement's column names and type ids, from binding it (nothing is read)."""
    rel = con.sql(f"SELECT * FROM (\n{body}\n) AS pitwall_q LIMIT 0")
    return list(rel.columns), [str(t.id).lower() for t in rel.types]


def _bounded(body: str, types: list[str]) -> str:
    """The statement wrapped so that at most ROW_CAP + 1 rows leave DuckDB and every cell that can grow
    is cut (to CELL_CAP + 1 characters, or fewer when many columns share RESULT_BYTES)."""
    n = len(types)
    cut = max(64, min(CELL_CAP, RESULT_BYTES // max(1, n * (ROW_CAP + 1)))) + 1
    names = [f"c{i}" for i in range(n)]
    sel = ", ".join(
        c if t in _FIXED else f"left(CAST({c} AS VARCHAR), {cut})" for c, t in zip(names, types, strict=True)
    )
    return f"SELECT {sel} FROM (\n{body}\n) AS pitwall_q({', '.join(names)}) LIMIT {ROW_CAP + 1}"


def _fetch(con: duckdb.DuckDBPyConnection, sql: str, cols: list[str]) -> tuple[list[tuple[Any, ...]], bool]:
    """Rows in small batches until ROW_CAP + 1 rows or FETCH_CHARS of text; True when text stopped it."""
    rel = con.execute(sql)
    rows: list[tuple[Any, ...]] = []
    chars = 0
    while len(rows) <= ROW_CAP:
        got = rel.fetchmany(_BATCH)
        if not got:
            return rows, False
        for r in got:
            rows.append(r)
            chars += sum(len(v) for v in r if isinstance(v, str))
            if chars > FETCH_CHARS:
                return rows, True
    return rows, False


def _plain(v: Any, cut: list[int]) -> Any:
    """A JSON-ready cell; long strings are cut at CELL_CAP characters (counted in ``cut``)."""
    if isinstance(v, str) and len(v) > CELL_CAP:
        cut[0] += 1
        return v[:CELL_CAP] + "…"
    if isinstance(v, float) and v != v:
        return None
    return v

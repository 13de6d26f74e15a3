"""``query_pitwall_db``: read-only SQL over the lake, checked by DuckDB's own parser, not patterns.

* exactly one statement, and DuckDB must classify it as a SELECT (WITH ... SELECT included);
* wrapped as ``SELECT * FROM (<stmt>) LIMIT 501`` so no comment or string can lift the 500-row cap;
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
    wrapped = f"SELECT * FROM (\n{body}\n) AS pitwall_q LIMIT {ROW_CAP + 1}"
    timer = threading.Timer(timeout_s, con.interrupt)
    timer.start()
    try:
        rel = con.execute(wrapped)
        cols = [d[0] for d in rel.description or []]
        rows = rel.fetchall()
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
    char_cut = cut_cells[0] > 0
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


CELL_CAP = 2000


def _plain(v: Any, cut: list[int]) -> Any:
    """A JSON-ready cell; long strings are cut at CELL_CAP characters (counted in ``cut``)."""
    if isinstance(v, str) and len(v) > CELL_CAP:
        cut[0] += 1
        return v[:CELL_CAP] + "…"
    if isinstance(v, float) and v != v:
        return None
    return v

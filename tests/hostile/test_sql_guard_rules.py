"""``query_pitwall_db``'s rules one by one, on the real sandboxed DuckDB connection of an empty lake
(fast enough to mutation-test ``services/paddock/tools/sql_guard.py`` against)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.paddock.lake import Lake
from services.paddock.tools import sql_guard
from services.paddock.tools.sql_guard import check_sql, run_query
from shared.settings import settings_for


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    lk = Lake(settings_for(tmp_path_factory.mktemp("guard") / "data"))
    yield lk
    lk.con.close()  # no DuckDB connection outlives its tests (see tests/conftest.py)


@pytest.mark.parametrize(
    "sql,code",
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("SELEC 1", "parse_error"),
        ("SELECT 1; SELECT 2", "multiple_statements"),
        ("DROP VIEW laps", "not_select"),
        ("COPY (SELECT 1) TO '/tmp/x.csv'", "not_select"),
        ("SET threads = 1", "not_select"),
        ("ATTACH ':memory:' AS m", "not_select"),
    ],
)
def test_refusals_are_structured(sql: str, code: str) -> None:
    out = check_sql(sql)
    assert isinstance(out, dict) and out["error"]["code"] == code, out
    assert out["error"]["message"] and out["error"]["hint"]


HINTS = {
    "": ("empty", "no SQL given", "send one SELECT statement"),
    "SELECT 1; SELECT 2": ("multiple_statements", "2 statements; exactly one is allowed", "send one SELECT"),
    "DROP VIEW laps": (
        "not_select",
        "DROP statements are not allowed",
        "read-only: use SELECT (or WITH ... SELECT)",
    ),
}


def test_refusals_name_the_fix() -> None:
    for sql, (code, message, hint) in HINTS.items():
        assert check_sql(sql) == {"error": {"code": code, "message": message, "hint": hint}}
    parse = check_sql("SELEC 1")
    assert isinstance(parse, dict) and parse["error"]["hint"] == "check the syntax; DuckDB SQL dialect"
    assert parse["error"]["message"].startswith("Parser Error")
    big = check_sql("SELECT 1" + " " * 20_000)
    assert isinstance(big, dict) and big["error"]["hint"] == "simplify the query"


def test_refusal_messages_say_what_was_wrong() -> None:
    assert check_sql(None)["error"]["code"] == "empty"  # type: ignore[arg-type, index]
    assert check_sql("SELECT 1; SELECT 2")["error"]["message"].startswith("2 statements")  # type: ignore[index]
    assert check_sql("DROP VIEW laps")["error"]["message"] == "DROP statements are not allowed"  # type: ignore[index]
    n = sql_guard.MAX_SQL_CHARS
    ok = "SELECT 1" + " " * (n - len("SELECT 1"))
    assert isinstance(check_sql(ok), str)
    big = check_sql(ok + " ")
    assert isinstance(big, dict) and big["error"]["code"] == "too_large"
    assert big["error"]["message"] == f"SQL is {n + 1} characters; the limit is {n}"
    assert (
        check_sql("WITH a AS (SELECT 1 AS x) SELECT x FROM a") == "WITH a AS (SELECT 1 AS x) SELECT x FROM a"
    )


def test_documented_caps() -> None:
    assert (
        sql_guard.ROW_CAP,
        sql_guard.CHAR_CAP,
        sql_guard.TIMEOUT_S,
        sql_guard.MAX_SQL_CHARS,
        sql_guard.CELL_CAP,
    ) == (500, 20_000, 5.0, 10_000, 2000)


def test_row_cap_cannot_be_lifted(lake: Lake) -> None:
    full = run_query(lake.cursor(), "SELECT * FROM range(500) t(i)")
    assert full["row_count"] == 500 and full["truncated"] is False
    assert full["columns"] == ["i"] and full["rows"][0] == {"i": 0} and full["rows"][-1] == {"i": 499}
    assert full["row_cap"] == 500 and full["char_cap"] == 20_000
    for sql in (
        "SELECT * FROM range(501) t(i)",
        "SELECT * FROM range(100000) t(i) LIMIT 100000",
        "SELECT * FROM range(100000) t(i) -- LIMIT 100000",
        "SELECT * FROM range(100000) t(i);",
    ):
        out = run_query(lake.cursor(), sql)
        assert out["row_count"] == 500 and out["truncated"] is True, sql


def test_char_cap_halves_until_it_fits(lake: Lake) -> None:
    out = run_query(lake.cursor(), "SELECT repeat('x', 100) AS s FROM range(400)")
    import json

    assert out["truncated"] is True
    assert len(json.dumps(out["rows"])) <= 20_000
    assert out["row_count"] == 100  # 400 -> 200 -> 100 rows of ~110 characters
    one = run_query(lake.cursor(), "SELECT repeat('x', 1999) AS s FROM range(9)")
    assert one["row_count"] == 9 and one["truncated"] is False


def test_cells_are_plain_json(lake: Lake) -> None:
    out = run_query(lake.cursor(), "SELECT 'nan'::DOUBLE AS a, 1.5::DOUBLE AS b, NULL AS c, 'ok' AS d")
    assert out["rows"] == [{"a": None, "b": 1.5, "c": None, "d": "ok"}]
    cut = run_query(lake.cursor(), f"SELECT repeat('y', {sql_guard.CELL_CAP + 5}) AS s")
    assert cut["rows"][0]["s"] == "y" * sql_guard.CELL_CAP + "…" and cut["truncated"] is True


def test_errors_are_correctable(lake: Lake) -> None:
    bad = run_query(lake.cursor(), "SELECT no_such_column FROM laps")
    assert bad["error"]["code"] == "binder_error" and bad["error"]["message"].startswith("Binder Error")
    assert bad["error"]["hint"] == (
        "check table and column names: sessions, laps, telemetry, corner_results, coaching_notes, driver_events"
    )
    bad = run_query(lake.cursor(), "SELECT CAST('x' AS INTEGER)")
    assert (
        bad["error"]["code"] == "query_error" and bad["error"]["hint"] == "only the lake's tables can be read"
    )
    bad = run_query(lake.cursor(), "SELECT * FROM read_csv('/etc/hostname')")
    assert bad["error"]["code"] == "permission_denied"
    bad = run_query(lake.cursor(), "DELETE FROM laps")
    assert bad["error"]["code"] == "not_select"


def test_runaway_query_is_interrupted(lake: Lake) -> None:
    out = run_query(lake.cursor(), "SELECT count(*) FROM range(100000000) a, range(100000000) b")
    assert out["error"]["code"] == "timeout"
    assert out["error"]["message"] == "the query ran longer than 5 s and was stopped"
    assert out["error"]["hint"] == "filter earlier, aggregate, avoid cross joins"
    after = run_query(lake.cursor(), "SELECT 1 AS x")  # the connection is usable after the interrupt
    assert after["rows"] == [{"x": 1}]


def test_rows_too_wide_for_the_char_cap_are_dropped_whole(lake: Lake) -> None:
    cols = ", ".join(f"repeat('z', 1999) AS c{k}" for k in range(11))  # ~22,000 characters per row
    for n in (1, 2, 3):
        out = run_query(lake.cursor(), f"SELECT {cols} FROM range({n})")
        assert out["rows"] == [] and out["truncated"] is True, n
    half = ", ".join(f"repeat('z', 1999) AS c{k}" for k in range(6))  # ~12,000 characters per row
    out = run_query(lake.cursor(), f"SELECT {half} FROM range(2)")
    assert out["row_count"] == 1 and out["truncated"] is True


def test_the_statement_duckdb_runs_is_bounded() -> None:
    """The cap is in the statement DuckDB executes, not only in the fetch loop and the slice after it: the
    statement DuckDB logged, run again on its own over a million rows, gives ROW_CAP + 1 rows. (A plain
    connection: the lake's is locked, so its query log cannot be switched on; the guard is the same.)"""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute("CALL enable_logging('QueryLog')")
        out = run_query(con, "SELECT range AS i FROM range(1000000)")
        assert out["row_count"] == 500 and out["truncated"] is True
        ran = [
            m
            for (m,) in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()
            if "range(1000000)" in m
        ]
        assert ran, "DuckDB logged no statement of the guard"
        con.execute("CALL disable_logging()")
        for stmt in ran:
            (n,) = con.execute(f"SELECT count(*) FROM ({stmt})").fetchone()  # type: ignore[misc]
            assert n == 501, stmt
    finally:
        con.close()

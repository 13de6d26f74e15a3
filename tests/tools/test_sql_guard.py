"""query_pitwall_db: an attack corpus, every query refused or bounded, nothing written anywhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from services.paddock.tools.sessions import query_pitwall_db


def _snapshot(*dirs: Path) -> set[tuple[str, int]]:
    out = set()
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                p = Path(root) / f
                out.add((str(p), p.stat().st_size))
    return out


ATTACKS = [
    "COPY (SELECT 1) TO '/tmp/pitwall_pwned.csv'",
    "COPY sessions TO '{lake}/sessions/pwned.parquet' (FORMAT parquet)",
    "COPY (SELECT 1 AS x) TO '{lake}/x.csv'",
    "EXPORT DATABASE '/tmp/pitwall_export'",
    "ATTACH '/tmp/pitwall_attack.duckdb' AS a",
    "ATTACH ':memory:' AS m",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/shadow')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM read_parquet('/etc/*.parquet')",
    "SELECT * FROM read_json('https://example.com/x.json')",
    "PRAGMA database_list",
    "PRAGMA enable_profiling",
    "SET enable_external_access = true",
    "SET allowed_directories = ['/']",
    "RESET lock_configuration",
    "CALL pragma_version()",
    "SELECT 1; DROP TABLE sessions",
    "SELECT 1; COPY (SELECT 1) TO '/tmp/p.csv'",
    "DROP VIEW sessions",
    "CREATE TABLE t AS SELECT 1",
    "INSERT INTO sessions (session_id) VALUES ('x')",
    "UPDATE laps SET time_s = 1",
    "DELETE FROM laps",
    "CREATE MACRO m(x) AS x",
    "SELECT * FROM range(1000000000) a, range(1000000000) b",
    "SELECT count(*) FROM range(1000000) a, range(1000000) b",
    "SELECT repeat('x', 100000000)",
    "SELECT 1 /* LIMIT 1000000 */ FROM range(100000)",
    "SELECT '-- LIMIT 99999' AS s FROM range(10000)",
    "SELECT * FROM range(100000) -- LIMIT 100000",
    "SELECT * FROM (SELECT * FROM range(100000)) LIMIT 100000",
    "SELECT 'ｓｅｌｅｃｔ' ; ＤＲＯＰ TABLE x",
    "SELECT 1\u037e DROP TABLE sessions",
    "SELECT " + "1+" * 4000 + "1",
    "WITH x AS (SELECT 1) COPY (SELECT * FROM x) TO '/tmp/w.csv'",
    "SELECT * FROM duckdb_settings() WHERE name = 'allowed_directories'; SET threads=1",
]


@pytest.mark.parametrize("sql", ATTACKS)
def test_hostile_query_is_refused_or_bounded(lake_env, sql: str, tmp_path: Path) -> None:
    lake = lake_env["settings"].lake_dir
    before = _snapshot(lake)
    targets = [
        Path("/tmp") / n
        for n in ("pitwall_pwned.csv", "pitwall_export", "pitwall_attack.duckdb", "p.csv", "w.csv")
    ]
    existed = {t for t in targets if t.exists()}
    out = query_pitwall_db(sql.format(lake=lake))
    if "error" in out:
        assert {"code", "message", "hint"} <= set(out["error"])
    else:
        assert out["row_count"] <= 500
        assert len(str(out)) < 40_000
    assert _snapshot(lake) == before  # nothing written inside the lake
    assert {t for t in targets if t.exists()} == existed  # nor at the attack's targets outside it


def test_attack_corpus_is_large_enough() -> None:
    assert len(ATTACKS) >= 30


def test_legit_queries_work_and_errors_are_correctable(lake_env) -> None:
    ok = query_pitwall_db(f"SELECT lap, time_s FROM laps WHERE session_id = '{lake_env['sid']}' ORDER BY lap")
    assert ok["row_count"] >= 10 and ok["columns"] == ["lap", "time_s"]
    ok = query_pitwall_db("WITH b AS (SELECT min(time_s) AS m FROM laps WHERE kind = 'full') SELECT * FROM b")
    assert ok["row_count"] == 1
    capped = query_pitwall_db("SELECT * FROM telemetry")
    assert capped["row_count"] <= 500 and capped["truncated"]
    bad = query_pitwall_db("SELECT no_such_column FROM laps")
    assert bad["error"]["code"] == "binder_error" and "laps" in bad["error"]["hint"]
    bad = query_pitwall_db("SELEC 1")
    assert bad["error"]["code"] == "parse_error"
    slow = query_pitwall_db("SELECT count(*) FROM range(100000000000) a")
    assert slow.get("error", {}).get("code") == "timeout" or slow["row_count"] == 1

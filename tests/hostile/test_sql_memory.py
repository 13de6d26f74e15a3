"""The SQL tool's memory is bounded inside the query: rows and cells are cut by DuckDB before Python
fetches anything, so a result far larger than the answer (500 rows of 400 kB text, 500 lists of 50,000
numbers, 100 wide text columns) raises the process's peak memory by a few MB, not by the result's size.
Each query runs in a fresh subprocess so its peak RSS (VmHWM) is its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GROWTH_CAP_MB = 64  # each query's result is >= 200 MB without the bound
CHILD = r"""
import json, sys, tempfile
from pathlib import Path
from services.paddock.lake_sandbox import sandboxed_connection
from services.paddock.tools.sql_guard import run_query

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

con = sandboxed_connection(Path(tempfile.mkdtemp()), 1024)
run_query(con, "SELECT 1 AS warm")
base = hwm()
out = run_query(con, sys.argv[1], timeout_s=300)
print(json.dumps({"growth_mb": (hwm() - base) / 1024, "out": out}))
"""


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT repeat('x', 400000) AS s FROM range(500)",
        "SELECT range(50000) AS l FROM range(500)",
        "SELECT " + ", ".join(f"repeat('y', 4000) AS c{i}" for i in range(100)) + " FROM range(500)",
    ],
    ids=["long text", "big lists", "wide rows"],
)
def test_a_huge_result_does_not_raise_peak_memory(sql: str) -> None:
    p = subprocess.run(
        [sys.executable, "-c", CHILD, sql], capture_output=True, text=True, timeout=600, check=False, cwd=REPO
    )
    assert p.returncode == 0, p.stderr[-2000:]
    line = p.stdout.strip().splitlines()[-1]
    got = json.loads(line[line.index("{") :])
    out = got["out"]
    assert "error" not in out, out
    assert out["truncated"] is True and len(json.dumps(out["rows"])) <= 20_000
    assert got["growth_mb"] < GROWTH_CAP_MB, got["growth_mb"]


def test_cells_are_cut_inside_the_query_and_keep_their_values() -> None:
    from services.paddock.lake_sandbox import sandboxed_connection
    from services.paddock.tools.sql_guard import CELL_CAP, run_query

    con = sandboxed_connection(REPO / "tests", 256)
    try:
        out = run_query(
            con,
            f"SELECT 1 AS a, 1 AS a, 2.5::DOUBLE AS d, DATE '2026-11-23' AS day, [1, 2] AS l, "
            f"repeat('z', {CELL_CAP + 10}) AS s, {{'k': 'v'}} AS st",
        )
    finally:
        con.close()
    assert out["columns"] == ["a", "a_1", "d", "day", "l", "s", "st"]
    row = out["rows"][0]
    assert row["d"] == 2.5 and str(row["day"]) == "2026-11-23" and row["l"] == "[1, 2]"
    assert row["s"] == "z" * CELL_CAP + "…" and out["truncated"] is True
    assert row["st"] == "{'k': v}"

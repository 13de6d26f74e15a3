"""Peak memory of the SQL tool's worst queries at the default DuckDB memory limit: each query runs in a
fresh subprocess (the paddock's sandboxed lake connection, ``query_pitwall_db``'s own ``run_query``) and
the growth of its peak RSS (VmHWM) over the baseline is reported.

    python bench/sql_memory.py [--limit-mb 1024] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUERIES = {
    # 500 rows of 2 MB text each: a 1 GB result
    "1 GB of text (500 x 2 MB)": "SELECT repeat('x', 2000000) AS s FROM range(500)",
    # many wide text columns: 500 rows x 200 columns x 100 kB
    "200 wide text columns": "SELECT "
    + ", ".join(f"repeat('y', 100000) AS c{i}" for i in range(200))
    + " FROM range(500)",
    # nested values: 500 lists of 200,000 numbers
    "500 big lists": "SELECT range(200000) AS l FROM range(500)",
}

CHILD = r"""
import json, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from services.paddock.lake_sandbox import sandboxed_connection
from services.paddock.tools.sql_guard import run_query

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

con = sandboxed_connection(Path(tempfile.mkdtemp()), int(sys.argv[2]))
run_query(con, "SELECT 1 AS warm")
base = hwm()
out = run_query(con, sys.argv[3], timeout_s=120)
print(json.dumps({"peak_growth_mb": round((hwm() - base) / 1024, 1),
                  "rows": out.get("row_count"), "error": (out.get("error") or {}).get("code")}))
"""


def measure(sql: str, limit_mb: int, repo: Path = REPO) -> dict[str, object]:
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(repo), str(limit_mb), sql],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if p.returncode != 0:
        return {"peak_growth_mb": None, "error": f"exit {p.returncode}: {p.stderr.strip()[-200:]}"}
    last = p.stdout.strip().splitlines()[-1]
    return dict(json.loads(last[last.index("{") :]))  # after any progress bar


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--limit-mb", type=int, default=1024, help="PITWALL_DUCKDB_MEMORY_LIMIT_MB (default 1024)"
    )
    ap.add_argument("--repo", type=Path, default=REPO, help="the checkout whose sql_guard is measured")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [{"query": k, **measure(v, a.limit_mb, a.repo)} for k, v in QUERIES.items()]
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(
            f"{r['query']:<30} peak +{r['peak_growth_mb']} MB  rows {r.get('rows')}  error {r.get('error')}"
        )


if __name__ == "__main__":
    main()

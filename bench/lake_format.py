"""Delta Lake (``deltalake``) against Apache Iceberg (``pyiceberg`` + SeaweedFS's Iceberg REST catalog), both
on a real SeaweedFS server on loopback: what decided the lake's table format (``docs/SCALING.md``).

    python bench/lake_format.py [--sessions 500] [--writers 8 40] [--json out.json]
    python bench/lake_format.py --sessions 0 --catalog 1000 10000 [--commits 1000]

Per format, on one table of lap rows partitioned by track and date (a publish = one session's laps, one
commit):
* concurrent writers: N threads each append 3 sessions to the one table at once; the rows read back must
  equal the rows acknowledged (Iceberg commits that lose the race are refreshed and retried here, as
  pyiceberg leaves that to the caller; delta-rs retries an append itself);
* append latency: one writer, 20 single-session appends, median and p90;
* one driver's history: a table of ``--sessions`` sessions (appended in batches of 20), the rows of one
  driver at one track, read with the track as a partition filter;
* maintenance: compaction, checkpoint, vacuum (Delta); snapshot expiry (Iceberg: pyiceberg has no
  data-file compaction).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.compute as pc

from bench.lake_formats import DRIVERS, LAPS, TRACKS, DeltaFormat, IcebergFormat, session_rows
from tests.support.seaweed import SeaweedS3


def concurrent(fmt: Any, writers: int, per_writer: int = 3) -> dict[str, Any]:
    table = fmt.create(f"writers{writers}")
    retries: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()

    def work(w: int) -> None:
        for k in range(per_writer):
            try:
                r = fmt.append(table, session_rows(1, salt=f"w{w}k{k}"))
                with lock:
                    retries.append(r)
            except Exception as exc:  # counted: a lost write is what this measures
                with lock:
                    errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    acked = len(retries) * LAPS
    return {
        "writers": writers,
        "commits_acked": len(retries),
        "rows_acked": acked,
        "rows_read": fmt.rows(table),
        "failed_commits": len(errors),
        "first_error": errors[0] if errors else None,
        "retries": sum(retries),
        "wall_s": round(wall, 2),
    }


def latency(fmt: Any, n: int = 20) -> dict[str, Any]:
    table = fmt.create("latency")
    times = []
    for i in range(n):
        rows = session_rows(1, salt=f"lat{i}")
        t0 = time.perf_counter()
        fmt.append(table, rows)
        times.append(time.perf_counter() - t0)
    times.sort()
    return {
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p90_ms": round(times[int(0.9 * n) - 1] * 1000, 1),
    }


def history(fmt: Any, sessions: int) -> tuple[str, dict[str, Any]]:
    table = fmt.create("history")
    allrows = session_rows(sessions)
    t0 = time.perf_counter()
    for start in range(0, sessions, 20):
        fmt.append(table, allrows.slice(start * LAPS, 20 * LAPS))
    load = time.perf_counter() - t0
    track, driver = TRACKS[3], DRIVERS[21]
    mask = pc.and_(pc.equal(allrows.column("track_id"), track), pc.equal(allrows.column("driver_id"), driver))
    expect = allrows.filter(mask)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        got, files = fmt.history(table, track, driver)
        times.append(time.perf_counter() - t0)
    same = got.num_rows == expect.num_rows and sorted(got.column("lap_time_s").to_pylist()) == sorted(
        expect.column("lap_time_s").to_pylist()
    )
    return table, {
        "sessions": sessions,
        "load_s": round(load, 1),
        "rows": got.num_rows,
        "expected_rows": expect.num_rows,
        "equal": same,
        "files_planned": files,
        "median_ms": round(statistics.median(times) * 1000, 1),
    }


def catalog_scale(s3: SeaweedS3, sessions: int, commits: int) -> dict[str, Any]:
    """Pitwall's own catalog (``shared.store.lake_catalog``) of ``sessions`` rows written in ``commits``
    appends: what a reader pays to load it whole, to follow one more commit incrementally, and after
    compaction and a checkpoint."""
    from deltalake import DeltaTable

    from shared.lake_url import LakeTarget
    from shared.store.lake_catalog import read_catalog
    from shared.store.lake_tables import LakeTables

    opts = DeltaFormat(s3).opts
    target = LakeTarget(s3.bucket, f"catalog{sessions}", tuple(sorted(opts.items())))
    tables, fs = LakeTables.s3(target), s3.filesystem()
    rows = session_rows(sessions).filter(pc.field("lap") == 1)
    now = pa.array([datetime.now(UTC)] * rows.num_rows, pa.timestamp("us", tz="UTC"))
    rows = rows.append_column("published_at", now).append_column("track", rows.column("track_id"))
    per = max(1, sessions // commits)
    t0 = time.perf_counter()
    for start in range(0, sessions, per):
        tables.append("sessions", rows.slice(start, per))
    out: dict[str, Any] = {
        "sessions": sessions,
        "commits": commits,
        "write_s": round(time.perf_counter() - t0, 1),
    }

    def load() -> float:
        t = time.perf_counter()
        got = read_catalog(fs, target)
        assert got is not None and got.num_rows == sessions
        return round((time.perf_counter() - t) * 1000, 1)

    out["full_read_ms"] = load()
    dt = DeltaTable(tables.uri("sessions"), storage_options=opts)
    tables.append("sessions", rows.slice(0, 1))
    t1 = time.perf_counter()
    dt.update_incremental()
    out["incremental_ms"] = round((time.perf_counter() - t1) * 1000, 1)
    out["maintain"] = tables.maintain("sessions", retention_hours=0)
    out["full_read_after_maintain_ms"] = load()
    return out


def run(fmt: Any, sessions: int, writers: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"format": fmt.name}
    out["concurrent"] = []
    for w in writers:
        out["concurrent"].append(concurrent(fmt, w))
        _say(out["concurrent"][-1])
    out["append"] = latency(fmt)
    _say(out["append"])
    table, out["history"] = history(fmt, sessions)
    _say(out["history"])
    out["maintenance"] = fmt.maintain(table)
    _say(out["maintenance"])
    return out


def _say(part: Any) -> None:
    sys.stderr.write(json.dumps(part) + "\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=500)
    ap.add_argument("--writers", type=int, nargs="+", default=[8, 40])
    ap.add_argument("--only", choices=["delta", "iceberg"], default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--catalog", type=int, nargs="*", default=[], help="also: a catalog of N sessions")
    ap.add_argument("--commits", type=int, default=1000, help="the catalog's commits")
    args = ap.parse_args(argv)
    formats: list[Callable[[SeaweedS3], Any]] = [DeltaFormat, IcebergFormat]
    if args.only:
        formats = [DeltaFormat if args.only == "delta" else IcebergFormat]
    results = []
    with tempfile.TemporaryDirectory(prefix="pitwall-lakeformat-") as tmp:
        s3 = SeaweedS3(Path(tmp), iceberg=True).start()
        try:
            for n in args.catalog:
                results.append(catalog_scale(s3, n, min(n, args.commits)))
                _say(results[-1])
            for make in formats if args.sessions else []:
                res = run(make(s3), args.sessions, args.writers)
                results.append(res)
                sys.stdout.write(json.dumps(res, indent=1) + "\n")
                sys.stdout.flush()
        finally:
            s3.stop()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import boto3
import pyarrow as pa
import pyarrow.compute as pc

from tests.support.seaweed import ACCESS_KEY, SECRET_KEY, SeaweedS3

TRACKS = [f"track{i:02d}" for i in range(10)]
DRIVERS = [f"driver{i:02d}" for i in range(50)]
LAPS = 11
SCHEMA = pa.schema(
    [
        ("session_id", pa.string()),
        ("driver_id", pa.string()),
        ("track_id", pa.string()),
        ("date", pa.string()),
        ("lap", pa.int32()),
        ("lap_time_s", pa.float64()),
    ]
)


def session_rows(n: int, salt: str = "") -> pa.Table:
    """``n`` sessions of 11 laps each, spread over 10 tracks, 50 drivers and 60 days (deterministic)."""
    rows: dict[str, list[Any]] = {f.name: [] for f in SCHEMA}
    for i in range(n):
        for lap in range(1, LAPS + 1):
            rows["session_id"].append(f"s{salt}{i:06d}")
            rows["driver_id"].append(DRIVERS[i % len(DRIVERS)])
            rows["track_id"].append(TRACKS[(i // 7) % len(TRACKS)])
            rows["date"].append(f"2026-{5 + (i % 60) // 30:02d}-{1 + (i % 30):02d}")
            rows["lap"].append(lap)
            rows["lap_time_s"].append(100.0 + (i * 7 + lap * 13) % 900 / 100.0)
    return pa.table(rows, schema=SCHEMA)


class DeltaFormat:
    name = "Delta Lake (deltalake)"

    def __init__(self, s3: SeaweedS3) -> None:
        self.opts = {
            "AWS_ENDPOINT_URL": s3.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": "us-east-1",
            "AWS_ALLOW_HTTP": "true",
        }
        self.root = f"s3://{s3.bucket}/bench-delta"

    def create(self, name: str) -> str:
        from deltalake import DeltaTable

        uri = f"{self.root}/{name}"
        DeltaTable.create(uri, SCHEMA, partition_by=["track_id", "date"], storage_options=self.opts)
        return uri

    def append(self, table: str, rows: pa.Table) -> int:
        from deltalake import write_deltalake
        from deltalake.exceptions import CommitFailedError

        retries = 0
        while True:  # delta-rs retries a losing append itself; a failure past its retries is counted here
            try:
                write_deltalake(table, rows, mode="append", storage_options=self.opts)
                return retries
            except CommitFailedError:
                retries += 1
                if retries > 50:
                    raise

    def history(self, table: str, track: str, driver: str) -> tuple[pa.Table, int]:
        from deltalake import DeltaTable

        dt = DeltaTable(table, storage_options=self.opts)
        files = dt.file_uris(file_pruning_predicate=f"track_id = '{track}'")  # the partitions read
        got = dt.to_pyarrow_dataset().to_table(
            filter=(pc.field("track_id") == track) & (pc.field("driver_id") == driver)
        )
        return got, len(files)

    def rows(self, table: str) -> int:
        from deltalake import DeltaTable

        return DeltaTable(table, storage_options=self.opts).to_pyarrow_table().num_rows

    def maintain(self, table: str) -> dict[str, Any]:
        from deltalake import DeltaTable

        dt = DeltaTable(table, storage_options=self.opts)
        before = len(dt.file_uris())
        out: dict[str, Any] = {"files_before": before}
        t0 = time.perf_counter()
        dt.optimize.compact()
        out["compact_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        dt.create_checkpoint()
        out["checkpoint_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        removed = dt.vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
        out["vacuum_s"] = time.perf_counter() - t0
        out["vacuumed_files"] = len(removed)
        out["files_after"] = len(DeltaTable(table, storage_options=self.opts).file_uris())
        return out


class IcebergFormat:
    name = "Iceberg (pyiceberg + SeaweedFS REST catalog)"

    def __init__(self, s3: SeaweedS3) -> None:
        from pyiceberg.catalog.rest import RestCatalog

        boto3.client(
            "s3tables", endpoint_url=s3.endpoint, aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY, region_name="us-east-1",
        ).create_table_bucket(name="pitwall-tables")  # fmt: skip
        self.props = {
            "uri": f"http://127.0.0.1:{s3.iceberg_port}",
            "warehouse": "s3://pitwall-tables",
            "s3.endpoint": s3.endpoint,
            "s3.access-key-id": ACCESS_KEY,
            "s3.secret-access-key": SECRET_KEY,
            "s3.region": "us-east-1",
            "s3.path-style-access": "true",
            "rest.sigv4-enabled": "true",
            "rest.signing-region": "us-east-1",
            "rest.signing-name": "s3",
            "client.access-key-id": ACCESS_KEY,
            "client.secret-access-key": SECRET_KEY,
            "client.region": "us-east-1",
            # pyiceberg signs a request body without sending its hash; SeaweedFS then computes another
            "header.x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        }
        self.catalog = RestCatalog("bench", **self.props)
        self.catalog.create_namespace_if_not_exists("bench")

    def create(self, name: str) -> str:
        ident = f"bench.{name}"
        tbl = self.catalog.create_table(ident, schema=SCHEMA)
        with tbl.update_spec() as spec:
            spec.add_identity("track_id")
            spec.add_identity("date")
        return ident

    def append(self, table: str, rows: pa.Table) -> int:
        from pyiceberg.exceptions import CommitFailedException

        retries = 0
        while True:
            try:
                self.catalog.load_table(table).append(rows)
                return retries
            except CommitFailedException:
                retries += 1
                if retries > 50:
                    raise

    def history(self, table: str, track: str, driver: str) -> tuple[pa.Table, int]:
        from pyiceberg.expressions import And, EqualTo

        scan = self.catalog.load_table(table).scan(
            row_filter=And(EqualTo("track_id", track), EqualTo("driver_id", driver))
        )
        files = len(list(scan.plan_files()))
        return scan.to_arrow(), files

    def rows(self, table: str) -> int:
        return self.catalog.load_table(table).scan().to_arrow().num_rows

    def maintain(self, table: str) -> dict[str, Any]:
        tbl = self.catalog.load_table(table)
        out: dict[str, Any] = {"files_before": len(list(tbl.scan().plan_files())), "compact_s": None}
        snaps = len(tbl.metadata.snapshots)
        t0 = time.perf_counter()
        current = tbl.current_snapshot()
        assert current is not None
        tbl.maintenance.expire_snapshots().older_than(datetime.now(UTC) + timedelta(seconds=1)).commit()
        out["expire_s"] = time.perf_counter() - t0
        tbl = self.catalog.load_table(table)
        out["snapshots"] = f"{snaps} -> {len(tbl.metadata.snapshots)}"
        out["files_after"] = len(list(tbl.scan().plan_files()))
        return out


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

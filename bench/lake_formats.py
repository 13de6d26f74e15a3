"""The two table formats ``bench/lake_format.py`` compares, behind one interface (create, append,
read one driver's history, maintenance), and the deterministic session rows both are given: Delta Lake
(``deltalake``) and Apache Iceberg (``pyiceberg`` with SeaweedFS's Iceberg REST catalog)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

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

"""The synthetic fleet ``bench/lake_fleet.py`` measures against: a Delta catalog of many sessions on
SeaweedFS, built from one real simulated session's rows and objects (``template``, ``build_fleet``), and
the cars that publish into it while the paddock is measured (``publish``, run in ``--publishers``
processes: one catalog commit a lap, the session's objects written first)."""

from __future__ import annotations

import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from shared.ingest import import_sim
from shared.lake_url import s3_filesystem, s3_target
from shared.settings import settings_for
from shared.simulator import simulate
from shared.store.lake_catalog import KEYS_COLUMN, SIZES_COLUMN, hive_base, read_catalog
from shared.store.lake_mirror import mirror_for, uploader_for
from shared.store.lake_tables import LakeTables, partition_values

LISTED = 1000  # the newest sessions the paddock lists (LISTED_AT_MOST)
DRIVER = "d07"  # the driver with real objects behind 25 sessions (the SQL tool's query)


def _s3(data: Path, env: dict[str, str], prefix: str) -> Any:
    return settings_for(
        data,
        lake_url=f"s3://{env['PITWALL_LAKE_URL'].split('/')[2]}/{prefix}",
        s3_endpoint=env["PITWALL_S3_ENDPOINT"],
        s3_access_key=env["PITWALL_S3_ACCESS_KEY"],
        s3_secret_key=env["PITWALL_S3_SECRET_KEY"],
    )


def template(d: Path, env: dict[str, str]) -> tuple[dict[str, Any], pa.Schema, dict[str, pa.Table]]:
    """One real simulated session published to the bucket: its catalog row and its small tables."""
    st = _s3(d / "template", env, "template")
    sid = import_sim(simulate(laps=2, seed=5, rate_hz=10), st, driver_id="template").session_id
    mirror = mirror_for(st)
    assert mirror is not None
    uploader_for(st, mirror).drain()
    fs, t = s3_filesystem(st), s3_target(st)
    cat = read_catalog(fs, t)
    assert cat is not None
    row = cat.filter(pc.equal(cat.column("session_id"), sid))
    tables = {
        k.rsplit("/", 1)[1]: pq.read_table(t.path(k), filesystem=fs)
        for k in row.column(KEYS_COLUMN)[0].as_py()
    }
    return row.to_pylist()[0], row.schema, tables


def _row(tpl: dict[str, Any], i: int, writer: int, names: list[str]) -> dict[str, Any]:
    sid = f"s{i:06d}"
    driver = DRIVER if i < 25 else f"w{writer:03d}"
    when = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(hours=i)
    base = hive_base(sid, "sonoma", when)
    keys = [f"{base}/{n}" for n in names]
    track, date = partition_values("sonoma", when)
    return tpl | {"session_id": sid, "driver_id": driver, "started_at": when, KEYS_COLUMN: keys,
                  SIZES_COLUMN: None, "published_at": datetime.now(UTC), "track": track, "date": date}  # fmt: skip


def _schema(schema: pa.Schema) -> pa.Schema:
    return schema.append(pa.field("track", pa.string())).append(pa.field("date", pa.string()))


def _write_session(fs: Any, t: Any, tables: dict[str, pa.Table], sid: str, keys: list[str]) -> list[int]:
    """A session's objects: the template's tables under its keys, tagged with its id. Returns their sizes
    (the catalog row records them, as a car's does)."""
    sizes = []
    for key in keys:
        tbl = tables[key.rsplit("/", 1)[1]]
        tbl = tbl.set_column(tbl.schema.get_field_index("session_id"), "session_id",
                             pa.array([sid] * tbl.num_rows, pa.string()))  # fmt: skip
        with fs.open_output_stream(t.path(key)) as f:
            pq.write_table(tbl, f, compression="zstd")
            sizes.append(f.tell())
    return sizes


def build_fleet(
    env: dict[str, str], d: Path, prefix: str, n: int, writers: int, tpl: Any, files: bool = True
) -> None:
    """``n`` catalog rows in the Delta table, compacted and checkpointed; the objects of DRIVER's 25
    sessions written for real, and (``files``) those of the newest ``LISTED`` sessions, the ones the
    paddock lists (without them it finds those sessions damaged: the damaged case)."""
    row, schema, tables = tpl
    st = _s3(d / "build", env, prefix)
    fs, t = s3_filesystem(st), s3_target(st)
    names = sorted(tables)
    delta = LakeTables.s3(t)
    rows = [_row(row, i, i % writers, names) for i in range(n)]
    real = sorted(set(range(min(25, n))) | (set(range(max(0, n - LISTED), n)) if files else set()))
    with ThreadPoolExecutor(16) as pool:
        sizes = pool.map(lambda i: _write_session(fs, t, tables, rows[i]["session_id"], rows[i][KEYS_COLUMN]),
                         real)  # fmt: skip
        for i, sized in zip(real, sizes, strict=True):
            rows[i][SIZES_COLUMN] = sized
    for start in range(0, n, 1000):
        delta.append("sessions", pa.Table.from_pylist(rows[start : start + 1000], schema=_schema(schema)))
    delta.maintain("sessions", retention_hours=0)


def publish(env: dict[str, str], prefix: str, first: int, rate: float, seconds: float, files: bool) -> None:
    """One publisher: a catalog row appended (one commit) ``rate`` times a second, new session ids from
    ``first`` on, each the newest session so far (the tablet lists it first); ``files``: its objects
    written before its commit, as a car's uploader does (else its objects are missing: damaged); prints
    the commits it made."""
    st = _s3(Path(tempfile.mkdtemp()), env, prefix)
    fs, t = s3_filesystem(st), s3_target(st)
    delta = LakeTables.s3(t)
    tpl = read_catalog(fs, t, session_ids=["s000000"])
    assert tpl is not None and tpl.num_rows == 1
    keys = tpl.column(KEYS_COLUMN)[0].as_py()
    tables = {k.rsplit("/", 1)[1]: pq.read_table(t.path(k), filesystem=fs) for k in keys}
    names = sorted(tables)
    tpl = tpl.append_column("track", pa.array([""])).append_column("date", pa.array([""]))
    col = {name: tpl.schema.get_field_index(name) for name in
           ("session_id", "published_at", "started_at", KEYS_COLUMN, SIZES_COLUMN, "track", "date")}  # fmt: skip
    # after every built session (hour n of the fleet), then one second per commit, apart per publisher
    start = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(hours=first % 1_000_000, seconds=first // 1_000_000)
    nxt, t0, i = time.monotonic(), time.monotonic(), first
    end = t0 + seconds
    while time.monotonic() < end:
        sid, when = f"s{i:06d}", start + timedelta(seconds=10 * (i - first))
        base = hive_base(sid, "sonoma", when)
        skeys = [f"{base}/{name}" for name in names]
        sizes = _write_session(fs, t, tables, sid, skeys) if files else None
        track, date = partition_values("sonoma", when)
        new = tpl
        for name, value in (("session_id", sid), ("published_at", datetime.now(UTC)), ("started_at", when),
                            (KEYS_COLUMN, skeys), (SIZES_COLUMN, sizes), ("track", track), ("date", date)):  # fmt: skip
            new = new.set_column(col[name], name, pa.array([value], tpl.schema.field(col[name]).type))
        delta.append("sessions", new)
        i += 1
        nxt += 1.0 / rate
        time.sleep(max(0.0, nxt - time.monotonic()))
    print(json.dumps({"commits": i - first, "seconds": time.monotonic() - t0}), flush=True)


# the lake's own start-up, in a fresh interpreter of the tree: the view until it lists the catalog

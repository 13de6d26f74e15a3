"""The lake on local disk vs on S3 (a real SeaweedFS server on loopback), and a 1,000-session S3 lake.

    python bench/lake_s3.py                 (about 3-5 minutes on 2 cores; starts its own SeaweedFS)
    python bench/lake_s3.py --sessions 200  (a smaller simulated lake)

1. Publish per lap: the hot path's ``publish_lap`` (lap file + small files), on local disk, and with the
   S3 mirror (the same, plus the spool entries), and until the objects are acknowledged by the server.
2. Paddock queries (the sandboxed in-memory DuckDB): one session's laps, one lap's telemetry, a whole
   session's telemetry, local Parquet vs the S3 lake read through the catalog.
3. A simulated lake of N sessions (40 drivers, one real simulated session copied under N ids, each object
   rewritten with its own session id): the catalog refresh, ``/sessions`` and one driver's corner history
   (``get_corner_history`` over that driver's 25 sessions), with the S3 requests counted (listings, GETs)
   by a counting filesystem wrapper.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import services.paddock.lake as lake_mod  # noqa: E402
from services.paddock.lake import Lake  # noqa: E402
from services.paddock.routers.sessions import list_sessions  # noqa: E402
from services.paddock.tools.progress import get_corner_history  # noqa: E402
from shared.ingest import import_sim  # noqa: E402
from shared.lake_url import s3_target  # noqa: E402
from shared.settings import Settings, settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from shared.store.hot import HotStore  # noqa: E402
from shared.store.lake_catalog import KEYS_COLUMN, fragment_key, hive_base, read_catalog  # noqa: E402
from shared.store.lake_mirror import mirror_for, uploader_for  # noqa: E402
from shared.store.publisher import LakePublisher  # noqa: E402
from tests.support.counting_fs import counting  # noqa: E402
from tests.support.seaweed import SeaweedS3  # noqa: E402

CMD = "python bench/lake_s3.py"
console = Console()


def _ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1000:.1f} (max {max(xs) * 1000:.1f})"


def _s3_settings(data: Path, w: SeaweedS3) -> Settings:
    e = w.env()
    return settings_for(
        data, lake_url=e["PITWALL_LAKE_URL"], s3_endpoint=w.endpoint,
        s3_access_key=e["PITWALL_S3_ACCESS_KEY"], s3_secret_key=e["PITWALL_S3_SECRET_KEY"],
        s3_delete_grace_s=0,
    )  # fmt: skip


def publish_per_lap(local: Settings, s3: Settings) -> dict[str, list[float]]:
    sim = simulate(laps=5, seed=11, rate_hz=50)
    out: dict[str, list[float]] = {"local": [], "s3_spool": [], "s3_acknowledged": []}
    for st in (local, s3):
        st.ensure_dirs()
        sid = import_sim(sim, st, driver_id="pub").session_id
        store = HotStore(st)
        mirror = mirror_for(st)
        pub = LakePublisher(store.con, st.lake_dir, mirror)
        up = uploader_for(st, mirror) if mirror is not None else None
        if up is not None:
            up.drain()  # the import's own objects
        for lap in [1, 2, 3, 4] * 2:  # two passes: the first warms the caches of both lakes alike
            t0 = time.perf_counter()
            pub.publish_lap(sid, lap)
            t1 = time.perf_counter()
            if up is None:
                out["local"].append(t1 - t0)
                continue
            up.drain()
            out["s3_spool"].append(t1 - t0)
            out["s3_acknowledged"].append(time.perf_counter() - t0)
        if up is not None:
            pub.publish_session(sid)
            up.drain()
        store.close()
    return out


QUERIES = {
    "one session's laps": ("SELECT * FROM laps WHERE session_id = ? ORDER BY lap", False),
    "one lap's telemetry (3 channels)": (
        "SELECT t_s, dist_m, speed_kmh FROM telemetry WHERE session_id = ? AND lap = 2 ORDER BY t_s", False),
    "a whole session's telemetry (10 channels)": (
        "SELECT t_s, lap, dist_m, speed_kmh, throttle_pct, brake_bar, steer_deg, g_lat, g_long, rpm "
        "FROM telemetry WHERE session_id = ?", True),
}  # fmt: skip


def paddock_queries(local: Settings, s3: Settings, runs: int = 7) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {}
    for name, st in (("local", local), ("s3", s3)):
        lake = Lake(st)
        cur = lake.cursor()
        sid = cur.execute("SELECT session_id FROM sessions WHERE driver_id = 'pub'").fetchall()[0][0]
        for q, (sql, _) in QUERIES.items():
            ts = []
            for _ in range(runs):
                t0 = time.perf_counter()
                c = lake.cursor([sid])  # as a tool does: a cursor per query, scoped to its session
                c.sql(sql, params=[sid]).to_arrow_table()
                c.close()
                ts.append(time.perf_counter() - t0)
            out.setdefault(q, {})[name] = ts
        cur.close()
    return out


def build_big_lake(
    s3: Settings, w: SeaweedS3, n: int, drivers: int = 40
) -> tuple[float, dict[str, list[str]]]:
    """N sessions in the bucket, copied from one real simulated session, and their catalog."""
    st = s3
    sim = simulate(laps=2, seed=5, rate_hz=10)
    sid0 = import_sim(sim, st, driver_id="template").session_id
    mirror = mirror_for(st)
    assert mirror is not None
    uploader_for(st, mirror).drain()
    fs, t = w.filesystem(), s3_target(st)
    cat = read_catalog(fs, t)
    assert cat is not None
    row = cat.filter(pc.equal(cat.column("session_id"), sid0))
    tables = {
        k.rsplit("/", 1)[1]: pq.read_table(t.path(k), filesystem=fs)
        for k in row.column(KEYS_COLUMN)[0].as_py()
    }
    started = row.column("started_at")[0].as_py()
    by_driver: dict[str, Any] = {}

    def one(i: int) -> dict[str, Any]:
        sid = f"sim{i:05d}"
        driver = f"d{i % drivers:02d}"
        when = started.replace(year=2025) if i % 2 else started
        when = when.replace(day=1 + i % 28, month=1 + (i // 28) % 12)
        base = hive_base(sid, "sonoma", when)
        keys = []
        for name, tbl in tables.items():
            col = tbl.schema.get_field_index("session_id")
            tbl2 = tbl.set_column(col, "session_id", pa.array([sid] * tbl.num_rows, pa.string()))
            if name == "session.parquet":
                tbl2 = tbl2.set_column(tbl2.schema.get_field_index("driver_id"), "driver_id",
                                       pa.array([driver], pa.string()))  # fmt: skip
            with fs.open_output_stream(t.path(f"{base}/{name}")) as f:
                pq.write_table(tbl2, f, compression="zstd")
            keys.append(f"{base}/{name}")
        r = row.to_pylist()[0] | {
            "session_id": sid,
            "driver_id": driver,
            "started_at": when,
            KEYS_COLUMN: keys,
        }
        return r

    t0 = time.perf_counter()
    with ThreadPoolExecutor(4) as ex:
        rows = list(ex.map(one, range(n)))
    for r in rows:  # each driver's sessions, oldest first
        by_driver.setdefault(r["driver_id"], []).append((r["started_at"], r["session_id"]))
    by_driver = {k: [sid for _, sid in sorted(v)] for k, v in by_driver.items()}
    big = pa.Table.from_pylist(rows, schema=row.schema)
    with fs.open_output_stream(t.path(fragment_key("bench"))) as f:
        pq.write_table(big, f, compression="zstd")
    return time.perf_counter() - t0, by_driver


def big_lake_reads(
    s3: Settings, w: SeaweedS3, by_driver: dict[str, list[str]], runs: int = 5
) -> dict[str, Any]:
    cfs, calls = counting(w.filesystem())
    t0 = time.perf_counter()
    lake = Lake(s3, fs=cfs, refresh_ttl_s=3600)
    cold = time.perf_counter() - t0
    lake_mod._LAKE = lake
    cat_keys = {
        r["session_id"]: r[KEYS_COLUMN]
        for r in lake.s3.catalog.select(["session_id", KEYS_COLUMN]).to_pylist()
    }
    out: dict[str, Any] = {"refresh (catalog LIST + GET)": ([cold], dict(calls.calls))}
    calls.reset()
    ts = []
    for _ in range(runs):
        t1 = time.perf_counter()
        got = list_sessions(limit=100)
        ts.append(time.perf_counter() - t1)
    assert len(got) == 100
    out["/sessions (newest 100)"] = (ts, {k: v // runs for k, v in calls.calls.items()})
    driver = "d07"
    mine = by_driver[driver]  # oldest first: the history of the newest covers them all
    own = {s3_target(s3).path(k) for sid in mine for k in cat_keys[sid]}
    for label, prefetch in (("sessions read one by one", False), ("prefetched in parallel", True)):
        cold = Lake(s3, fs=cfs, refresh_ttl_s=3600)  # a fresh reader: nothing cached
        lake_mod._LAKE = cold
        if not prefetch:
            cold.prefetch = lambda *a, **k: None  # type: ignore[method-assign]
        calls.reset()
        served = w.requests_served()
        t1 = time.perf_counter()
        hist = get_corner_history(mine[-1], "T3A", n_sessions=25)
        took = time.perf_counter() - t1
        n = w.requests_served() - served
        beyond = [p for p in calls.opened if p not in own]
        out[f"one driver's corner history, first call, {label}"] = (
            [took],
            dict(calls.calls) | {"server requests": n, "opened beyond the driver's own": len(beyond)},
        )
    calls.reset()
    served = w.requests_served()
    ts = []
    for _ in range(runs):
        t1 = time.perf_counter()
        hist = get_corner_history(mine[-1], "T3A", n_sessions=25)
        ts.append(time.perf_counter() - t1)
    assert len(hist["sessions"]) == min(25, len(mine)), hist.get("sessions_compared")
    beyond = [p for p in calls.opened if p not in own]
    out[f"one driver's corner history ({len(hist['sessions'])} sessions), warm"] = (
        ts,
        {k: v // runs for k, v in calls.calls.items()}
        | {
            "server requests": (w.requests_served() - served) // runs,
            "opened beyond the driver's own": len(beyond),
        },
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        w = SeaweedS3(d / "weed").start()
        try:
            local, s3 = settings_for(d / "local"), _s3_settings(d / "s3car", w)
            pub = publish_per_lap(local, s3)
            t = Table(title=f"Publish one lap (5-lap session at 50 Hz), ms median (max); {CMD}")
            (
                t.add_column("lake"),
                t.add_column("publish_lap (writer thread)"),
                t.add_column("until acknowledged"),
            )
            t.add_row("local disk", _ms(pub["local"]), "same")
            t.add_row("SeaweedFS (spool + uploader)", _ms(pub["s3_spool"]), _ms(pub["s3_acknowledged"]))
            console.print(t)
            q = paddock_queries(local, _s3_settings(d / "s3pad", w))
            t = Table(title=f"Paddock query (a tool's cursor), ms median (max) of 7; {CMD}")
            t.add_column("query"), t.add_column("local Parquet"), t.add_column("S3 via catalog")
            for name, v in q.items():
                t.add_row(name, _ms(v["local"]), _ms(v["s3"]))
            console.print(t)
            big = _s3_settings(d / "big", w)
            big = big.model_copy(update={"lake_url": big.lake_url + "-big"})
            gen_s, by_driver = build_big_lake(big, w, args.sessions)
            console.print(f"simulated S3 lake: {args.sessions} sessions written in {gen_s:.0f} s")
            res = big_lake_reads(
                _s3_settings(d / "bigpad", w).model_copy(update={"lake_url": big.lake_url}), w, by_driver
            )
            t = Table(title=f"{args.sessions}-session S3 lake, ms median (max); S3 requests per call; {CMD}")
            t.add_column("request"), t.add_column("latency"), t.add_column("S3 requests")
            for name, (ts, c) in res.items():
                t.add_row(name, _ms(ts), ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "none")
            console.print(t)
        finally:
            w.stop()


if __name__ == "__main__":
    main()

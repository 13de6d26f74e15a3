"""The lake on S3-compatible storage, against a real SeaweedFS server (tests/support/seaweed.py).

A real hot path process publishes to ``s3://pitwall-lake/lake`` through its local spool: the first session
is driven while the server is down (nothing may be lost), the second while it is up (lap files go up live
and are compacted at session end). The paddock's reader, polars and the request counts are checked
against the bucket; lap times against our own start/finish crossings of the raw frames.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow.parquet as pq
import pytest

import services.paddock.lake as lake_mod
from services.hotpath.replay import replay_ws
from services.paddock.lake import Lake
from services.paddock.tools.progress import get_corner_history
from services.paddock.tools.sql_guard import run_query
from shared.lake_url import s3_target
from shared.settings import Settings, settings_for
from shared.simulator import simulate
from shared.store.lake_catalog import read_catalog
from tests.support.counting_fs import counting
from tests.support.procs import REPO, free_port, start_hotpath
from tests.support.seaweed import SECRET_KEY, SeaweedS3
from tests.support.truth import gate_crossings

START = {"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}


def _replay(hot: Any, laps: int, seed: int, driver: str) -> tuple[str, dict[str, Any], int]:
    sim = simulate(laps=laps, seed=seed, rate_hz=20)
    res = asyncio.run(
        replay_ws(
            sim.wide, f"ws://127.0.0.1:{hot.port}/ingest/ws", speed=0, start={"driver_id": driver, **START}
        )
    )
    return str(res["session_id"]), sim.wide, int(res["accepted"])


def _upload(hot: Any) -> dict[str, Any]:
    return httpx.get(f"{hot.url}/health").json()["lake_upload"]


def _wait(pred: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def car(tmp_path_factory: pytest.TempPathFactory, weed: SeaweedS3):
    d = tmp_path_factory.mktemp("s3car")
    w = weed  # the module's server (tests/store/conftest.py), stopped and started again below
    env = {**w.env(), "PITWALL_S3_DELETE_GRACE_S": "2"}
    hot = start_hotpath(d / "car", d, env=env)
    try:
        w.stop()  # no signal: the whole first session is driven with the server down
        sid_a, wide_a, acc_a = _replay(hot, 3, 3, "ana")
        down = _wait(
            lambda: (u := _upload(hot))["failures"] and u["waiting_files"] and u, 60, "a failed upload"
        )
        w.start()
        _wait(lambda: _upload(hot)["waiting_files"] == 0, 120, "the spool to empty after the outage")
        sid_b, wide_b, acc_b = _replay(hot, 2, 5, "ben")
        _wait(lambda: _upload(hot)["waiting_files"] == 0, 60, "the second session's upload")
        yield {
            "w": w, "hot": hot, "env": env, "d": d, "down": down,
            "a": (sid_a, wide_a, acc_a), "b": (sid_b, wide_b, acc_b),
        }  # fmt: skip
    finally:
        hot.stop()


def _settings(car: dict[str, Any], **kw: Any) -> Settings:
    env = car["env"]
    return settings_for(
        car["d"] / "reader",
        lake_url=env["PITWALL_LAKE_URL"],
        s3_endpoint=env["PITWALL_S3_ENDPOINT"],
        s3_access_key=env["PITWALL_S3_ACCESS_KEY"],
        s3_secret_key=env["PITWALL_S3_SECRET_KEY"],
        **kw,
    )


def _catalog(car: dict[str, Any]) -> dict[str, dict[str, Any]]:
    cat = read_catalog(car["w"].filesystem(), s3_target(_settings(car)))
    assert cat is not None
    return {r["session_id"]: r for r in cat.to_pylist()}


def _exists(car: dict[str, Any], key: str) -> bool:
    fs = car["w"].filesystem()
    return fs.get_file_info(s3_target(_settings(car)).path(key)).type.name == "File"


def test_a_car_without_signal_loses_nothing(car: dict[str, Any]) -> None:
    down = car["down"]
    assert down["waiting_files"] > 0 and down["failures"] > 0 and down["last_error"]
    sid, _, accepted = car["a"]
    row = _catalog(car)[sid]
    assert row["driver_id"] == "ana" and row["track_id"] == "sonoma"
    keys = row["object_keys"]
    assert all(k.startswith(f"track=sonoma/date={str(row['started_at'])[:10]}/session={sid}/") for k in keys)
    assert all(_exists(car, k) for k in keys)
    fs, t = car["w"].filesystem(), s3_target(_settings(car))
    tel = pq.read_table(t.path(next(k for k in keys if k.endswith("telemetry.parquet"))), filesystem=fs)
    assert tel.num_rows == accepted
    # the same rows as the car's own lake
    local = car["d"] / "car" / "lake" / "sessions" / sid
    up = pq.read_table(t.path(next(k for k in keys if k.endswith("/laps.parquet"))), filesystem=fs)
    assert up.equals(pq.read_table(local / "laps.parquet"))


def test_session_end_compacts_lap_files_into_one_object(car: dict[str, Any]) -> None:
    sid, _, accepted = car["b"]
    keys = _catalog(car)[sid]["object_keys"]
    assert [k for k in keys if "telemetry" in k] == [k for k in keys if k.endswith("/telemetry.parquet")]
    assert len([k for k in keys if "telemetry" in k]) == 1
    fs, t = car["w"].filesystem(), s3_target(_settings(car))
    path = t.path(next(k for k in keys if k.endswith("telemetry.parquet")))
    meta = pq.ParquetFile(fs.open_input_file(path)).metadata
    local = sorted((car["d"] / "car" / "lake" / "sessions" / sid / "telemetry").glob("lap_*.parquet"))
    assert meta.num_row_groups == len(local) and meta.num_rows == accepted
    # the lap files that went up while the session was live are deleted after the grace period
    base = keys[0].rsplit("/", 1)[0]
    import pyarrow.fs as pafs

    def laps_left() -> list[str]:
        sel = pafs.FileSelector(t.path(f"{base}/telemetry"), allow_not_found=True)
        return [i.path for i in fs.get_file_info(sel)]

    _wait(lambda: not laps_left(), 30, "the superseded lap objects to be deleted")
    assert all(_exists(car, k) for k in keys)


def test_the_paddock_reads_one_session_by_its_own_keys(car: dict[str, Any]) -> None:
    sid_a, sid_b = car["a"][0], car["b"][0]
    cfs, calls = counting(car["w"].filesystem())
    lake = Lake(_settings(car), fs=cfs)
    keys_b = {s3_target(_settings(car)).path(k) for k in _catalog(car)[sid_b]["object_keys"]}
    cur = lake.cursor()
    calls.reset()
    listed = cur.execute(
        "SELECT session_id, driver_id, best_lap_s FROM sessions ORDER BY session_id"
    ).fetchall()
    assert {r[0] for r in listed} == {sid_a, sid_b} and sum(
        calls.calls.values()
    ) == 0  # the catalog, in memory
    laps = cur.execute("SELECT lap, time_s FROM laps WHERE session_id = ? ORDER BY lap", [sid_b]).fetchall()
    n = cur.execute("SELECT count(*) FROM telemetry WHERE session_id = ? AND lap = 1", [sid_b]).fetchone()
    assert laps and n is not None and n[0] > 0
    assert calls.calls["list"] == 0 and set(calls.opened) <= keys_b and calls.opened
    cur.close()
    # a tool's cursor sees only the sessions its parameters name (per-session views), with the same rows
    scoped = lake.cursor([sid_b])
    assert scoped.execute("SELECT count(DISTINCT session_id) FROM laps").fetchall() == [(1,)]
    assert scoped.execute("SELECT count(*) FROM sessions").fetchall() == [(2,)]
    assert (
        scoped.execute("SELECT lap, time_s FROM laps WHERE session_id = ? ORDER BY lap", [sid_b]).fetchall()
        == laps
    )
    scoped.close()


def test_a_drivers_history_reads_only_the_tables_it_needs_of_that_drivers_sessions(
    car: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The corner history of ana's session opens ana's objects only (never ben's), only the laps,
    corners, notes and analysis objects, each once (read whole: no footer or column requests, no HEAD,
    no LIST)."""
    sid_a, sid_b = car["a"][0], car["b"][0]
    cfs, calls = counting(car["w"].filesystem())
    lake = Lake(_settings(car), fs=cfs)
    monkeypatch.setattr(lake_mod, "_LAKE", lake)
    t = s3_target(_settings(car))
    mine = {t.path(k) for k in _catalog(car)[sid_a]["object_keys"]}
    calls.reset()
    hist = get_corner_history(sid_a, "T3A", n_sessions=5)
    assert hist["sessions"] and hist["sessions"][0]["session_id"] == sid_a
    assert set(calls.opened) <= mine and not {p for p in calls.opened if f"session={sid_b}" in p}
    assert {p.rsplit("/", 1)[-1] for p in calls.opened} <= {
        "laps.parquet",
        "corners.parquet",
        "notes.parquet",
        "analysis.parquet",  # each session's time to find at the corner (the session analysis)
    }
    assert (
        len(calls.opened) == len(set(calls.opened)) and calls.calls["list"] == 0 and calls.calls["head"] == 0
    )
    calls.reset()
    assert get_corner_history(sid_a, "T3A", n_sessions=5) == hist and not calls.opened  # cached


def test_the_sql_sandbox_reads_only_the_lake(car: dict[str, Any]) -> None:
    fs, t = car["w"].filesystem(), s3_target(_settings(car))
    pq.write_table(pq.read_table(car["d"] / "car" / "lake" / "sessions" / car["a"][0] / "laps.parquet"),
                   f"{t.bucket}/elsewhere/laps.parquet", filesystem=fs)  # fmt: skip
    lake = Lake(_settings(car))
    cur = lake.cursor()
    ok = run_query(cur, "SELECT count(*) AS n FROM laps")
    assert ok["rows"][0]["n"] > 0
    for sql in (
        f"SELECT * FROM read_parquet('s3://{t.bucket}/elsewhere/laps.parquet')",
        f"SELECT * FROM read_parquet('{car['d'] / 'car' / 'lake' / 'sessions' / car['a'][0] / 'laps.parquet'}')",
        "SELECT * FROM read_csv('/etc/passwd')",
        f"SELECT * FROM read_csv('{car['w'].endpoint}/{t.bucket}/elsewhere/laps.parquet')",
    ):
        assert "error" in run_query(cur, sql), sql
    cur.close()


def _ours(wide: Any) -> list[float]:
    """Our own lap times: start/finish crossings of the raw frames, one after another."""
    t = np.asarray(wide["t_s"], float)
    cross = [c for c, _ in gate_crossings(t, np.asarray(wide["lat"], float), np.asarray(wide["lon"], float))]
    return [float(x) for x in np.diff(cross)]


def _close(got: list[float], ours: list[float]) -> None:
    assert len(got) == len(ours) and len(got) >= 2
    assert max(abs(a - b) for a, b in zip(got, ours, strict=True)) < 0.05, (got, ours)


def test_engines_read_the_lake_tables(car: dict[str, Any]) -> None:
    """Engines we did not write, from the bucket alone, through the Delta tables' paths: polars
    (``read_delta``), DuckDB (over the table's Arrow dataset: DuckDB 2.0 has no delta extension offline)
    and Daft (``read_deltalake``). Each one's full-lap times of each session (its newest publication)
    match our own start/finish crossings of the raw frames."""
    import daft
    import duckdb
    import polars as pl
    from deltalake import DeltaTable

    env = car["env"]
    opts = {
        "AWS_ACCESS_KEY_ID": env["PITWALL_S3_ACCESS_KEY"], "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_ENDPOINT_URL": env["PITWALL_S3_ENDPOINT"], "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true",
    }  # fmt: skip
    laps_uri = f"{env['PITWALL_LAKE_URL']}/_delta/laps"
    newest = "published_at = (SELECT max(published_at) FROM laps l2 WHERE l2.session_id = laps.session_id)"
    con = duckdb.connect()
    con.register("laps", DeltaTable(laps_uri, storage_options=opts).to_pyarrow_dataset())
    pl_laps = pl.read_delta(laps_uri, storage_options=opts)
    io = daft.io.IOConfig(
        s3=daft.io.S3Config(
            endpoint_url=env["PITWALL_S3_ENDPOINT"], key_id=env["PITWALL_S3_ACCESS_KEY"],
            access_key=SECRET_KEY, region_name="us-east-1", use_ssl=False, force_virtual_addressing=False,
        )
    )  # fmt: skip
    # daft 0.6's read_deltalake expects deltalake < 1 (pyarrow add actions): Daft reads the files the
    # table's current version lists instead
    files = DeltaTable(laps_uri, storage_options=opts).file_uris()
    df_laps = daft.read_parquet(files, io_config=io).select(
        "session_id", "lap", "kind", "time_s", "published_at"
    )
    for sid, wide, _ in (car["a"], car["b"]):
        ours = _ours(wide)
        q = f"SELECT time_s FROM laps WHERE session_id = ? AND kind = 'full' AND {newest} ORDER BY lap"
        _close([r[0] for r in con.execute(q, [sid]).fetchall()], ours)
        mine = pl_laps.filter((pl.col("session_id") == sid) & (pl.col("kind") == "full"))
        mine = mine.filter(pl.col("published_at") == pl.col("published_at").max())
        _close(mine.sort("lap")["time_s"].to_list(), ours)
        d = pl.DataFrame(
            df_laps.where((daft.col("session_id") == sid) & (daft.col("kind") == "full")).to_pydict()
        )
        _close(
            d.filter(pl.col("published_at") == pl.col("published_at").max()).sort("lap")["time_s"].to_list(),
            ours,
        )


@pytest.mark.parametrize(
    ("kw", "named"),
    [
        ({"lake_url": "gs://bucket/lake"}, "scheme 'gs'"),
        ({"lake_url": "s3:///lake"}, "names no bucket"),
        ({"lake_url": "s3://b/lake", "s3_endpoint": "ftp://127.0.0.1:1"}, "PITWALL_S3_ENDPOINT"),
        ({"lake_url": "s3://b/lake", "s3_access_key": "k"}, "PITWALL_S3_SECRET_KEY"),
    ],
)
def test_a_bad_lake_setting_is_refused_naming_it(tmp_path: Path, kw: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        settings_for(tmp_path, **kw)


def test_a_local_lake_path_is_the_lake_dir(tmp_path: Path) -> None:
    s = settings_for(tmp_path / "data", lake_url=str(tmp_path / "elsewhere"))
    assert s.lake_dir == tmp_path / "elsewhere" and not s.lake_is_s3
    assert settings_for(tmp_path / "data").lake_dir == tmp_path / "data" / "lake"


def _start_up(cmd: str, d: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "shared.cli", cmd, "--port", str(free_port()), "--data-dir", str(d)],
        cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_start_up_names_bad_credentials_and_a_missing_bucket(car: dict[str, Any], tmp_path: Path) -> None:
    env = car["env"]
    cases = [
        ("paddock", {**env, "PITWALL_S3_SECRET_KEY": "wrong"}, "refused the credentials"),
        ("hotpath", {**env, "PITWALL_S3_SECRET_KEY": "wrong"}, "refused the credentials"),
        ("paddock", {**env, "PITWALL_LAKE_URL": "s3://no-such-bucket/x"}, "does not exist"),
        ("paddock", {**env, "PITWALL_LAKE_URL": "gs://b/x"}, "scheme 'gs'"),
    ]
    for i, (cmd, e, named) in enumerate(cases):
        r = _start_up(cmd, tmp_path / f"d{i}", e)
        out = r.stdout + r.stderr
        assert r.returncode == 2 and named in out and "Traceback" not in out, (cmd, named, out[-800:])
        assert SECRET_KEY not in out and "wrong" not in out


def test_the_compose_checks_bucket_probe_sees_a_published_session(car: dict[str, Any]) -> None:
    """``./scripts/compose-check --lake-s3`` decides "published" with its own probe of the bucket (no Pitwall
    code). Run here against the same kind of lake the hot path writes, it must find the session's catalog
    row among the per-writer fragments, every object the row names, and the compacted telemetry."""
    import importlib.util
    import json
    import os

    spec = importlib.util.spec_from_file_location("cc_s3", REPO / "scripts" / "compose_check_s3.py")
    assert spec is not None and spec.loader is not None
    cc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cc)
    sid, _wide, accepted = car["b"]
    out = subprocess.run(
        [sys.executable, "-c", cc.BUCKET_PROBE, sid],
        env={**os.environ, **car["env"]},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert probe["status"] == "closed" and probe["compacted"] and not probe["named_missing"], probe
    assert probe["telemetry_rows"] == accepted
    assert cc.published(probe, httpx.get(f"{car['hot'].url}/health").json())

"""kill -9 at each step of end-of-session compaction on an S3 lake, then a restart: nothing acked is lost.

A real hot path publishes to a real SeaweedFS (tests/support/seaweed.py) with ``PITWALL_FAULT_KILL_AT``
naming one step (shared/faults.py): the process SIGKILLs itself there. It is restarted without the fault;
once its spool is empty the bucket is read with pyarrow alone (no Pitwall reader): the session's newest
catalog row is closed and names one compacted telemetry object, and the telemetry objects under the
session's prefix hold every acknowledged frame exactly once (no lap object left beside the compacted one).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from services.hotpath.replay import replay_ws
from shared.faults import ENV, STEPS
from shared.simulator import simulate
from tests.support.procs import start_hotpath
from tests.support.seaweed import SeaweedS3, seaweed_or_skip

START = {"driver_id": "ana", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}


@pytest.fixture(scope="module")
def weed(tmp_path_factory: pytest.TempPathFactory):
    w = seaweed_or_skip(tmp_path_factory.mktemp("crash") / "weed")
    try:
        yield w
    finally:
        w.stop()


def _drive(url: str) -> tuple[str, int]:
    """A 3-lap session over the WebSocket; returns its id and the frames the hot path acknowledged (the
    process may die before it answers the session's end)."""
    sid = httpx.post(f"{url}/session/start", json=START, timeout=30).json()["session_id"]
    acked = 0

    def count(b: dict[str, Any]) -> None:
        nonlocal acked
        acked += int(b["ack"]["accepted"])

    sim = simulate(laps=3, seed=11, rate_hz=20)
    ws = url.replace("http://", "ws://") + "/ingest/ws"
    with contextlib.suppress(httpx.HTTPError):  # killed while ending the session
        asyncio.run(replay_ws(sim.wide, ws, speed=0, session_id=sid, on_batch=count))
    assert acked == len(sim.wide["t_s"])  # every frame was acknowledged before the end
    return sid, acked


def _spool_left(data: Path) -> list[str]:
    spool = data / "spool"
    left = [p for p in spool.rglob("*") if p.is_file() and p.name != "writer"]
    left += list((data / "lake" / "publishing").glob("*"))
    return sorted(str(p.relative_to(data)) for p in left)


def _wait_spool_empty(data: Path, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while _spool_left(data):
        assert time.monotonic() < deadline, f"the spool kept {_spool_left(data)}"
        time.sleep(0.5)


def _bucket(w: SeaweedS3, prefix: str, sid: str) -> tuple[dict[str, Any], dict[str, int], pa.Table]:
    """From the bucket alone: the session's newest catalog row, the rows of each telemetry object under
    the session's prefix, and the compacted object's table."""
    fs = w.filesystem()
    root = f"{w.bucket}/{prefix}"
    frags = fs.get_file_info(pafs.FileSelector(f"{root}/_catalog"))
    cat = pa.concat_tables(
        [pq.read_table(i.path, filesystem=fs) for i in frags], promote_options="permissive"
    )
    mine = cat.filter(pc.equal(cat.column("session_id"), sid)).sort_by([("published_at", "descending")])
    row = mine.slice(0, 1).to_pylist()[0]
    objects = fs.get_file_info(pafs.FileSelector(root, recursive=True))
    keys = [i.path.removeprefix(root + "/") for i in objects if i.type == pafs.FileType.File]
    tel = {  # the compacted object and any lap object left beside it
        k: pq.read_metadata(f"{root}/{k}", filesystem=fs).num_rows
        for k in keys
        if f"session={sid}/" in k and "telemetry" in k
    }
    compact = next(k for k in row["object_keys"] if k.endswith("/telemetry.parquet"))
    return row, tel, pq.read_table(f"{root}/{compact}", filesystem=fs)


@pytest.mark.parametrize("step", STEPS)
def test_a_kill_at_any_step_of_compaction_loses_and_doubles_nothing(
    weed: SeaweedS3, tmp_path: Path, step: str
) -> None:
    prefix = f"crash-{step}"
    env = {**weed.env(prefix), "PITWALL_S3_DELETE_GRACE_S": "1"}
    data = tmp_path / "car"
    hot = start_hotpath(data, tmp_path, env={**env, ENV: step})
    try:
        sid, acked = _drive(hot.url)
        assert hot.proc.wait(timeout=120) == -9  # it reached the step and killed itself there
    finally:
        hot.stop()
    again = start_hotpath(data, tmp_path, env=env)
    try:
        _wait_spool_empty(data)
        row, tel, compact = _bucket(weed, prefix, sid)
    finally:
        again.stop()
    base = f"track=sonoma/date={str(row['started_at'])[:10]}/session={sid}"
    assert row["status"] == "closed" and not row.get("deleted")
    assert [k for k in row["object_keys"] if "telemetry" in k] == [f"{base}/telemetry.parquet"]
    # the telemetry in the bucket: the compacted object alone, every acknowledged frame once
    assert tel == {f"{base}/telemetry.parquet": acked}, (step, acked, tel)
    t = compact.column("t_s").to_numpy()
    assert len(np.unique(t)) == acked
    print(f"{step}: acked {acked}, rows in the bucket {sum(tel.values())}, objects {sorted(tel)}")

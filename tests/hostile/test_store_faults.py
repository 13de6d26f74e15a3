"""Nothing acknowledged is lost, on the real hot path process and a real DuckDB file: SIGKILL seconds
after the last ack, and a filesystem that fills up (a real, small tmpfs) and then frees space."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import httpx
import msgpack
import pyarrow as pa
import pytest
import websockets

from services.hotpath.columns import pack_columns
from services.hotpath.replay import frames_of
from shared.settings import settings_for
from shared.simulator import simulate
from shared.store.writer import StoreWriter
from tests.support import require
from tests.support.procs import start_hotpath
from tests.support.require import missing

CAR = {"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}


def _telemetry_rows(data: Path, sid: str) -> int:
    """Rows in the hot DuckDB file (opened after the service is gone; its WAL is replayed)."""
    con = duckdb.connect(str(settings_for(data).hot_db_path))
    try:
        (n,) = con.execute("SELECT count(*) FROM telemetry WHERE session_id = ?", [sid]).fetchone() or (0,)
    finally:
        con.close()
    return int(n)


@pytest.mark.parametrize("form", ["frames", "columns"])
def test_kill_9_seconds_after_the_last_ack_loses_nothing_acknowledged(tmp_path: Path, form: str) -> None:
    """Frames at 500/s for 2 s, then silence, then SIGKILL 3 s after the last ack: every acknowledged
    frame is in the store (the session buffer is flushed on a timer, not by the next frame), and the
    acks say how far durability reaches. Sent as frame objects (JSON) or as column batches (msgpack)."""
    data = tmp_path / "data"
    svc = start_hotpath(data, tmp_path)
    frames = list(frames_of(simulate(laps=1, seed=9, rate_hz=50.0).wide))[:1000]
    sid = httpx.post(f"{svc.url}/session/start", json=CAR).json()["session_id"]
    acks: list[dict[str, Any]] = []

    async def stream() -> dict[str, Any]:
        async with websockets.connect(f"ws://127.0.0.1:{svc.port}/ingest/ws?session_id={sid}") as ws:
            # 50 frames every 0.1 s, and the last 10 at once after them: those wait in the session's
            # buffer (younger than its 0.25 s), until the timer flushes them
            head = frames[:-10]
            parts = [head[i : i + 50] for i in range(0, len(head), 50)] + [frames[-10:]]
            for k, part in enumerate(parts):
                if form == "columns":
                    await ws.send(msgpack.packb({"columns": pack_columns(part)}))
                else:
                    await ws.send(json.dumps({"frames": part}))
                acks.append(json.loads(await ws.recv()))
                if k < len(parts) - 2:
                    await asyncio.sleep(0.1)
            await asyncio.sleep(3.0)
            await ws.send(json.dumps({"frames": []}))  # an empty batch: how far is durability now?
            return dict(json.loads(await ws.recv()))

    try:
        probe = asyncio.run(stream())
        svc.proc.kill()  # SIGKILL: no shutdown hooks, no final flush
        svc.proc.wait(timeout=10)
    finally:
        svc.stop()
    acked = sum(a["accepted"] for a in acks)
    assert acked == len(frames)
    assert probe["durable_through_t_s"] == frames[-1]["t_s"] and probe["stored_frames"] == acked, probe
    assert _telemetry_rows(data, sid) == acked


def test_a_durable_ack_is_sent_once_its_frames_are_stored(tmp_path: Path) -> None:
    data = tmp_path / "data"
    svc = start_hotpath(data, tmp_path)
    frames = list(frames_of(simulate(laps=1, seed=9, rate_hz=50.0).wide))[:120]
    sid = httpx.post(f"{svc.url}/session/start", json=CAR).json()["session_id"]
    try:
        r = httpx.post(
            f"{svc.url}/ingest/frames?session_id={sid}&durable=true",
            content="\n".join(json.dumps(f) for f in frames),
        )
        assert r.status_code == 200, r.text
        ack = r.json()
        assert ack["durable"] is True and ack["durable_through_t_s"] == frames[-1]["t_s"], ack
        svc.proc.kill()
        svc.proc.wait(timeout=10)
    finally:
        svc.stop()
    assert _telemetry_rows(data, sid) == len(frames)


@pytest.fixture()
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A real 24 MiB tmpfs (root only: mount(2) needs CAP_SYS_ADMIN)."""
    d = tmp_path / "fs"
    d.mkdir()
    if os.geteuid() != 0:
        missing(require.ROOT, "mounting a small tmpfs needs root; run this test as root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(d)], capture_output=True)
    if r.returncode != 0:
        missing(require.ROOT, f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], check=False)


def _fill(path: Path) -> None:
    """Take every free byte of the filesystem."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (2**20, 4096, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                continue
    finally:
        os.close(fd)


def test_a_full_disk_refuses_new_frames_keeps_acked_ones_and_recovers(small_fs: Path, tmp_path: Path) -> None:
    data = small_fs / "data"
    svc = start_hotpath(data, tmp_path)
    frames = list(frames_of(simulate(laps=3, seed=2, rate_hz=50.0).wide))
    batches = [frames[i : i + 250] for i in range(0, len(frames), 250)]
    c = httpx.Client(base_url=svc.url, timeout=30)
    sid = c.post("/session/start", json=CAR).json()["session_id"]
    accepted = 0
    refused: dict[str, Any] | None = None
    health: dict[str, Any] = {}

    async def send(ws: Any, batch: list[dict[str, float]]) -> dict[str, Any]:
        await ws.send(msgpack.packb({"frames": batch}))
        return dict(json.loads(await ws.recv()))

    async def run() -> None:
        nonlocal accepted, refused, health
        async with websockets.connect(f"ws://127.0.0.1:{svc.port}/ingest/ws?session_id={sid}") as ws:
            i = 0
            for _ in range(4):  # some frames stored while there is space
                accepted += (await send(ws, batches[i]))["accepted"]
                i += 1
            await asyncio.sleep(0.6)
            _fill(small_fs / "filler")
            deadline = time.monotonic() + 20
            while refused is None and time.monotonic() < deadline:
                ack = await send(ws, batches[i])
                if ack.get("refused"):
                    refused = ack
                else:
                    accepted += ack["accepted"]
                    i += 1
                await asyncio.sleep(0.1)
            assert refused is not None, "frames were still acknowledged on a full disk"
            health = c.get("/health").json()  # the service keeps answering
            (small_fs / "filler").unlink()  # space returns
            deadline = time.monotonic() + 20
            while c.get("/health").json()["refusing_frames"] and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            for b in batches[i : i + 4]:
                ack = await send(ws, b)
                assert not ack.get("refused") and ack["accepted"] == len(b), ack
                accepted += ack["accepted"]

    try:
        asyncio.run(run())
        assert refused is not None
        assert refused["accepted"] == 0 and refused["rejected"] == {"disk_full": 250}, refused
        assert "disk full" in refused["refused"]
        assert health["status"] == "degraded" and "disk full" in (health["refusing_frames"] or ""), health
        assert health["rejected"]["disk_full"] >= 250
        assert c.post(f"/session/{sid}/end").status_code == 200
    finally:
        svc.stop()
    assert _telemetry_rows(data, sid) == accepted  # every acknowledged frame, once


def test_a_store_invalidated_by_a_full_disk_is_reopened_and_nothing_is_dropped(small_fs: Path) -> None:
    """A checkpoint on a full disk is fatal to DuckDB (every later query fails until the database is
    opened again): the writer keeps the rows, reopens the file once space returns, and writes them."""
    db = small_fs / "w.duckdb"
    first = duckdb.connect(str(db))
    first.execute("CREATE TABLE telemetry (session_id VARCHAR, t_s DOUBLE, speed_kmh DOUBLE)")
    reopened: list[duckdb.DuckDBPyConnection] = []

    def reopen() -> duckdb.DuckDBPyConnection:
        reopened.append(duckdb.connect(str(db)))
        return reopened[-1]

    writer = StoreWriter(first, 0.05, reopen=reopen)

    def rows(a: int, b: int) -> pa.Table:
        return pa.table(
            {
                "session_id": ["s"] * (b - a),
                "t_s": [float(i) for i in range(a, b)],
                "speed_kmh": [100.0] * (b - a),
            }
        )

    try:
        writer.submit("telemetry", rows(0, 1000))
        assert writer.flush()
        _fill(small_fs / "filler")
        for k in range(1, 40):  # until a write fails: the WAL needs space
            writer.submit("telemetry", rows(k * 1000, (k + 1) * 1000))
            writer.flush(timeout=0.5)
            if writer.blocked:
                break
        writer.call(lambda con: con.execute("CHECKPOINT"))  # fatal on a full disk: invalidates DuckDB
        deadline = time.monotonic() + 10
        while writer.retries < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert writer.blocked and "disk full" in writer.blocked
        submitted = (k + 1) * 1000
        (small_fs / "filler").unlink()
        assert writer.flush(timeout=20), writer.last_error
        assert writer.blocked is None
        assert reopened, "the invalidated connection was not replaced"
        (n, distinct) = writer.con.execute("SELECT count(*), count(DISTINCT t_s) FROM telemetry").fetchone()
        assert n == distinct == submitted
    finally:
        writer.close()
        writer.con.close()

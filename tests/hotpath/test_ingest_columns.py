"""Column batches on the live WebSocket (``{"columns": {...}}``) against the same frames sent as objects,
through a real uvicorn hot path: the same laps and the same stored rows, a missing value held (never 0),
and bad columns refused naming the column."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import duckdb
import httpx
import msgpack
import numpy as np
import pyarrow.parquet as pq
import pytest
import websockets

from services.hotpath.columns import pack_columns
from services.hotpath.replay import frames_of
from shared.settings import Settings
from shared.simulator import ALL_KINDS, simulate
from tests.support.procs import start_hotpath

START = {"driver_id": "cols", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
BATCH = 1000


@pytest.fixture()
def hotpath(tmp_path: Path):
    svc = start_hotpath(tmp_path / "data", tmp_path)
    yield svc
    svc.stop()


def _wide() -> dict[str, np.ndarray]:
    """A simulated session with every mistake kind, and an oil pressure channel that is only sampled on
    every fifth frame (NaN between): a slow channel, as a logger sends one."""
    wide = {
        k: np.asarray(v, dtype=np.float64).copy()
        for k, v in simulate(laps=4, seed=21, kinds=ALL_KINDS).wide.items()
    }
    oil = wide["oil_press_bar"]
    keep = np.zeros(len(oil), bool)
    keep[::5] = True
    oil[~keep] = np.nan
    return wide


def _column_messages(wide: dict[str, np.ndarray], binary: bool) -> list[bytes]:
    cols = [c for c in wide if c not in ("dist_m", "odo_m")]
    out = []
    for i in range(0, len(wide["t_s"]), BATCH):
        spec: dict[str, Any] = {}
        for c in cols:
            a = wide[c][i : i + BATCH]
            if np.isnan(a).all():
                continue
            spec[c] = a.astype("<f8").tobytes() if binary else [None if v != v else v for v in a.tolist()]
        out.append(msgpack.packb({"columns": spec}))
    return out


def _row_messages(wide: dict[str, np.ndarray]) -> list[bytes]:
    frames = list(frames_of(wide))
    return [msgpack.packb({"frames": frames[i : i + BATCH]}) for i in range(0, len(frames), BATCH)]


async def _send(port: int, sid: str, messages: list[bytes]) -> list[dict[str, Any]]:
    acks = []
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ingest/ws?session_id={sid}&durable=true", max_size=None, compression=None
    ) as ws:
        for m in messages:
            await ws.send(m)
            acks.append(json.loads(await ws.recv()))
    return acks


def _session(
    c: httpx.Client, port: int, messages: list[bytes], lake: Path
) -> tuple[str, list[dict[str, Any]], dict[str, int]]:
    """Stream a session (each ack once its frames are committed, so the laps that closed are published)
    and end it. Returns the acks and, before the end, the rows of each lap file published live."""
    sid = c.post("/session/start", json=START).json()["session_id"]
    acks = asyncio.run(_send(port, sid, messages))
    live = {
        p.name: pq.ParquetFile(p).metadata.num_rows
        for p in sorted((lake / "sessions" / sid / "telemetry").glob("lap_*.parquet"))
    }
    assert c.post(f"/session/{sid}/end").status_code == 200
    return sid, acks, live


def _stored(lake: Path, sid: str) -> tuple[list[tuple[Any, ...]], Any]:
    con = duckdb.connect()
    d = lake / "sessions" / sid
    laps = con.execute(
        f"SELECT lap, time_s, kind, valid FROM read_parquet('{d}/laps.parquet') ORDER BY lap"
    ).fetchall()
    tel = con.sql(
        f"SELECT * EXCLUDE (session_id) FROM read_parquet('{d}/telemetry/*.parquet') ORDER BY t_s"
    ).to_arrow_table()
    return laps, tel


def test_column_batches_store_what_frame_objects_store(hotpath, tmp_path: Path) -> None:
    wide = _wide()
    n = len(wide["t_s"])
    c = httpx.Client(base_url=hotpath.url, timeout=30)
    runs = {
        "rows": _row_messages(wide),
        "binary": _column_messages(wide, binary=True),
        "lists": _column_messages(wide, binary=False),
    }
    got, live = {}, {}
    lake = tmp_path / "data" / "lake"
    for name, messages in runs.items():
        sid, acks, live[name] = _session(c, hotpath.port, messages, lake)
        assert sum(a["accepted"] for a in acks) == n, name
        assert all(a["rejected"] == {} for a in acks), name
        got[name] = _stored(lake, sid)
    # the laps published while driving hold every row of their lap: a lap's rows reach the store before
    # the lap closes, also when the lap closes in the middle of a column batch
    assert len(live["rows"]) >= 4
    assert live["binary"] == live["rows"] and live["lists"] == live["rows"]
    # a NaN in a binary column is "no value", not a refused non-finite value
    health = c.get("/health").json()
    assert health["rejected"]["non_finite"] == 0 and health["frames_total"] == 3 * n
    laps, tel = got["rows"]
    assert sum(1 for lp in laps if lp[2] == "full") >= 3
    assert tel.num_rows == n
    for name in ("binary", "lists"):
        assert got[name][0] == laps, name
        assert got[name][1].equals(tel), name
    # the slow channel held between its samples, never 0: every stored value is one that was sent
    sent = wide["oil_press_bar"][~np.isnan(wide["oil_press_bar"])]
    stored = np.asarray(got["binary"][1].column("oil_press_bar").to_numpy(zero_copy_only=False), float)
    assert np.isin(stored[~np.isnan(stored)], sent).all()
    assert not np.isnan(stored[5:]).any()


def _close_reason(port: int, sid: str, message: bytes) -> tuple[int | None, str]:
    async def go() -> tuple[int | None, str]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/ingest/ws?session_id={sid}") as ws:
            await ws.send(message)
            try:
                await ws.recv()
            except websockets.ConnectionClosed as exc:
                return (exc.rcvd.code, exc.rcvd.reason) if exc.rcvd else (None, "")
        return None, ""

    return asyncio.run(go())


def test_bad_columns_are_refused_naming_the_column(hotpath) -> None:
    c = httpx.Client(base_url=hotpath.url, timeout=30)
    sid = c.post("/session/start", json=START).json()["session_id"]
    t = [1.0, 1.02, 1.04]
    ragged = msgpack.packb({"columns": {"t_s": t, "speed_kmh": [100.0, 101.0]}})
    code, reason = _close_reason(hotpath.port, sid, ragged)
    assert code == 1007 and "speed_kmh" in reason and "equal" in reason
    odd_bytes = msgpack.packb({"columns": {"t_s": np.asarray(t).tobytes(), "rpm": b"\x00" * 7}})
    code, reason = _close_reason(hotpath.port, sid, odd_bytes)
    assert code == 1007 and "rpm" in reason
    code, reason = _close_reason(hotpath.port, sid, msgpack.packb({"columns": {"speed_kmh": [1.0]}}))
    assert code == 1007 and "t_s" in reason
    # a column batch over the frame cap is refused from its headers, before it is decoded
    cap = Settings().ingest_max_batch_frames
    big = msgpack.packb({"columns": {"t_s": np.arange(cap + 1, dtype="<f8").tobytes()}})
    code, reason = _close_reason(hotpath.port, sid, big)
    assert code == 1009 and "too_large" in reason
    # a value that is not a number refuses its frame alone, named as a frame object's would be
    mixed = msgpack.packb({"columns": {"t_s": t, "speed_kmh": [100.0, "fast", 102.0]}})

    async def one() -> dict[str, Any]:
        async with websockets.connect(f"ws://127.0.0.1:{hotpath.port}/ingest/ws?session_id={sid}") as ws:
            await ws.send(mixed)
            return json.loads(await ws.recv())

    ack = asyncio.run(one())
    assert ack["accepted"] == 2 and ack["rejected"] == {"malformed": 1}


def test_a_bad_frame_deep_in_a_big_message_is_refused_alone(hotpath) -> None:
    """A message of many chunks is validated as a whole once: one absurd value, or time stepping back at
    a chunk boundary, far into it still refuses that frame alone, named, as frame objects and as columns."""
    c = httpx.Client(base_url=hotpath.url, timeout=30)
    frames = list(frames_of(simulate(laps=1, seed=5).wide))[:1000]
    absurd = [dict(f) for f in frames]
    absurd[450]["speed_kmh"] = 900.0
    back = [dict(f) for f in frames]
    back[600]["t_s"] = back[598]["t_s"]  # at a chunk boundary (chunks of 100): a step back in time
    for bad, reason in ((absurd, "absurd"), (back, "out_of_order")):
        for message in (msgpack.packb({"frames": bad}), msgpack.packb({"columns": pack_columns(bad)})):
            sid = c.post("/session/start", json=START).json()["session_id"]
            (ack,) = asyncio.run(_send(hotpath.port, sid, [message]))
            assert ack["accepted"] == 999 and ack["rejected"] == {reason: 1}, ack
            assert c.post(f"/session/{sid}/end").status_code == 200

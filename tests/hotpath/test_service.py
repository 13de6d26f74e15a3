"""The hot path as a real uvicorn process: replay over WebSocket, cue SSE, lake per lap, bad input."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.hotpath.replay import replay_ws, wide_from_file
from shared.simulator import ALL_KINDS, simulate
from tests.support.procs import start_hotpath


@pytest.fixture()
def hotpath(tmp_path: Path):
    svc = start_hotpath(tmp_path / "data", tmp_path)
    yield svc
    svc.stop()


def _collect_sse(url: str, out: list[dict[str, Any]], stop: threading.Event) -> None:
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(5, read=None)) as r:
            event = None
            for line in r.iter_lines():
                if stop.is_set():
                    return
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    out.append({"event": event, **json.loads(line[5:])})
    except httpx.RemoteProtocolError:  # the service stopped at the end of the test and cut the stream
        if not stop.is_set():
            raise


def test_simulated_session_over_websocket_produces_cues_and_lake(hotpath, tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    stop = threading.Event()
    th = threading.Thread(target=_collect_sse, args=(f"{hotpath.url}/cues/stream", events, stop), daemon=True)
    th.start()
    sim = simulate(laps=7, seed=9, rate_hz=50, kinds=ALL_KINDS)  # an oil-pressure drop among them
    res = asyncio.run(
        replay_ws(
            sim.wide,
            f"ws://127.0.0.1:{hotpath.port}/ingest/ws",
            speed=0,
            start={"driver_id": "ana", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"},
        )
    )
    assert res["accepted"] == len(sim.wide["t_s"]) and res["rejected"] == {}
    stop.set()
    kinds = [e["event"] for e in events]
    assert kinds[0] == "hello"
    cues = [e for e in events if e["event"] == "cue"]
    assert any(c["priority"] == 3 and c["rule"] == "oil_pressure_low" for c in cues)
    assert any(c["priority"] < 3 for c in cues)
    for c in cues:
        assert {
            "ts",
            "session_id",
            "lap",
            "corner",
            "phrase_id",
            "text",
            "priority",
            "rule",
            "latency_ms",
        } <= set(c)
    health = httpx.get(f"{hotpath.url}/health").json()
    assert health["frames_total"] == len(sim.wide["t_s"])
    metrics = httpx.get(f"{hotpath.url}/metrics").text
    assert "pitwall_decision_latency_ms_bucket" in metrics
    written = len([e for e in events if e["event"] in ("cue", "dropped")])  # each timed once written
    assert health["cue_send_ms"]["count"] >= written > 0 and health["cue_send_ms"]["max"] > 0
    assert "pitwall_cue_send_ms_bucket" in metrics
    lake = tmp_path / "data" / "lake" / "sessions" / res["session_id"]
    laps = sorted(p.name for p in (lake / "telemetry").glob("lap_*.parquet"))
    assert len(laps) >= 8  # out-lap, 7 laps, in-lap
    import duckdb

    con = duckdb.connect()
    notes = con.execute(
        f"SELECT status, count(*) FROM read_parquet('{lake}/notes.parquet') GROUP BY 1"
    ).fetchall()
    assert dict(notes).get("spoken", 0) >= len([c for c in cues if c["session_id"] == res["session_id"]]) - 1
    status = con.execute(f"SELECT status FROM read_parquet('{lake}/session.parquet')").fetchone()
    assert status == ("closed",)


def test_real_vbox_session_replayed_produces_cue_decisions(hotpath, shared_dir: Path) -> None:
    wide = wide_from_file(shared_dir / "data/vbox/sonoma_vbox0240.csv")
    res = asyncio.run(
        replay_ws(
            wide,
            f"ws://127.0.0.1:{hotpath.port}/ingest/ws",
            speed=0,
            start={"driver_id": "vbox", "car": "generic", "track": "sonoma"},
        )
    )
    live = res["live"]
    assert sum(1 for lp in live["laps"] if lp["kind"] == "full") >= 8
    assert live["reference"]["source"] == "session_best"
    assert live["cues"]["spoken"] + live["cues"]["dropped"] > 0


def test_bad_input_is_counted_by_reason_and_never_crashes(hotpath) -> None:
    c = httpx.Client(base_url=hotpath.url, timeout=10)
    sid = c.post(
        "/session/start", json={"driver_id": "x", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
    ).json()["session_id"]
    lines = [
        json.dumps({"t_s": 1.0, "speed_kmh": 100.0}),
        "{not json",
        json.dumps({"t_s": 0.5, "speed_kmh": 100.0}),  # out of order
        json.dumps({"t_s": 1.0, "speed_kmh": 100.0}),  # duplicate
        json.dumps({"t_s": 1.1, "speed_kmh": 900.0}),  # absurd
        json.dumps({"t_s": 1.2, "g_lat": 40.0}),  # absurd
        '{"t_s": 1.3, "speed_kmh": NaN}',  # non-finite
        json.dumps({"t_s": 1.4, "warp_drive": 1.0}),  # unknown channel
        json.dumps({"t_s": 1.5, "oil_press_psi": 6553.5}),  # sentinel (0xFFFF on the bus)
        json.dumps({"t_s": 1.6, "oil_press_bar": 4519.0}),  # sentinel after scaling
        json.dumps(["not", "a", "frame"]),
    ]
    r = c.post(f"/ingest/frames?session_id={sid}", content="\n".join(lines))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["accepted"] >= 2
    h = c.get("/health").json()["rejected"]
    for reason in (
        "malformed",
        "out_of_order",
        "duplicate_ts",
        "absurd",
        "non_finite",
        "unknown_channel",
        "sentinel",
    ):
        assert h[reason] >= 1, (reason, h)
    r = c.post("/ingest/frames?session_id=nope", content=lines[0])
    assert r.status_code == 404 and "session" in r.json()["detail"]
    r = c.post("/session/start", json={"driver_id": "a\u0000b"})  # any name but one with control bytes
    assert r.status_code == 422
    r = c.post("/session/start", json={"car": "no_such_car"})
    assert r.status_code == 422 and "available" in r.text
    # a malformed WebSocket batch closes with a reason; the service keeps running
    import websockets

    async def bad_ws() -> tuple[int | None, str | None]:
        async with websockets.connect(f"ws://127.0.0.1:{hotpath.port}/ingest/ws?session_id={sid}") as ws:
            await ws.send("this is not json")
            try:
                await ws.recv()
            except websockets.ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd else None, exc.rcvd.reason if exc.rcvd else None
        return None, None

    code, reason = asyncio.run(bad_ws())
    assert code == 1007 and reason and "malformed" in reason
    assert c.get("/health").status_code == 200
    assert math.isfinite(c.get("/health").json()["writer"]["lag_s"])


def test_kill_9_of_the_service_mid_session_loses_under_a_second(tmp_path: Path) -> None:
    """SIGKILL the hot path while frames stream in at 500 frames/s. The restart reopens the DuckDB file,
    closes the orphaned session explicitly as 'aborted', publishes it, and at most ~1 s of acknowledged
    frames (the frame buffer plus one writer flush interval, 0.25 + 0.5 s here) is missing."""
    import time

    import duckdb
    import websockets

    from services.hotpath.replay import frames_of

    data = tmp_path / "data"
    svc = start_hotpath(data, tmp_path)
    frames = list(frames_of(simulate(laps=3, seed=9, rate_hz=50.0).wide))
    sid = httpx.post(
        f"{svc.url}/session/start", json={"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
    ).json()["session_id"]
    acked = 0

    async def stream() -> None:
        nonlocal acked
        async with websockets.connect(f"ws://127.0.0.1:{svc.port}/ingest/ws?session_id={sid}") as ws:
            for i in range(0, len(frames), 50):  # 50 frames every 0.1 s: 500 frames/s of wall clock
                await ws.send(json.dumps({"frames": frames[i : i + 50]}))
                acked += json.loads(await ws.recv())["accepted"]
                if acked >= 2500:
                    svc.proc.kill()  # SIGKILL: no shutdown hooks, no final flush
                    return
                await asyncio.sleep(0.1)

    asyncio.run(stream())
    svc.proc.wait(timeout=10)
    svc._fh.close()
    assert acked >= 2500
    time.sleep(0.2)
    again = start_hotpath(data, tmp_path)  # reopens the same DuckDB file
    try:
        health = httpx.get(f"{again.url}/health").json()
        assert sid in health["recovered_sessions"] and health["active_session"] is None
        lake = data / "lake" / "sessions" / sid
        con = duckdb.connect()
        (rows,) = con.execute(
            f"SELECT count(*) FROM read_parquet('{lake}/telemetry/*.parquet')"
        ).fetchone() or (0,)
        (status,) = con.execute(f"SELECT status FROM read_parquet('{lake}/session.parquet')").fetchone() or (
            "",
        )
        con.close()
        assert status == "aborted"
        assert acked - 500 <= rows <= acked, (rows, acked)  # at most 1 s at 500 frames/s is lost
        # the recovered service takes a new session at once
        r = httpx.post(f"{again.url}/session/start", json={"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"})
        assert r.status_code == 200 and r.json()["session_id"] != sid
    finally:
        again.stop()

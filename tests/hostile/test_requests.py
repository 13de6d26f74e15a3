"""Hostile requests and frames against the real services (uvicorn subprocesses on loopback): every bad
input is a 4xx or a WebSocket close frame with a reason, counted per reason in ``/health``; no 500, no
traceback in the service log, bounded service memory; and ``/health`` answers while a maximal batch is
being processed (shown by ordering: it sees the batch half done)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgpack
import pytest
import websockets

from tests.support.procs import Service, start_hotpath, start_paddock

MAX_BODY = 1_000_000
MAX_BATCH = 20_000
RSS_CAP_KB = 900_000


def _vm_hwm_kb(svc: Service) -> int:
    for line in Path(f"/proc/{svc.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def _assert_clean_log(svc: Service) -> None:
    text = svc.log.read_text()
    assert "Traceback" not in text, text[-3000:]
    assert " 500 " not in text, text[-3000:]


@pytest.fixture(scope="module")
def hot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    d = tmp_path_factory.mktemp("hostile_hot")
    svc = start_hotpath(
        d / "data",
        d,
        env={
            "PITWALL_INGEST_MAX_BODY_BYTES": str(MAX_BODY),
            "PITWALL_INGEST_MAX_BATCH_FRAMES": str(MAX_BATCH),
        },
    )
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def paddock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    d = tmp_path_factory.mktemp("hostile_pad")
    svc = start_paddock(d / "data", d, "http://127.0.0.1:9/v1", {"PITWALL_LLM_WARMUP": "false"})
    yield svc
    svc.stop()


def _start(hot: Service) -> str:
    r = httpx.post(f"{hot.url}/session/start", json={"driver_id": "h", "track": "sonoma"})
    assert r.status_code == 200, r.text
    return str(r.json()["session_id"])


BAD_JSON_BODIES = [
    b'{"driver_id": NaN}',
    b'{"driver_id": "a", "note": Infinity}',
    b'{"driver_id": -Infinity}',
    b'{"note": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"note": ' + b"9" * 5000 + b"}",
    b'{"driver_id": "\xff\xfe"}',
]


@pytest.mark.parametrize("body", BAD_JSON_BODIES, ids=["nan", "inf", "-inf", "deep", "bigint", "utf8"])
def test_hot_path_json_bodies_are_422(hot: Service, body: bytes) -> None:
    r = httpx.post(f"{hot.url}/session/start", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_json"
    assert len(r.content) < 2000


@pytest.mark.parametrize("body", BAD_JSON_BODIES, ids=["nan", "inf", "-inf", "deep", "bigint", "utf8"])
def test_paddock_json_bodies_are_422_on_every_post_route(paddock: Service, body: bytes) -> None:
    for route in ("/coach/debrief", "/coach/brief", "/coach/ask", "/coach/ask/end", "/session/reset"):
        r = httpx.post(f"{paddock.url}{route}", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, (route, r.text)
        assert r.json()["error"]["code"] == "invalid_json"


def test_a_422_does_not_echo_a_large_body(paddock: Service) -> None:
    r = httpx.post(f"{paddock.url}/coach/debrief", json={"session_id": "x" * 900_000, "driver_id": ["a"]})
    assert r.status_code == 422
    assert len(r.content) < 5_000


def _chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    line = b'{"t_s": 1.0, "speed_kmh": 100.0}\n'
    block = line * (size // len(line))
    sent = 0
    while sent < total:
        yield block
        sent += len(block)


def test_chunked_bodies_over_the_limit_are_413_while_streaming(hot: Service, paddock: Service) -> None:
    sid = _start(hot)
    r = httpx.post(f"{hot.url}/ingest/frames?session_id={sid}", content=_chunks(60 * MAX_BODY))
    assert r.status_code == 413 and "PITWALL_INGEST_MAX_BODY_BYTES" in r.text
    r = httpx.post(
        f"{paddock.url}/coach/debrief",
        content=_chunks(50 * 2**20),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and "PITWALL_MAX_REQUEST_BYTES" in r.text
    assert _vm_hwm_kb(hot) < RSS_CAP_KB and _vm_hwm_kb(paddock) < RSS_CAP_KB


def test_ndjson_crafted_lines_are_counted_never_500(hot: Service) -> None:
    sid = _start(hot)
    lines = [
        json.dumps({"t_s": 1.0, "speed_kmh": 100.0}),
        '{"t_s": 2.0, "speed_kmh": 1' + "0" * 400 + "}",  # an integer too large for a float
        "[" * 100_000 + "]" * 100_000,  # nested beyond the recursion limit
        '{"t_s": 3.0, "speed_kmh": 1' + "0" * 320 + ".0}",  # a float that overflows to inf
        '{"t_s": 4.0, "rpm": 1' + "0" * 30 + "}",  # a big integer that is a float, but absurd
        json.dumps({"t_s": 5.0, "speed_kmh": 101.0}),
    ]
    r = httpx.post(f"{hot.url}/ingest/frames?session_id={sid}", content="\n".join(lines))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["accepted"] == 3  # t=1, t=3 (the overflowing value dropped as non-finite), t=5
    assert body["rejected"]["malformed"] == 2 and body["rejected"]["absurd"] == 1
    assert any("line 2" in e for e in body["errors"]) and any("line 3" in e for e in body["errors"])
    r = httpx.post(f"{hot.url}/ingest/frames?session_id={sid}", content="[" * 100_000)
    assert r.status_code == 422


async def _ws_close(url: str, payload: str | bytes) -> tuple[int | None, str]:
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(payload)
        try:
            msg = await asyncio.wait_for(ws.recv(), 30)
            return None, str(msg)
        except websockets.ConnectionClosed as exc:
            assert exc.rcvd is not None, "the server must send a close frame"
            return exc.rcvd.code, exc.rcvd.reason


WS_CASES: list[tuple[str, str | bytes, int, str]] = [
    ("list_sid", json.dumps({"session_id": [1, 2], "frames": [{"t_s": 1.0}]}), 1007, "session_id"),
    ("dict_sid", json.dumps({"session_id": {"a": 1}, "frames": []}), 1007, "session_id"),
    ("bigint", '{"frames": [{"t_s": 1, "speed_kmh": ' + "9" * 400 + "}]}", 1007, "too large"),
    ("deep", "[" * 100_000 + "]" * 100_000, 1007, "nested"),
    ("deep_msgpack", b"\x91" * 100_000 + b"\x00", 1007, "msgpack"),
    ("not_json", "{nope", 1007, "JSON"),
    ("frames_not_list", json.dumps({"t_s": 1, "frames": 5}), 1007, "frames"),
    (
        "too_many",
        msgpack.packb([{"t_s": float(i)} for i in range(MAX_BATCH + 1)]),
        1009,
        "PITWALL_INGEST_MAX_BATCH_FRAMES",
    ),
    ("too_big", b"\x00" * (MAX_BODY + 1), 1009, "PITWALL_INGEST_MAX_BODY_BYTES"),
]


@pytest.mark.parametrize("case", WS_CASES, ids=[c[0] for c in WS_CASES])
def test_ws_crafted_batches_close_with_a_reason_and_are_counted(
    hot: Service, case: tuple[str, str | bytes, int, str]
) -> None:
    _, payload, code, words = case
    sid = _start(hot)
    before = httpx.get(f"{hot.url}/health").json()
    got_code, reason = asyncio.run(
        _ws_close(f"ws://127.0.0.1:{hot.port}/ingest/ws?session_id={sid}", payload)
    )
    assert got_code == code, (got_code, reason)
    assert words in reason
    after = httpx.get(f"{hot.url}/health").json()
    key = "too_large" if code == 1009 else "malformed"
    assert after["rejected"][key] == before["rejected"][key] + 1
    live = httpx.get(f"{hot.url}/sessions/{sid}/live").json()
    assert httpx.get(f"{hot.url}/health").status_code == 200
    assert live is not None


def test_health_answers_while_a_maximal_batch_is_processed(hot: Service) -> None:
    """Ordering, not timing: some /health reply must see the batch partly counted. Before the batch was
    sliced, the loop was blocked for the whole batch and no reply could land between its first and last
    frame."""
    sid = _start(hot)
    n = MAX_BATCH
    frames = [{"t_s": 1000.0 + i * 0.01, "speed_kmh": 100.0, "rpm": 5000.0} for i in range(n)]
    payload = msgpack.packb({"frames": frames})

    async def run() -> list[int]:
        seen: list[int] = []
        async with (
            httpx.AsyncClient(base_url=hot.url, timeout=30) as client,
            websockets.connect(f"ws://127.0.0.1:{hot.port}/ingest/ws?session_id={sid}", max_size=None) as ws,
        ):
            base = (await client.get("/health")).json()["frames_total"]
            await ws.send(payload)
            ack = asyncio.create_task(ws.recv())
            while not ack.done():
                seen.append((await client.get("/health")).json()["frames_total"] - base)
            assert json.loads(await ack)["accepted"] == n
        return seen

    seen = asyncio.run(run())
    assert any(0 < s < n for s in seen), seen


def test_no_traceback_and_no_500_in_the_service_logs(hot: Service, paddock: Service) -> None:
    for svc in (hot, paddock):
        assert httpx.get(f"{svc.url}/health").status_code == 200
        metrics = httpx.get(f"{svc.url}/metrics").text
        assert "event_loop_lag_seconds" in metrics
        _assert_clean_log(svc)


def _tool(paddock: Service, sql: str) -> dict[str, Any]:
    r = httpx.post(f"{paddock.url}/api/tools/query_pitwall_db", json={"sql": sql})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_sql_cannot_read_duckdb_temp_dir_or_files_outside_the_lake(paddock: Service, tmp_path: Path) -> None:
    from tests.support.procs import REPO

    tmp = REPO / ".tmp"  # DuckDB's default temp directory, relative to the paddock's working directory
    created = not tmp.exists()
    tmp.mkdir(exist_ok=True)
    secret = tmp / "pitwall_hostile_secret.csv"
    secret.write_text("secret\nhunter2\n")
    outside = tmp_path / "outside.csv"
    outside.write_text("secret\nhunter2\n")
    try:
        for path in (".tmp/pitwall_hostile_secret.csv", str(secret), str(outside), "/etc/hostname"):
            for fn in ("read_csv", "read_text"):
                res = _tool(paddock, f"SELECT * FROM {fn}('{path}')")
                assert "error" in res and res["error"]["code"] == "permission_denied", (path, fn, res)
    finally:
        secret.unlink(missing_ok=True)
        if created:
            tmp.rmdir()

"""A message with too many channels is refused from its counts, before its names are built, by a real
uvicorn hot path: a 1007 close naming the limit and its setting, ``/health`` answering while the message
is handled, the refusal counted, and the next message of the session accepted. The channel cap is set
low (PITWALL_INGEST_MAX_CHANNELS=16) so that a message at the cap and one past it are both cheap."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import msgpack
import pytest
import websockets

from services.hotpath.ingest_decode import decode
from shared.settings import Settings
from shared.signals import WIDE_COLUMNS
from tests.support.procs import Service, start_hotpath

CAP = 16
START = {"driver_id": "lim", "car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
# t_s and 15 more canonical channels: a clean frame of exactly CAP channels
KNOWN = ["t_s", *[c for c in WIDE_COLUMNS if c not in ("t_s", "dist_m", "odo_m")][: CAP - 1]]


@pytest.fixture(scope="module")
def hotpath(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    d = tmp_path_factory.mktemp("limits")
    svc = start_hotpath(d / "data", d, env={"PITWALL_INGEST_MAX_CHANNELS": str(CAP)})
    yield svc
    svc.stop()


def _frame(t: float, keys: list[str]) -> dict[str, float]:
    return {k: (t if k == "t_s" else 1.0) for k in keys}


def _columns(keys: list[str], n: int = 3) -> dict[str, list[float]]:
    return {k: [0.1 * (i + 1) if k == "t_s" else 1.0 for i in range(n)] for k in keys}


async def _send(port: int, sid: str, message: bytes | str, url: str) -> tuple[Any, dict[str, Any]]:
    """Send one message; while it is handled, ask /health and open the cue stream (its hello arrives).
    Returns (ack or (code, reason), health)."""
    async with (
        websockets.connect(f"ws://127.0.0.1:{port}/ingest/ws?session_id={sid}", max_size=None) as ws,
        httpx.AsyncClient(base_url=url, timeout=60) as c,
    ):
        await ws.send(message)
        health = await c.get("/health")  # asked after the message was sent, before its answer is read
        assert health.status_code == 200
        async with c.stream("GET", "/cues/stream", params={"session_id": sid}) as cues:  # the cue stream too
            assert cues.status_code == 200
            lines = cues.aiter_lines()
            assert (await anext(lines)).startswith("id: ") and await anext(lines) == "event: hello"
        try:
            got: Any = json.loads(await ws.recv())
        except websockets.ConnectionClosed as exc:
            got = (exc.rcvd.code, exc.rcvd.reason) if exc.rcvd else (None, "")
        return got, health.json()


def _session(svc: Service) -> str:
    return str(httpx.post(f"{svc.url}/session/start", json=START, timeout=30).json()["session_id"])


def _refused(svc: Service, message: bytes | str) -> tuple[int | None, str]:
    sid = _session(svc)
    got, health = asyncio.run(_send(svc.port, sid, message, svc.url))
    assert health["status"] in ("ok", "degraded")
    assert isinstance(got, tuple), got
    return got


def test_470000_channel_names_are_refused_from_their_count(hotpath: Service) -> None:
    names = {"t_s": [0.0], **{f"c{i:06d}": [1] for i in range(470_000)}}
    before = httpx.get(f"{hotpath.url}/health", timeout=30).json()["rejected"]["too_many_channels"]
    code, reason = _refused(hotpath, msgpack.packb({"columns": names}))
    assert code == 1007
    assert reason.startswith("too_many_channels: 470001 channels in one object is over 16")
    assert "PITWALL_INGEST_MAX_CHANNELS" in reason
    code, reason = _refused(hotpath, json.dumps({"session_id": "x", "columns": names}))  # JSON text
    assert code == 1007 and reason.startswith("too_many_channels: 470003 keys in 2 objects")
    assert "more than 16 channels" in reason
    after = httpx.get(f"{hotpath.url}/health", timeout=30).json()["rejected"]["too_many_channels"]
    assert after - before == 2


def test_the_cap_counts_channels_of_frame_objects_and_columns_alike(hotpath: Service) -> None:
    extra = [*KNOWN, "one_more"]
    for message in (
        msgpack.packb({"frames": [_frame(1.0, KNOWN), _frame(1.1, extra)]}),  # the second frame is over
        msgpack.packb({"columns": _columns(extra)}),
        json.dumps({"frames": [_frame(1.0, extra)]}),
        # a JSON object of 17 pairs among many small objects passes the byte count; its decode refuses it
        json.dumps({"frames": [{"t_s": 1.0 + i * 0.01} for i in range(40)] + [_frame(2.0, extra)]}),
    ):
        code, reason = _refused(hotpath, message)
        assert code == 1007, reason
        assert reason.startswith("too_many_channels: 17 "), reason
        assert "16 (PITWALL_INGEST_MAX_CHANNELS)" in reason or "than 16 channels" in reason


def test_a_message_at_the_cap_is_taken(hotpath: Service) -> None:
    sid = _session(hotpath)
    for message in (
        msgpack.packb({"columns": _columns(KNOWN)}),
        msgpack.packb({"frames": [_frame(1.0 + i * 0.1, KNOWN) for i in range(3)]}),
        json.dumps(
            {"columns": {k: [v + 2.0 if k == "t_s" else v for v in vs] for k, vs in _columns(KNOWN).items()}}
        ),
    ):
        ack, _ = asyncio.run(_send(hotpath.port, sid, message, hotpath.url))
        assert isinstance(ack, dict) and ack["accepted"] == 3 and ack["rejected"] == {}, ack


def test_an_ndjson_line_over_the_cap_is_refused_alone(hotpath: Service) -> None:
    sid = _session(hotpath)
    lines = [_frame(1.0, KNOWN), _frame(1.1, [*KNOWN, "one_more"]), _frame(1.2, KNOWN)]
    body = "\n".join(json.dumps(f) for f in lines).encode()
    r = httpx.post(f"{hotpath.url}/ingest/frames", params={"session_id": sid}, content=body, timeout=30)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["accepted"] == 2 and out["rejected"] == {"malformed": 1}
    assert out["errors"] == [
        "line 2: 17 channels in one object is over 16 (PITWALL_INGEST_MAX_CHANNELS); send fewer channels"
    ]


def test_the_decoder_builds_nothing_over_a_limit() -> None:
    """msgpack's own limits, named: a string, a list of frames and a bin column over theirs."""
    s = Settings(ingest_max_batch_frames=10, ingest_max_channels=8)
    for message, reason, text in (
        (msgpack.packb({"frames": [{"t_s": 1.0, "x": "y" * 2000}]}), "malformed", "a string of 2000 bytes"),
        (msgpack.packb({"frames": [{"t_s": 1.0}] * 11}), "too_large", "a batch of 11 frames is over 10"),
        (msgpack.packb({"columns": {"t_s": bytes(8 * 11)}}), "too_large", "a batch of 11 frames is over 10"),
        (msgpack.packb({f"k{i}": 1 for i in range(9)}), "too_many_channels", "9 channels in one object"),
    ):
        with pytest.raises(ValueError) as err:
            decode(s, message)
        assert getattr(err.value, "reason", None) == reason and str(err.value).startswith(text), err.value
    assert Settings().ingest_max_channels == 512

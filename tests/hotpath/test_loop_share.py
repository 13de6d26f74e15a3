"""How the sliced ingest shares the event loop (``services/hotpath/loop_share.py``): between two slices of
frame work it gives the loop two bare turns, and more only while an HTTP request is being answered or a
cue waits to be written; the cue hub counts what it has not yet handed to a response."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest

from services.hotpath.cue_stream import CueHub
from services.hotpath.ingest_decode import BadBatch, decode
from services.hotpath.loop_share import CountRequests, RequestsInProgress, hand_back
from shared.settings import Settings


async def _count_turns(box: list[int]) -> None:
    while True:
        await asyncio.sleep(0)
        box[0] += 1


async def test_with_nothing_waiting_the_hand_back_is_two_bare_turns_not_a_sleep() -> None:
    turns = [0]
    counter = asyncio.create_task(_count_turns(turns))
    await asyncio.sleep(0)  # the counter starts
    turns[0] = 0
    await hand_back(RequestsInProgress(), CueHub())
    counter.cancel()
    # a real sleep (the old fixed 1 ms) would have let the counter run many turns
    assert turns[0] <= 2


async def test_the_hand_back_lasts_until_the_request_in_progress_is_answered() -> None:
    requests = RequestsInProgress()
    requests.n = 1
    done: list[int] = []

    async def request() -> None:  # needs six loop turns, as a request through the middlewares does
        for _ in range(6):
            await asyncio.sleep(0)
        requests.n -= 1
        done.append(1)

    task = asyncio.create_task(request())
    await hand_back(requests, CueHub())
    assert done == [1] and task.done()


async def test_the_hand_back_is_bounded_when_a_request_never_ends() -> None:
    requests = RequestsInProgress()
    requests.n = 1  # an upload that takes minutes: frames still go on
    await asyncio.wait_for(hand_back(requests, CueHub()), 10)


async def test_the_hand_back_lasts_until_a_published_cue_is_written() -> None:
    hub = CueHub()
    sent: list[str] = []

    async def client() -> None:
        async for chunk in hub.stream(None, keepalive_s=60):
            sent.append(chunk)

    task = asyncio.create_task(client())
    await asyncio.sleep(0)  # the client is connected (hello sent)
    hub.publish("cue", {"session_id": "s", "text": "ABS"})
    assert hub.undelivered
    await hand_back(RequestsInProgress(), hub)
    assert not hub.undelivered and any("ABS" in c for c in sent)
    task.cancel()


async def test_a_cue_counts_as_unsent_until_the_response_resumes_the_stream() -> None:
    hub = CueHub(maxlen=2)
    gen = hub.stream("s", keepalive_s=60)
    await gen.__anext__()  # hello
    for i in range(3):  # the queue holds two: the oldest is dropped, no longer waiting
        hub.publish("cue", {"session_id": "s", "n": i})
    (client,) = hub.clients
    assert client.unsent == 2 and client.dropped == 1
    first = await gen.__anext__()
    assert '"n": 1' in first and hub.undelivered  # yielded, not yet written
    second = await gen.__anext__()
    assert '"n": 2' in second and client.unsent == 1
    nxt = asyncio.ensure_future(gen.__anext__())
    await asyncio.sleep(0)  # the response asked for more: both were written
    assert client.unsent == 0 and not hub.undelivered
    nxt.cancel()
    hub.publish("cue", {"session_id": "other", "n": 9})  # another session's cue is not this client's
    assert not hub.undelivered


async def test_requests_are_counted_while_answered_except_long_ones() -> None:
    requests = RequestsInProgress()
    seen: list[tuple[str, int]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((scope.get("path", scope["type"]), requests.n))

    mw = CountRequests(app, requests)
    for scope in (
        {"type": "http", "path": "/health"},
        {"type": "http", "path": "/cues/stream"},
        {"type": "http", "path": "/ingest/frames"},
        {"type": "http", "path": "/imports"},
        {"type": "websocket", "path": "/ingest/ws"},
    ):
        await mw(scope, None, None)
    assert seen == [
        ("/health", 1),
        ("/cues/stream", 0),
        ("/ingest/frames", 0),
        ("/imports", 0),
        ("/ingest/ws", 0),
    ]
    assert requests.n == 0


def test_a_big_message_decoded_in_a_thread_is_the_same_batch() -> None:
    """The worker thread's decode (an identity hook per map, so the loop's thread can take the lock
    between frames) gives exactly what the plain decode gives, nested maps and all."""
    batch = {"session_id": "s", "frames": [{"t_s": i * 0.01, "speed_kmh": 100.0 + i} for i in range(500)]}
    batch["frames"][3]["odd"] = {"nested": [1, {"x": 2}]}  # type: ignore[index]
    data = msgpack.packb(batch)
    settings = Settings()
    assert decode(settings, data, True) == decode(settings, data) == batch
    with pytest.raises(BadBatch, match="not msgpack"):
        decode(settings, msgpack.packb({1: 2}), True)  # a non-string key is refused the same way

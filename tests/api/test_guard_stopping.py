"""A request still running when the server stops (uvicorn cancels it once its graceful shutdown times out)
ends with one log line and a 503 naming why, never a traceback; one already answering just ends."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from shared.asgi_guard import RequestGuard

Message = dict[str, Any]


async def _run(started_first: bool) -> tuple[list[Message], BaseException | None]:
    sent: list[Message] = []
    running = asyncio.Event()

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        if started_first:
            await send({"type": "http.response.start", "status": 200, "headers": []})
        running.set()
        await asyncio.sleep(3600)  # a route waiting on a store that is away

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(msg: Message) -> None:
        sent.append(msg)

    guard = RequestGuard(slow, 1000, "PITWALL_TEST_MAX_BODY")
    scope = {"type": "http", "method": "GET", "path": "/sessions/x/laps", "headers": []}
    task = asyncio.create_task(guard(scope, receive, send))
    await running.wait()
    task.cancel()
    try:
        await task
    except BaseException as exc:  # what the server would log as a traceback
        return sent, exc
    return sent, None


def test_a_request_cut_short_by_the_stop_gets_a_503_and_no_exception(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="shared.asgi_guard"):
        sent, raised = asyncio.run(_run(started_first=False))
    assert raised is None
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 503
    assert json.loads(sent[1]["body"])["error"]["code"] == "stopping"
    assert [r.getMessage() for r in caplog.records] == [
        "GET /sessions/x/laps cut short: the service is stopping"
    ]


def test_a_response_already_started_is_not_answered_twice() -> None:
    sent, raised = asyncio.run(_run(started_first=True))
    assert raised is None
    assert [m["type"] for m in sent] == ["http.response.start"] and sent[0]["status"] == 200

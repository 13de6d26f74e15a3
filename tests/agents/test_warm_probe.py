"""The model probe tells a busy model server from a missing one (real sockets on loopback)."""

from __future__ import annotations

import asyncio
import contextlib
import socket

from services.paddock.llm.warm import WarmClient
from shared.settings import settings_for
from tests.support.scripted_llm import ScriptedLLM


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_server_that_accepts_but_does_not_answer_is_busy_not_missing(tmp_path) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)  # like llama.cpp mid-prefill: the connection is taken, no reply comes
        await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    busy = WarmClient(settings_for(tmp_path, adk_openai_url=f"http://127.0.0.1:{port}/v1"))
    gone = WarmClient(settings_for(tmp_path, adk_openai_url=f"http://127.0.0.1:{_free_port()}/v1"))
    try:
        ok, reason = await busy.probe(0.3)
        assert ok and reason.startswith("busy:")
        ok, reason = await gone.probe(0.3)
        assert not ok and "no model server" in reason
    finally:
        server.close()
        await busy.aclose()
        await gone.aclose()


async def test_a_stream_cancelled_again_while_it_closes_still_cuts_the_upstream_request(tmp_path) -> None:
    """A run cancelled, then cancelled again while it closes its upstream request (Starlette keeps cancelling
    a response whose client hung up): the model server still sees the stream cut, not read to the end into
    an open socket."""
    llm = ScriptedLLM([{"text": " ".join(["word"] * 200), "word_delay_s": 0.03}]).start()
    warm = WarmClient(settings_for(tmp_path, adk_openai_url=llm.url))
    got: list[str] = []

    async def consume() -> None:
        async for delta in warm.stream([{"role": "user", "content": "hi"}], role="t", mode="ask"):
            got.append(delta)

    try:
        task = asyncio.create_task(consume())
        while len(got) < 3:
            await asyncio.sleep(0.01)
        for _ in range(20):  # a cancellation on every turn of the loop, as a cancelled scope delivers them
            task.cancel()
            await asyncio.sleep(0)
        with contextlib.suppress(asyncio.CancelledError):
            await task
        for _ in range(100):
            if llm.stats["streams_cancelled"] or llm.stats["streams_completed"]:
                break
            await asyncio.sleep(0.05)
        assert llm.stats["streams_cancelled"] == 1 and llm.stats["streams_completed"] == 0
    finally:
        await warm.aclose()
        llm.stop()

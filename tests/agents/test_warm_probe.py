"""The model probe tells a busy model server from a missing one (real sockets on loopback)."""

from __future__ import annotations

import asyncio
import socket

from services.paddock.llm.warm import WarmClient
from shared.settings import settings_for


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

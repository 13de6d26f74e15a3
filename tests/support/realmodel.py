"""The real model server for tests and benches: llama.cpp's OpenAI-compatible server running SmolLM2-135M.

``real_llm`` (session-scoped) starts the product's own embedded server
(``services/paddock/llm/embedded.py``) as a real process on a free loopback port, waits for
``/v1/models`` and stops it at the end. Tests that use it skip, with the reason printed, only when the
``[llm]`` extra or the GGUF is not installed; ``./scripts/check`` sets ``PITWALL_REQUIRE_REAL_MODEL=1``
after installing them, and then a missing model is a failure, never a silent skip.

``RecordingProxy`` sits between the paddock and the model server (the network boundary) and keeps
every chat request body, so a test can ask the model's own tokenizer how big the paddock's prompts were
(``prompt_tokens``: the same request, not streamed, with ``max_tokens=1``; ``usage.prompt_tokens``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from services.paddock.llm.embedded import EmbeddedModelServer, missing_reason
from shared.netutil import free_port
from tests.support import require
from tests.support.require import missing

REQUIRE_ENV = require.REAL_MODEL


def skip_without_real_model() -> None:
    """Skip (reason printed with ``-rs``) when the extra is not installed, unless it is required."""
    reason = missing_reason()
    if reason is None:
        return
    missing(REQUIRE_ENV, f"the real model server cannot run: {reason}")


@pytest.fixture(scope="session")
def real_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedModelServer]:
    """llama.cpp's server with SmolLM2-135M-Instruct (chatml-function-calling), one per test session."""
    skip_without_real_model()
    server = EmbeddedModelServer(log_path=tmp_path_factory.mktemp("real-llm") / "llama-server.log")
    server.start(timeout_s=300)  # a loaded 2-core machine can take a while to map the model
    try:
        yield server
    finally:
        server.stop()


class RecordingProxy:
    """A pass-through to an OpenAI-compatible server that records every ``/v1/chat/completions`` body."""

    def __init__(self, upstream: str, max_tokens_cap: int | None = None) -> None:
        self.upstream = upstream.rstrip("/")  # ends in /v1
        # a 135M model can ramble to the end of its context: the cap keeps a test's answers short
        self.max_tokens_cap = max_tokens_cap
        self.requests: list[dict[str, Any]] = []
        # per chat request, what the model answered: {"status", "text", "tool_calls": [{"name", "arguments"}]}
        self.responses: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self.port = 0
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None
        self.app = self._build()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _build(self) -> FastAPI:
        app = FastAPI()
        client = httpx.AsyncClient(timeout=httpx.Timeout(600, connect=5))

        @app.api_route("/v1/{path:path}", methods=["GET", "POST"])
        async def forward(path: str, request: Request) -> Any:
            body = await request.body()
            if path == "chat/completions":
                sent = json.loads(body)
                self.requests.append(dict(sent))
                if self.max_tokens_cap is not None:
                    asked = sent.get("max_tokens") or sent.get("max_completion_tokens")
                    sent.pop("max_completion_tokens", None)
                    sent["max_tokens"] = min(int(asked or self.max_tokens_cap), self.max_tokens_cap)
                    body = json.dumps(sent).encode()
            req = client.build_request(
                request.method,
                f"{self.upstream}/{path}",
                content=body,
                headers={"content-type": request.headers.get("content-type", "application/json")},
            )
            upstream = await client.send(req, stream=True)
            self.statuses.append(upstream.status_code)
            seen: dict[str, Any] = {"status": upstream.status_code, "text": "", "tool_calls": []}
            if path == "chat/completions":
                self.responses.append(seen)

            async def relay() -> AsyncIterator[bytes]:
                buf = b""
                try:
                    async for chunk in upstream.aiter_raw():
                        buf += chunk
                        yield chunk
                finally:
                    await upstream.aclose()
                    _read_stream(buf, seen)

            if "text/event-stream" in upstream.headers.get("content-type", ""):
                return StreamingResponse(
                    relay(), status_code=upstream.status_code, media_type="text/event-stream"
                )
            content = await upstream.aread()
            await upstream.aclose()
            _read_message(content, seen)
            return Response(
                content,
                status_code=upstream.status_code,
                media_type=upstream.headers.get("content-type", "application/json"),
            )

        return app

    def start(self) -> RecordingProxy:
        self.port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)

    def chat_requests(
        self, *, streamed: bool | None = None, tools: bool | None = None
    ) -> list[dict[str, Any]]:
        """Recorded chat bodies (as the paddock sent them), without the one-token warm-ups."""
        out = []
        for r in self.requests:
            if r.get("max_tokens") == 1:
                continue
            if streamed is not None and bool(r.get("stream")) != streamed:
                continue
            if tools is not None and bool(r.get("tools")) != tools:
                continue
            out.append(r)
        return out

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        """The prompt size of one recorded request, by the model's own tokenizer and chat template."""
        probe = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        probe.update(stream=False, max_tokens=1)
        r = httpx.post(f"{self.upstream}/chat/completions", json=probe, timeout=600)
        r.raise_for_status()
        return int(r.json()["usage"]["prompt_tokens"])


def _read_stream(raw: bytes, seen: dict[str, Any]) -> None:
    """Collect the text and tool calls of an OpenAI SSE stream (arguments arrive in pieces)."""
    calls: dict[int, dict[str, str]] = {}
    for line in raw.decode(errors="replace").splitlines():
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        try:
            delta = json.loads(line[5:])["choices"][0].get("delta") or {}
        except (ValueError, KeyError, IndexError, TypeError):
            continue
        seen["text"] += delta.get("content") or ""
        for tc in delta.get("tool_calls") or []:
            slot = calls.setdefault(int(tc.get("index", 0)), {"name": "", "arguments": ""})
            fn = tc.get("function") or {}
            slot["name"] += fn.get("name") or ""
            slot["arguments"] += fn.get("arguments") or ""
    seen["tool_calls"] = list(calls.values())


def _read_message(raw: bytes, seen: dict[str, Any]) -> None:
    try:
        msg = json.loads(raw)["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        return
    seen["text"] = msg.get("content") or ""
    seen["tool_calls"] = [
        {
            "name": (tc.get("function") or {}).get("name", ""),
            "arguments": (tc.get("function") or {}).get("arguments", ""),
        }
        for tc in msg.get("tool_calls") or []
    ]

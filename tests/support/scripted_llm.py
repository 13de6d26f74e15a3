"""A scripted OpenAI-compatible server for tests and benches: real HTTP, real SSE streaming.

Each POST /v1/chat/completions takes the next scripted reply (or the default narrator) and records
the request. With no scripted reply, a request that carries a ``response_format`` JSON schema of fact picks
(Pitwall's narrator) is answered the way llama.cpp answers it, JSON under that schema (``fact_pick_reply``);
any other request gets a plain-text narrator (``default_reply``). A reply is a dict: ``{"text": ...}``, ``{"tool_calls": [{"name", "arguments"}]}``,
``{"status": 500}``, ``{"malformed": true}``, ``{"hang": true}``; any may carry ``"delay_s"``; a streamed
text reply may carry ``"stall_after": n`` (send n words, then go silent without closing the stream) and
``"word_delay_s"`` (its own delay between words) and ``"finish": "length"`` (stopped at the token limit)
and ``"hold_after": n`` (send n words, then hold the stream open until ``release()`` or POST
``/_scripted/release``; ``stats["held"]`` counts streams that reached their hold).

    python -m tests.support.scripted_llm --port 8099
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import threading
import time
import uuid
from collections import deque
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse

MODEL = "gemma3n-e2b"


def default_reply(messages: list[dict[str, Any]]) -> str:
    """A narrator that cites the first lap time and corner it finds in the prompt."""
    text = " ".join(str(m.get("content") or "") for m in messages)
    lap = re.search(r'"best_lap"\s*:\s*(\d+)', text)
    t = re.search(r'"best_lap_s"\s*:\s*([\d.]+)', text)
    corner = re.search(r'"corner"\s*:\s*"([A-Za-z0-9]+)"', text)
    best = (lap.group(1), float(t.group(1))) if lap and t else None
    digest = re.search(r"Best: lap (\d+), (\d+):(\d{2}\.\d+)", text)  # the paddock's evidence digest
    if digest and not lap:
        best = (digest.group(1), int(digest.group(2)) * 60 + float(digest.group(3)))
    if not corner:
        corner = re.search(r"Time to find[^:]*: ([TC]\d+[a-z]?)\b", text)
    parts = ["Solid session."]
    if best:
        parts.append(f"Your best was lap {best[0]} in {best[1]:.3f} s.")
    if corner:
        parts.append(f"Work on {corner.group(1).upper()} next: that is where the time is.")
    return " ".join(parts) + " [EMOTION:encouraging]"


NOTES = ("that is where to work next", "keep it smooth and build on it", "worth a look on the next run")


def fact_pick_reply(body: dict[str, Any]) -> str | None:
    """A reply under the request's fact-pick schema (what a grammar-constrained server writes): the first
    facts it offers, in order, each with a short note in plain words; None when the request has no such
    schema."""
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    try:
        ids = list(schema["properties"]["answer"]["items"]["properties"]["fact"]["enum"])
    except (KeyError, TypeError):
        return None
    picks = [{"fact": f, "note": n} for f, n in zip(ids[:3], NOTES, strict=False)]
    return json.dumps({"emotion": "encouraging", "answer": picks})


def _chunk(cid: str, delta: dict[str, Any], finish: str | None = None) -> str:
    """One OpenAI streaming chunk as an SSE line."""
    return (
        "data: "
        + json.dumps(
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": MODEL,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
        )
        + "\n\n"
    )


class ScriptedLLM:
    def __init__(
        self,
        script: list[dict[str, Any]] | None = None,
        token_delay_s: float = 0.0,
        reply_delay_s: float = 0.0,
        serial: bool = False,
    ) -> None:
        self.script: deque[dict[str, Any]] = deque(script or [])
        self.reply_delay_s = reply_delay_s  # every chat call waits this long first (a fixed-latency model)
        self.serial = asyncio.Lock() if serial else None  # one request at a time, like a phone's server
        self.requests: list[dict[str, Any]] = []
        self.stats = {
            "warmups": 0, "streams_started": 0, "streams_completed": 0, "streams_cancelled": 0, "held": 0,
        }  # fmt: skip
        self._released = threading.Event()  # set: held streams go on (threads and the server's loop alike)
        self.token_delay_s = token_delay_s
        self.app = self._build()
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None
        self.url = ""

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "scripted"}]}

        @app.get("/_scripted/stats")
        async def stats() -> dict[str, Any]:
            return {**self.stats, "requests": len(self.requests)}

        @app.post("/_scripted/script")
        async def add_script(request: Request) -> dict[str, Any]:
            """Queue replies in a running server process (tests talk to it over HTTP)."""
            steps = await request.json()
            self.script.extend(steps if isinstance(steps, list) else [steps])
            return {"queued": len(self.script)}

        @app.post("/_scripted/release")
        async def release() -> dict[str, Any]:
            self.release()
            return {"released": True}

        @app.delete("/_scripted/script")
        async def clear_script() -> dict[str, Any]:
            """Drop replies still queued (a test that failed before using them must not leave them to the
            next one)."""
            dropped = len(self.script)
            self.script.clear()
            return {"dropped": dropped}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Any:
            body = await request.json()
            if body.get("max_tokens") == 1:  # a warm-up ping: answered, never takes a scripted reply
                self.stats["warmups"] += 1
                if body.get("stream"):
                    return StreamingResponse(self._warmup_stream(), media_type="text/event-stream")
                return {
                    "id": "warmup",
                    "object": "chat.completion",
                    "model": MODEL,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "ok"},
                            "finish_reason": "length",
                        }
                    ],
                }
            self.requests.append(body)
            if self.serial is not None:
                async with self.serial:
                    return await self._reply(body)
            return await self._reply(body)

        return app

    async def _reply(self, body: dict[str, Any]) -> Any:
        if self.reply_delay_s:
            await asyncio.sleep(self.reply_delay_s)
        step = self.script.popleft() if self.script else {}
        if step.get("delay_s"):
            await asyncio.sleep(step["delay_s"])
        if step.get("hang"):
            await asyncio.sleep(3600)
        if step.get("status"):
            return JSONResponse({"error": {"message": "scripted failure"}}, status_code=step["status"])
        if step.get("malformed"):
            return PlainTextResponse('{"choices": [ this is not json', media_type="application/json")
        text = step.get("text")
        if text is None and not step.get("tool_calls"):
            text = fact_pick_reply(body) or default_reply(body.get("messages", []))
        calls = [
            {
                "id": f"call_{uuid.uuid4().hex[:8]}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))},
            }
            for c in step.get("tool_calls", [])
        ]
        if body.get("stream"):
            return StreamingResponse(
                self._stream(
                    text or "",
                    calls,
                    step.get("stall_after"),
                    step.get("word_delay_s"),
                    step.get("finish"),
                    step.get("hold_after"),
                ),
                media_type="text/event-stream",
            )
        msg: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            msg["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:8]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": MODEL,
            "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }

    async def _warmup_stream(self) -> Any:
        yield _chunk("warmup", {"role": "assistant", "content": "ok"})
        yield _chunk("warmup", {}, "length")
        yield "data: [DONE]\n\n"

    async def _stream(
        self,
        text: str,
        calls: list[dict[str, Any]],
        stall_after: int | None = None,
        word_delay_s: float | None = None,
        finish: str | None = None,
        hold_after: int | None = None,
    ) -> Any:
        cid = f"chatcmpl-{uuid.uuid4().hex[:8]}"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            return _chunk(cid, delta, finish)

        self.stats["streams_started"] += 1
        done = False
        try:
            yield chunk({"role": "assistant", "content": ""})
            for i, word in enumerate(re.findall(r"\S+\s*", text)):
                if stall_after is not None and i >= stall_after:
                    await asyncio.sleep(3600)  # silence mid-stream, connection open
                if hold_after is not None and i == hold_after:
                    self.stats["held"] += 1
                    while not self._released.is_set():  # open until the test lets it go on
                        await asyncio.sleep(0.02)
                if word_delay_s:
                    await asyncio.sleep(word_delay_s)
                elif self.token_delay_s:
                    await asyncio.sleep(self.token_delay_s)
                yield chunk({"content": word})
            for i, c in enumerate(calls):
                yield chunk({"tool_calls": [{"index": i, **c}]})
            yield chunk({}, "tool_calls" if calls else finish or "stop")
            yield "data: [DONE]\n\n"
            done = True
        finally:  # the caller hung up mid-stream: that is what upstream cancellation looks like here
            self.stats["streams_completed" if done else "streams_cancelled"] += 1

    def release(self) -> None:
        """Let every held stream (``hold_after``) go on, now and later."""
        self._released.set()

    def start(self, port: int = 0) -> ScriptedLLM:
        from tests.support.procs import free_port

        port = port or free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=5)


def start_scripted_llm(
    script: list[dict[str, Any]] | None = None, port: int = 0, token_delay_s: float = 0.0
) -> ScriptedLLM:
    return ScriptedLLM(script, token_delay_s).start(port)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8099)
    ap.add_argument("--script", help="JSON file with a list of replies")
    ap.add_argument("--token-delay", type=float, default=0.0)
    ap.add_argument("--delay", type=float, default=0.0, help="seconds before every chat reply")
    ap.add_argument("--serial", action="store_true", help="answer one chat request at a time")
    a = ap.parse_args()
    from pathlib import Path

    script = json.loads(Path(a.script).read_text()) if a.script else None
    llm = ScriptedLLM(script, a.token_delay, a.delay, a.serial)
    uvicorn.run(llm.app, host="127.0.0.1", port=a.port, log_level="warning")


if __name__ == "__main__":
    main()

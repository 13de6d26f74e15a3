"""The warm tier: one ``httpx`` client straight to the local server's OpenAI-compatible endpoints.

It serves what must be cheap and predictable: the ``/v1/models`` health probe and model discovery,
the start-up warm-up (so the first driver request does not pay for loading the model), and quick
briefs and debriefs, which are a single streamed ``/v1/chat/completions`` call over pre-packed context.
Every chat call writes an ``llm_friction`` row, whether it succeeded, failed or was cancelled.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from services.paddock.agents.narrative import parse_emotion
from services.paddock.llm import litellm_args
from services.paddock.store import PaddockStore
from services.paddock.trace_sink import record
from shared.settings import Settings

log = logging.getLogger(__name__)


class WarmError(Exception):
    """The model server answered badly (HTTP error, malformed stream) or not at all."""


class TokenLimit(WarmError):
    """The stream ended because it reached ``max_tokens`` (finish reason ``length``): every delta before
    it was delivered, the answer is cut."""


class ModelBusy(WarmError):
    """The server accepted the connection but did not answer in time: it is there, busy with a prompt
    (a one-slot llama.cpp server evaluating another request, or one a client gave up on)."""


_READERS: set[asyncio.Task[None]] = set()  # HTTP exchanges under way (a task is only weakly held)


class WarmClient:
    def __init__(self, settings: Settings, store: PaddockStore | None = None) -> None:
        self.settings = settings
        self.store = store
        self.base = settings.adk_openai_url.rstrip("/")
        self.model = settings.adk_openai_model.split("/", 1)[-1]  # the server's own id, without openai/
        self._building: asyncio.Future[httpx.AsyncClient] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _new_client(self) -> httpx.AsyncClient:
        """The client for the model server, built in a worker thread: building one loads the CA bundle into
        an SSL context (40-50 ms idle, 170-450 ms while the agents import beside it), which must not stall
        the event loop. (LiteLLM caches the SSL context its import built, in the agents' load thread.)"""
        key = self.settings.adk_openai_api_key.get_secret_value()
        return httpx.AsyncClient(
            timeout=httpx.Timeout(litellm_args(self.settings)["timeout"], connect=2.0),
            headers={"Authorization": f"Bearer {key}"},
        )

    def start(self) -> None:
        """Begin building this loop's client in a worker thread (start-up); returns at once."""
        loop = asyncio.get_running_loop()
        if self._building is None or self._loop is not loop:
            self._building = asyncio.ensure_future(asyncio.to_thread(self._new_client))
            self._loop = loop

    async def client(self) -> httpx.AsyncClient:
        """One pooled client per event loop (a pooled connection cannot outlive the loop that opened it),
        built once in a worker thread and awaited by whoever needs it first."""
        self.start()
        assert self._building is not None
        return await asyncio.shield(self._building)

    async def aclose(self) -> None:
        building, self._building = self._building, None
        if building is None or self._loop is not asyncio.get_running_loop():
            return
        await asyncio.wait([building])  # a build still under way ends first
        if not building.cancelled() and building.exception() is None:  # a failed build: nothing to close
            await building.result().aclose()

    async def models(self, timeout_s: float = 2.0) -> list[str]:
        """Model ids the server offers (``GET /v1/models``); raises ``WarmError`` when it does not answer."""
        try:
            r = await (await self.client()).get(f"{self.base}/models", timeout=timeout_s)
        except httpx.ReadTimeout as exc:
            raise ModelBusy(
                f"the model server at {self.base} took the request but did not answer in {timeout_s:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise WarmError(f"no model server at {self.base}: {type(exc).__name__}") from exc
        if r.status_code != 200:
            raise WarmError(f"{self.base}/models answered HTTP {r.status_code}")
        try:
            return [str(m["id"]) for m in r.json().get("data", [])]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise WarmError(f"{self.base}/models returned something that is not a model list") from exc

    async def probe(self, timeout_s: float = 2.0) -> tuple[bool, str]:
        try:
            ids = await self.models(timeout_s)
        except ModelBusy as exc:  # llama.cpp answers nothing else while it evaluates a prompt
            return True, f"busy: {exc}"
        except WarmError as exc:
            return False, str(exc)
        if ids and self.model not in ids:
            return True, f"reachable, but {self.model!r} is not among {ids[:5]}"
        return True, "HTTP 200"

    async def discover(self) -> dict[str, Any]:
        """Log where the model lives and whether the configured id is served."""
        try:
            ids = await self.models()
        except WarmError as exc:
            log.warning("model server not reachable yet: %s (template narrator until it is)", exc)
            return {"reachable": False, "reason": str(exc), "models": []}
        if ids and self.model not in ids:
            log.warning("model server at %s does not list %r; it offers %s", self.base, self.model, ids[:10])
        else:
            log.info("model server at %s serves %r", self.base, self.model)
        return {"reachable": True, "models": ids}

    async def warmup(self) -> bool:
        """A one-token completion, so the server has the model loaded before a driver asks."""
        try:
            async for _ in self.stream(
                [{"role": "user", "content": "ok"}], role="warmup", mode="warmup", max_tokens=1
            ):
                pass
            return True
        except TokenLimit:  # the one token it asked for
            return True
        except WarmError as exc:
            log.info("warm-up skipped: %s", exc)
            return False

    async def stream(
        self,
        messages: list[dict[str, str]],
        *,
        role: str,
        mode: str,
        max_tokens: int = 400,
        response_format: dict[str, Any] | None = None,
    ) -> AsyncIterator[str]:
        """Stream a chat completion's text deltas (``response_format``: a JSON schema the server turns into
        a grammar). Raises ``WarmError`` on HTTP errors or a broken stream."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "max_tokens": max_tokens,
            "temperature": litellm_args(self.settings)["temperature"],
        }
        if response_format is not None:
            body["response_format"] = response_format
        t0 = time.perf_counter()
        parts: list[str] = []
        finish: str | None = None
        error: str | None = None
        # the HTTP exchange runs in a task of its own, cancelled once by this generator however often its
        # caller is cancelled (Starlette cancels a response whose client hung up on every turn of the
        # loop): a second cancellation would cut httpx's close short and leave the connection open, the
        # model server writing its whole answer into it
        q: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        reader = asyncio.create_task(self._read(body, q))
        _READERS.add(reader)
        reader.add_done_callback(_READERS.discard)
        try:
            while True:
                kind, value = await q.get()
                if kind == "delta":
                    parts.append(value)
                    yield value
                elif kind == "error":
                    raise value
                else:
                    finish = value
                    break
        except WarmError as exc:
            error = str(exc)[:300]
            raise
        except (asyncio.CancelledError, GeneratorExit):
            error = "cancelled: the client went away"
            raise
        finally:
            reader.cancel()
            record(
                role,
                "model_call",
                {"mode": mode, "prompt_chars": sum(len(m["content"]) for m in messages), "error": error},
                (time.perf_counter() - t0) * 1000,
                error is None,
            )
            if self.store is not None:
                text = "".join(parts)
                self.store.friction(
                    role=role,
                    mode=mode,
                    backend="warm-httpx",
                    prompt_chars=sum(len(m["content"]) for m in messages),
                    completion_chars=len(text),
                    latency_ms=(time.perf_counter() - t0) * 1000,
                    truncated=finish == "length",
                    fell_back=False,
                    error=error,
                    emotion=parse_emotion(text)[1] if text and mode != "warmup" else None,
                )
        if finish == "length":
            raise TokenLimit(f"cut at the {max_tokens}-token limit")

    async def _read(self, body: dict[str, Any], q: asyncio.Queue[tuple[str, Any]]) -> None:
        """One streamed chat completion into ``q``: ("delta", text) items, then ("end", finish reason) or
        ("error", WarmError)."""
        finish: str | None = None
        try:
            client = await self.client()
            async with client.stream("POST", f"{self.base}/chat/completions", json=body) as r:
                if r.status_code != 200:
                    await r.aread()
                    raise WarmError(f"chat/completions answered HTTP {r.status_code}: {r.text[:200]}")
                async for line in r.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        break
                    try:
                        choice = json.loads(payload)["choices"][0]
                    except (ValueError, KeyError, IndexError, TypeError) as exc:
                        raise WarmError(f"malformed stream chunk: {payload[:120]!r}") from exc
                    finish = choice.get("finish_reason") or finish
                    delta = (choice.get("delta") or {}).get("content") or ""
                    if delta:
                        q.put_nowait(("delta", delta))
        except httpx.HTTPError as exc:
            q.put_nowait(("error", WarmError(f"model server failed: {type(exc).__name__}: {exc}"[:320])))
            return
        except WarmError as exc:
            q.put_nowait(("error", exc))
            return
        q.put_nowait(("end", finish))

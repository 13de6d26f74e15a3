"""The model server as the coach service sees it: reachability probes and the start-up warm-up.

A warm-up model call never overlaps a driver's: it runs under ``model_lock`` and is skipped when a
driver's request already holds the model; a driver's request waits for a warm-up call in progress
(``wait_warmup``) before its own call and its first-token clock start (a stock llama.cpp server ends the
stream in progress when another request arrives).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from services.paddock.llm import litellm_args
from services.paddock.llm.warm import WarmClient
from services.paddock.store import PaddockStore
from shared.settings import Settings

log = logging.getLogger(__name__)


class ModelServerMixin:
    settings: Settings
    store: PaddockStore
    warm: WarmClient

    def _init_model_server(self) -> None:
        self._reachable_at = 0.0
        self._probe: tuple[float, bool, str] = (0.0, False, "not probed yet")
        self._probe_task: asyncio.Task[Any] | None = None
        self._in_model = 0  # driver model calls running now (the server is busy, so it is up)
        self._warm_lock: asyncio.Lock | None = None
        self.warm_state: dict[str, Any] = {"status": "not started"}

    @property
    def model_lock(self) -> asyncio.Lock:
        if self._warm_lock is None:
            self._warm_lock = asyncio.Lock()
        return self._warm_lock

    async def wait_warmup(self) -> None:
        """Wait for a warm-up model call in progress to end (a driver's call never interrupts it)."""
        async with self.model_lock:
            pass

    async def model_reachable(self, timeout_s: float = 2.0) -> tuple[bool, str]:
        """Probe ``/v1/models``. A success is trusted for 5 s, and while a model call is running (a busy
        llama.cpp server answers nothing else); a failure is never cached."""
        now = time.monotonic()
        if self._in_model:
            return True, "answering another request"
        if now - self._reachable_at < 5.0:
            return True, "HTTP 200 (probed in the last 5 s)"
        ok, reason = await self.warm.probe(timeout_s)
        self._reachable_at = now if ok else 0.0
        self._probe = (time.monotonic(), ok, reason)
        return ok, reason

    def model_status(self) -> tuple[bool, str]:
        """For ``/health``: the last probe at once, refreshed in the background when older than 5 s."""
        at, ok, reason = self._probe
        if self._in_model:
            return True, "answering a request"
        if time.monotonic() - at > 5.0 and (self._probe_task is None or self._probe_task.done()):
            self._probe_task = asyncio.get_running_loop().create_task(self.model_reachable(1.5))
        return ok, reason

    async def _warm_adk(self) -> None:  # the agent tree's data phase once (no model): see CoachService
        raise NotImplementedError

    async def ready(self) -> None:
        raise NotImplementedError

    async def warm_up(self) -> None:
        """Start-up, in the background: wait for the tree, run its data phase once (no model call), then
        discover the server's models and load ours with a one-token call, unless a driver got there first."""
        t0 = time.perf_counter()
        self.warm_state = {"status": "loading agents"}
        try:
            await self.ready()
            self.warm_state = {"status": "warming"}
            await self._warm_adk()
        except Exception:  # a warm-up problem must never stop the service
            log.exception("ADK warm-up failed")
        found = await self.warm.discover()
        self._probe = (time.monotonic(), found["reachable"], found.get("reason") or "HTTP 200")
        warmed: bool | str = False
        if found["reachable"] and self.settings.llm_warmup:
            async with self.model_lock:
                if self._in_model:  # a driver's request is using the model: it is loaded
                    log.info("model warm-up skipped: a driver's request is using the model")
                    warmed = "skipped: a driver's request was using the model"
                else:
                    await self.warm.warmup()  # the server loads the model
                    await self._warm_litellm()  # LiteLLM's lazy pieces, not on a driver's request or the loop
                    warmed = True
        self.warm_state = {
            "status": "ready",
            "model_reachable": found["reachable"],
            "model_warmed": warmed,
            "ms": round((time.perf_counter() - t0) * 1000),
        }

    async def _warm_litellm(self) -> None:
        """One streamed one-token call through LiteLLM in a worker thread, recorded like any other call:
        its first call imports ~500 modules (the OpenAI SDK's resources, LiteLLM's cost calculator and
        stream builder), 0.5-1.3 s that must not run on the event loop; the agents' later async calls
        find them loaded."""
        t0 = time.perf_counter()
        error = await asyncio.to_thread(self._litellm_call)
        self.store.friction(
            role="warmup",
            mode="warmup",
            backend="litellm",
            prompt_chars=2,
            completion_chars=None,
            latency_ms=(time.perf_counter() - t0) * 1000,
            truncated=True,
            fell_back=False,
            error=error,
            emotion=None,
        )

    def _litellm_call(self) -> str | None:
        """The one-token call (runs in a worker thread); the error in words, or None."""
        import litellm  # already imported by the agents' load, in its thread

        try:
            for _ in litellm.completion(
                **{**litellm_args(self.settings), "max_tokens": 1},
                messages=[{"role": "user", "content": "ok"}],
                stream=True,
            ):
                pass
        except Exception as exc:  # the server may not be up yet: the first real call then pays instead
            return f"{type(exc).__name__}: {str(exc)[:200]}"
        return None

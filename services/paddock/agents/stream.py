"""Typed request failures and the streaming deadlines every model call runs under."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from shared.settings import Settings


# ---- typed failures -------------------------------------------------------------------------------
class CoachError(Exception):
    """A request that the model could not finish; ``code`` goes to the client."""

    code = "model_failed"
    retryable = True


class ModelFailed(CoachError):
    """The model server answered with an error or a broken stream."""


class NoFirstToken(CoachError):
    code = "no_first_token"


class StreamStalled(CoachError):
    code = "stream_stalled"


class Truncated(CoachError):
    """The answer reached the token limit (``PITWALL_LLM_MAX_TOKENS``)."""

    code = "max_tokens"


class BudgetExceeded(CoachError):
    code = "budget_exceeded"
    retryable = False


class LoopGuard(CoachError):
    code = "loop_guard"
    retryable = False


class UnknownSession(Exception):
    """The request names a session the lake does not have (a 404 before any response starts)."""


class _Clock:
    """The streaming deadlines: ``first_token_s`` from the start of a model call to its first output,
    then ``idle_s`` of silence between outputs. A tool result starts a new model call (its own prefill)."""

    def __init__(self, settings: Settings) -> None:
        self.first_s = settings.llm_first_token_s
        self.idle_s = settings.llm_idle_s
        self.deadline: float | None = None
        self.streaming = False

    def model_call(self) -> None:
        self.deadline = asyncio.get_running_loop().time() + self.first_s
        self.streaming = False

    def output(self) -> None:
        self.deadline = asyncio.get_running_loop().time() + self.idle_s
        self.streaming = True

    def expired(self) -> CoachError:
        if self.streaming:
            return StreamStalled(f"the model went silent for {self.idle_s:g} s mid-answer")
        return NoFirstToken(f"no first token within {self.first_s:g} s")


async def _deadlined(agen: AsyncIterator[Any], clock: _Clock) -> AsyncGenerator[Any, None]:
    """``agen``'s items, each awaited under the clock's current deadline. However it ends, ``agen`` is
    closed here (an ADK run left to the garbage collector cannot shut down cleanly)."""
    it = aiter(agen)
    try:
        while True:
            try:
                async with asyncio.timeout_at(clock.deadline) as cm:
                    item = await anext(it)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if cm.expired():
                    raise clock.expired() from None
                raise
            yield item
    finally:
        close = getattr(agen, "aclose", None)
        if close is not None:
            with contextlib.suppress(RuntimeError):  # a generator that was already mid-shutdown
                await close()

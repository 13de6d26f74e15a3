"""Where a request's tool and model calls are traced: the coach service sets ``SINK`` for the run of one
request (a context variable, so worker threads and the model client see it), and whatever runs a tool
(``tools.registry.run_tool``) or calls the model (``llm.warm.WarmClient``) reports through ``record``.
Outside a request nothing is recorded."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

# (name, event_type "tool_call" | "model_call", detail, latency_ms, success)
Sink = Callable[[str, str, dict[str, Any], float | None, bool], None]
SINK: ContextVar[Sink | None] = ContextVar("pitwall_trace_sink", default=None)


def record(name: str, event: str, detail: dict[str, Any], latency_ms: float | None, ok: bool) -> None:
    """One trace row for the request running in this context, if any."""
    sink = SINK.get()
    if sink is not None:
        sink(name, event, detail, latency_ms, ok)

"""Deterministic data agents: call their tool directly and write compact JSON to their output_key.

A debrief then costs exactly one LLM call (the narrative), which reads the digest of these outputs
(``digest.build_digest``), never the outputs themselves. ``PITWALL_DATA_AGENTS=llm`` swaps these for
LlmAgents with the same tools (see ``registry.build_data_agent``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions

from services.paddock.tools.registry import run_tool

# output_key -> (tool name, how to build its args from state)
DATA_SPECS: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "highlights_data": ("get_session_highlights", lambda s: {"session_id": s["session_id"]}),
    "telemetry_data": ("get_track_variance_map", lambda s: {"session_id": s["session_id"]}),
    "pedagogy_data": ("get_session_plan_context", lambda s: {"session_id": s["session_id"], "n_laps": 10}),
    "tire_data": ("get_tire_thermal_window", lambda s: {"session_id": s["session_id"]}),
    "handling_data": ("get_handling_balance", lambda s: {"session_id": s["session_id"]}),
    "engine_health_data": ("get_engine_health_timeline", lambda s: {"session_id": s["session_id"]}),
    "traction_data": ("get_traction_events", lambda s: {"session_id": s["session_id"]}),
    "input_quality_data": ("get_input_smoothness", lambda s: {"session_id": s["session_id"]}),
    "safety_data": ("get_safety_events", lambda s: {"session_id": s["session_id"]}),
    "opportunities_data": ("get_opportunities", lambda s: {"session_id": s["session_id"]}),
    "threads_data": ("get_threads", lambda s: {"session_id": s["session_id"]}),
}
DATA_AGENT_NAMES = {
    "highlights_data": "HighlightFinder",
    "telemetry_data": "TelemetryData",
    "pedagogy_data": "Pedagogy",
    "tire_data": "TireManager",
    "handling_data": "HandlingBalance",
    "engine_health_data": "EngineHealth",
    "traction_data": "Traction",
    "input_quality_data": "InputQuality",
    "safety_data": "SafetyMonitor",
    "opportunities_data": "Opportunities",
    "threads_data": "Threads",
}


def compact(obj: Any) -> str:
    """A tool's output as compact JSON: the full data, for the tablet's cards and the digest."""
    return json.dumps(obj, default=str, separators=(",", ":"))


async def run_data_spec(output_key: str, session_id: str, driver_id: str) -> str:
    """One data agent's work, in a worker thread: its tool on this session, as compact JSON. A broken tool
    gives an error object instead, so it cannot sink the brief or debrief."""
    tool, build = DATA_SPECS[output_key]
    try:
        out = await asyncio.to_thread(
            run_tool, tool, build({"session_id": session_id, "driver_id": driver_id})
        )
    except Exception as exc:
        out = {"error": {"code": "tool_failed", "message": f"{type(exc).__name__}: {exc}"}}
    return compact(out)


class DataAgent(BaseAgent):
    """Runs one tool with the session and driver from state; no LLM."""

    output_key: str
    tool_name: str

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = ctx.session.state
        out = await run_data_spec(
            self.output_key, state.get("session_id", "latest"), state.get("driver_id", "driver")
        )
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            actions=EventActions(state_delta={self.output_key: out}),
        )


def make_data_agent(output_key: str, suffix: str) -> DataAgent:
    tool, _ = DATA_SPECS[output_key]
    return DataAgent(
        name=f"{DATA_AGENT_NAMES[output_key]}{suffix}",
        output_key=output_key,
        tool_name=tool,
        description=f"Deterministic data agent: {tool} into {output_key}",
    )


class DigestAgent(BaseAgent):
    """After the data phase: the compact evidence the narrative reads (``evidence`` in state); no LLM."""

    kind: str

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        from services.paddock.agents.digest import build_digest

        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            actions=EventActions(state_delta={"evidence": build_digest(self.kind, dict(ctx.session.state))}),
        )

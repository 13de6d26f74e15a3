"""The debrief's data for the digest's and narrative's tests: seven of its data agents' tools run on a
session (the ones whose results say what was and was not recorded), keyed as the pipeline's state is."""

from __future__ import annotations

from typing import Any

from services.paddock.tools.registry import run_tool

CALLS = {
    "highlights_data": "get_session_highlights",
    "tire_data": "get_tire_thermal_window",
    "handling_data": "get_handling_balance",
    "engine_health_data": "get_engine_health_timeline",
    "traction_data": "get_traction_events",
    "input_quality_data": "get_input_smoothness",
    "safety_data": "get_safety_events",
}


def debrief_state(sid: str) -> dict[str, Any]:
    """State key -> that agent's tool result on ``sid``."""
    return {key: run_tool(tool, {"session_id": sid}) for key, tool in CALLS.items()}

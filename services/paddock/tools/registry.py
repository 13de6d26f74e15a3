"""The tools by name, their JSON schemas (from the signatures), and argument validation."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError, create_model

from services.paddock.tools import (
    aim,
    alarms,
    balance,
    coaching,
    laps,
    limits,
    markers,
    opportunities,
    optimal,
    progress,
    session_compare,
    sessions,
)
from services.paddock.tools.base import ToolError
from services.paddock.trace_sink import record
from shared.ids import BadIdError, check_id

TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    f.__name__: f
    for f in (
        sessions.query_pitwall_db,
        laps.get_lap_delta,
        progress.get_corner_history,
        progress.get_progress_report,
        sessions.get_setup_indicators,
        sessions.get_session_highlights,
        laps.get_gold_lap_comparison,
        coaching.get_weather_adaptation_context,
        progress.get_session_plan_context,
        sessions.get_incident_moments,
        laps.get_race_pace_model,
        progress.get_goal_targets,
        laps.get_track_variance_map,
        coaching.get_agent_telemetry,
        coaching.get_audio_script_context,
        coaching.save_voice_scripts,
        aim.get_tire_thermal_window,
        balance.get_handling_balance,
        aim.get_engine_health_timeline,
        aim.get_traction_events,
        aim.get_input_smoothness,
        aim.get_safety_events,
        alarms.get_flags_and_alarms,
        optimal.get_achievable_lap,
        optimal.get_corner_consistency,
        opportunities.get_opportunities,
        opportunities.get_threads,
        limits.get_vital_limits,
        markers.get_brake_markers,
        markers.get_lift_points,
        session_compare.get_sessions_here,
        session_compare.compare_sessions,
    )
}


class ToolArgError(ValueError):
    def __init__(self, arg: str, message: str) -> None:
        self.arg = arg
        super().__init__(f"{arg}: {message}")


def _model(fn: Callable[..., Any]) -> Any:
    fields: dict[str, Any] = {}
    for name, p in inspect.signature(fn).parameters.items():
        ann = p.annotation if p.annotation is not inspect.Parameter.empty else Any
        fields[name] = (ann, ... if p.default is inspect.Parameter.empty else p.default)
    return create_model(f"{fn.__name__}_args", **fields)


def tool_schemas() -> list[dict[str, Any]]:
    return [
        {"name": n, "description": inspect.getdoc(f), "parameters": _model(f).model_json_schema()}
        for n, f in TOOLS.items()
    ]


def validate_args(name: str, args: dict[str, Any]) -> dict[str, Any]:
    if name not in TOOLS:
        raise KeyError(name)
    if not isinstance(args, dict):
        raise ToolArgError("args", "must be a JSON object")
    fn = TOOLS[name]
    extra = set(args) - set(inspect.signature(fn).parameters)
    if extra:
        raise ToolArgError(sorted(extra)[0], "unknown argument")
    try:
        m = _model(fn).model_validate(args)
    except ValidationError as exc:
        e = exc.errors()[0]
        raise ToolArgError(".".join(str(x) for x in e["loc"]) or "args", e["msg"]) from exc
    clean = m.model_dump()
    for arg, value in clean.items():  # a session id is an id (or "latest"), never a path or control bytes
        if arg.endswith("session_id") and isinstance(value, str) and value not in ("latest", ""):
            try:
                check_id(value, arg.replace("_", " "))
            except BadIdError as exc:
                raise ToolArgError(arg, str(exc)) from None
    return clean


def run_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Validate and run a tool; data problems come back as ``{error: {code, message, hint}}``."""
    clean = validate_args(name, args)
    t0 = time.perf_counter()
    try:
        out = TOOLS[name](**clean)
    except ToolError as exc:
        out = exc.as_dict()
    ok = not (isinstance(out, dict) and "error" in out)
    record(name, "tool_call", {"args": clean, "by": "pitwall"}, (time.perf_counter() - t0) * 1000, ok)
    return out

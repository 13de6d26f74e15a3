"""AGENT_REGISTRY (23 specialists), the tools each one gets, and the factories that build the tree.

One parent per agent: every pipeline and the orchestrator get their own instances.
"""

from __future__ import annotations

import asyncio
import functools
import warnings
from collections.abc import Callable
from typing import Any

from services.paddock.agents import prompts
from services.paddock.agents.data_agents import DATA_AGENT_NAMES, DATA_SPECS, DigestAgent, make_data_agent
from services.paddock.tools.base import ToolError
from services.paddock.tools.registry import TOOLS

# name -> (description <= 30 words, tools)
AGENT_REGISTRY: dict[str, dict[str, Any]] = {
    "TelemetryAgent": {
        "description": "General telemetry questions: speeds, laps, channels, anything not routed elsewhere; queries the session data directly.",
        "tools": [
            "query_pitwall_db",
            "get_session_highlights",
            "get_lap_delta",
            "get_engine_health_timeline",
            "get_tire_thermal_window",
            "get_safety_events",
            "get_flags_and_alarms",
            "get_traction_events",
            "get_opportunities",
        ],
    },
    "VoiceScriptAgent": {
        "description": "Writes short spoken cue scripts and pace notes for corners, sized for the driver's level, and saves them for audio.",
        "tools": ["get_audio_script_context", "save_voice_scripts"],
    },
    "CornerCoachAgent": {
        "description": "Coaching for one named corner: braking, apex, exit, history across sessions and what to try next lap.",
        "tools": ["get_corner_history", "get_track_variance_map", "get_traction_events", "get_brake_markers"],
    },
    "GoldLapAgent": {
        "description": "Compares laps with the saved gold reference lap corner by corner: speed gaps and lap-time leverage.",
        "tools": ["get_gold_lap_comparison", "get_lap_delta"],
    },
    "WeatherAdaptationAgent": {
        "description": "Adapting to conditions: fog, damp, heat, track and tyre temperature by hour of day.",
        "tools": ["get_weather_adaptation_context", "get_tire_thermal_window"],
    },
    "SessionPlannerAgent": {
        "description": "Plans a practice session for the laps available: warm-up, focus corners, cool-down.",
        "tools": ["get_session_plan_context", "get_goal_targets", "get_threads"],
    },
    "IncidentReviewAgent": {
        "description": "Reviews incidents and close calls: g spikes, steering snaps, lockups, ABS and DSC moments.",
        "tools": ["get_incident_moments", "get_safety_events", "get_traction_events"],
    },
    "RacePaceAgent": {
        "description": "Race pace, stint planning, consistency and lap-time degradation per lap.",
        "tools": ["get_race_pace_model", "get_tire_thermal_window"],
    },
    "GoalSettingAgent": {
        "description": "Sets lap-time goals from personal best and theoretical best, with per-corner targets.",
        "tools": ["get_goal_targets", "get_progress_report"],
    },
    "MentalMapAgent": {
        "description": "Consistency and the driver's mental map: per-corner variance of time, speed and brake point.",
        "tools": ["get_track_variance_map", "get_session_highlights", "get_opportunities"],
    },
    "LapComparisonAgent": {
        "description": "Explains why one lap was faster than another: distance-aligned deltas, corners, engine and safety context.",
        "tools": ["get_lap_delta", "get_engine_health_timeline", "get_safety_events", "query_pitwall_db"],
    },
    "ProgressTrackerAgent": {
        "description": "Progress across sessions: best-lap trend, improving and regressing corners, plateaus.",
        "tools": [
            "get_progress_report",
            "get_corner_history",
            "get_threads",
            "get_sessions_here",
            "compare_sessions",
        ],
    },
    "SetupAdvisorAgent": {
        "description": "Car setup advice: understeer, oversteer, balance from steering, yaw and g data.",
        "tools": ["get_setup_indicators", "get_handling_balance"],
    },
    "MindsetCoachAgent": {
        "description": "Motivation and mindset when frustrated or on a plateau, grounded in real progress.",
        "tools": ["get_progress_report", "get_goal_targets"],
    },
    "AgentMetaAgent": {
        "description": "Answers questions about Pitwall's own agents: slowest agents, tool-call latency, failures.",
        "tools": ["get_agent_telemetry"],
    },
    "TireManager": {
        "description": "Tyre pressures and temperatures from TPMS: window, cold-to-hot rise, alarms.",
        "tools": ["get_tire_thermal_window"],
    },
    "HandlingBalance": {
        "description": "Understeer and oversteer from measured versus bicycle-model yaw rate.",
        "tools": ["get_handling_balance"],
    },
    "EngineHealth": {
        "description": "Engine vitals: oil pressure under load, coolant and oil temperature drift, fuel pressure.",
        "tools": ["get_engine_health_timeline", "get_vital_limits"],
    },
    "Traction": {
        "description": "Wheelspin and lockups from wheel speeds, attributed to corners.",
        "tools": ["get_traction_events"],
    },
    "InputQuality": {
        "description": "Smoothness of steering, throttle and brake inputs with a 0-100 score.",
        "tools": ["get_input_smoothness"],
    },
    "SafetyMonitor": {
        "description": "ABS, DSC, engine light, brake switch, TPMS and logger alarm timeline.",
        "tools": ["get_safety_events", "get_flags_and_alarms"],
    },
    "HighlightFinder": {
        "description": "Session highlights: best and theoretical best lap, biggest opportunities.",
        "tools": ["get_session_highlights", "get_opportunities"],
    },
    "Pedagogy": {
        "description": "What to practise next: focus corners and a lap plan.",
        "tools": ["get_session_plan_context"],
    },
}
QA_AGENTS = [n for n in AGENT_REGISTRY if n.endswith("Agent")]  # 14 routed specialists + TelemetryAgent
DEBRIEF_KEYS = list(DATA_SPECS)
BRIEF_KEYS = [
    "pedagogy_data",
    "tire_data",
    "engine_health_data",
    "safety_data",
    "opportunities_data",
    "threads_data",
]


def async_tool(fn: Callable[..., dict[str, Any]]) -> Callable[..., Any]:
    """The same tool as an async function (runs in a thread; DuckDB never blocks the event loop)."""

    @functools.wraps(fn)
    async def wrapper(**kwargs: Any) -> dict[str, Any]:
        try:
            return await asyncio.to_thread(fn, **kwargs)
        except ToolError as exc:
            return exc.as_dict()

    return wrapper


def build_qa_agent(name: str, model: Any) -> Any:
    """A specialist that chooses and calls its own tools (``PITWALL_SPECIALIST_TOOLS=model``, or a question
    no route answers). Its reply is held back and shown only when every figure in it passes the check."""
    from google.adk.agents import LlmAgent

    spec = AGENT_REGISTRY[name]
    return LlmAgent(
        name=name,
        model=model,
        description=spec["description"],
        instruction=prompts.specialist(name),
        tools=[async_tool(TOOLS[t]) for t in spec["tools"]],
    )


def build_data_agent(key: str, suffix: str, model: Any, mode: str) -> Any:
    if mode != "llm":
        return make_data_agent(key, suffix)
    from google.adk.agents import LlmAgent

    tool = DATA_SPECS[key][0]
    return LlmAgent(
        name=f"{DATA_AGENT_NAMES[key]}{suffix}",
        model=model,
        output_key=key,
        instruction=f"Call {tool} for session {{session_id?}} and reply with its JSON only.",
        tools=[async_tool(TOOLS[tool])],
    )


def build_pipeline(kind: str, model: Any, mode: str, client: Any = None, max_tokens: int = 160) -> Any:
    from google.adk.agents import ParallelAgent, SequentialAgent

    from services.paddock.agents.pipeline import NarratorAgent

    keys = DEBRIEF_KEYS if kind == "debrief" else BRIEF_KEYS
    suffix = "D" if kind == "debrief" else "B"
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r".*(SequentialAgent|ParallelAgent).*", category=DeprecationWarning
        )
        phase = ParallelAgent(
            name=f"{kind.capitalize()}DataPhase",
            sub_agents=[build_data_agent(k, suffix, model, mode) for k in keys],
        )
        narrative = NarratorAgent(
            name=f"NarrativeAgent{kind.capitalize()}", kind=kind, client=client, max_tokens=max_tokens
        )
        digest = DigestAgent(
            name=f"{kind.capitalize()}Digest", kind=kind, description="Compact evidence for the narrative"
        )
        return SequentialAgent(name=f"{kind.capitalize()}Pipeline", sub_agents=[phase, digest, narrative])

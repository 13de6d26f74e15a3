"""The specialist's first tool call, made by Pitwall (``PITWALL_SPECIALIST_TOOLS=evidence``): the tool of
the routed specialist that the question gives arguments for (two laps, a corner, a topic), run here, and
its result as the compact evidence a small model reads (``evidence_text``)."""

from __future__ import annotations

import inspect
import re
from typing import Any

from services.paddock.agents.data_answer import _SENTENCES, DataAnswer, _find_corner, _lap_pair, format_result
from services.paddock.tools.base import ToolError, session_row
from services.paddock.tools.registry import TOOLS, run_tool

NEEDS_MODEL_TOOLS = frozenset({"VoiceScriptAgent"})  # its answer is a tool call (saving the scripts)
EVIDENCE_MAX_CHARS = 1200  # about 400 tokens of a small model's prefill


def _single_lap(question: str) -> int | None:
    m = re.search(r"\blap\s+(\d{1,4})\b", question)
    return int(m.group(1)) if m else None


def _args_for(name: str, question: str, s: dict[str, Any], laps_default: bool) -> dict[str, Any] | None:
    """Arguments for tool ``name`` from the question and the session, or None when they cannot be known
    without reading the question the way only a model can (an SQL query, an hour of the day).
    ``laps_default``: a lap comparison that names no lap compares the best lap with the slowest."""
    sid = s["session_id"]
    if name == "get_lap_delta":
        pair = _lap_pair(question, sid)
        one = _single_lap(question) if pair is None else None
        if pair is None and (one is not None or laps_default):
            hl = run_tool("get_session_highlights", {"session_id": sid})
            best, other = hl.get("best_lap"), one if one is not None else hl.get("slowest_lap")
            # "why was lap 7 slow?": lap 7 against the session's best lap
            pair = (int(best), int(other)) if best is not None and other is not None else None
            pair = pair if pair is None or pair[0] != pair[1] else None
        return None if pair is None else {"session_id": sid, "lap_a": pair[0], "lap_b": pair[1]}
    if name == "get_corner_history":
        corner = _find_corner(question, s["track_id"])
        return None if corner is None else {"session_id": sid, "corner_name": corner}
    params = inspect.signature(TOOLS[name]).parameters
    required = {k for k, v in params.items() if v.default is inspect.Parameter.empty}
    if not required <= {"session_id"}:
        return None
    return {"session_id": sid} if "session_id" in params else {}


def planned_call(agent: str, question: str, session_id: str) -> DataAnswer | None:
    """The specialist's first tool call, chosen from its tools and made here, so a small model
    narrates real numbers instead of writing a call as text (or answering without one). None when no tool
    of the agent can be called from the question alone: the model then gets its tools. Runs the tool (call
    it in a worker thread)."""
    from services.paddock.agents.registry import AGENT_REGISTRY

    spec = AGENT_REGISTRY.get(agent)
    if spec is None or agent in NEEDS_MODEL_TOOLS:
        return None
    try:
        s = session_row(session_id)
    except ToolError:
        return None
    q = question.lower()
    # a tool the question names arguments for (two laps, a corner) first, then the one its topic points to
    # (engine, tyres, ABS/DSC, lockups), then the agent's tools in order
    from services.paddock.agents.classifier import topic_tools

    tools = spec["tools"]
    first = [t for t in ("get_lap_delta", "get_corner_history", *topic_tools(q)) if t in tools]
    for name in dict.fromkeys([*first, *tools]):
        args = _args_for(name, q, s, agent == "LapComparisonAgent")
        if args is not None:
            result = run_tool(name, args)
            return DataAnswer(evidence_text(name, result), name, args, result)
    return None


def _plain(x: Any, depth: int = 0) -> str:
    """A tool result as compact text without quotes or braces (llama.cpp's chat template HTML-escapes
    every quote into several tokens): ``key: value; key: value``, nested values in parentheses, lists
    to their first 12 items, floats to 3 decimals, nulls left out."""
    if isinstance(x, dict):
        items = [
            f"{k.replace('_', ' ')}: {_plain(v, depth + 1)}"
            for k, v in x.items()
            if v is not None and k != "session_id"
        ]
        text = "; ".join(items)
        return f"({text})" if depth else text
    if isinstance(x, list):
        shown = " | ".join(_plain(v, depth + 1) for v in x[:12])
        return f"[{shown}{' | ...' if len(x) > 12 else ''}]"
    if isinstance(x, float):
        return f"{round(x, 3):g}"
    return str(x)


def evidence_text(name: str, result: dict[str, Any]) -> str:
    """What the model reads of a tool result: plain sentences for the tools that have them, else the
    result as compact text, at most ``EVIDENCE_MAX_CHARS``."""
    if name in _SENTENCES or "error" in result:
        return format_result(name, result)
    text = _plain(result)
    return text if len(text) <= EVIDENCE_MAX_CHARS else text[: EVIDENCE_MAX_CHARS - 4] + " ..."

"""Answers from the data alone, for when no model can answer a question (none running, no first token in
time, or a weak model that wrote its tool call as text instead of making it), and a tool's output in plain
sentences (``format_result``). The specialist's first tool call, made by Pitwall: ``planned_call``.

Lap-versus-lap, corner and "where do I lose time" questions are answered from the same tools the
specialists use, in plain sentences built from the tool's output, and labelled ``narrator: "data"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from services.paddock.agents.alarm_text import warnings_text
from services.paddock.agents.coaching_lines import opportunities_text, threads_text
from services.paddock.agents.digest import corner_label, lap_list, laptime, secs
from services.paddock.agents.pace_text import achievable_text, race_pace_text
from services.paddock.tools.alarms import FlagReport
from services.paddock.tools.base import ToolError, session_row, track_corners
from services.paddock.tools.registry import run_tool

_LAPS = re.compile(r"\blaps?\s+(\d{1,4})\b(?:\D{1,20}?\b(?:lap\s+)?(\d{1,4})\b)?")
_LOSE = re.compile(
    r"where (?:do|did|am) i (?:lose|losing|lost)|losing time|lose (?:the most )?time|time to find|"
    r"biggest (?:gain|loss|opportunit)|where.*\bslow(?:er)?\b"
)


@dataclass
class DataAnswer:
    text: str
    tool: str
    args: dict[str, Any]
    result: dict[str, Any] = field(default_factory=dict)


def _labels(d: dict[str, Any]) -> tuple[str, str, str]:
    """How the answer names lap_a (the reference), lap_b and, once, the reference in full: plain lap
    numbers within one session; the other driver's name and the session when lap_a is another session's."""
    a, b = d["lap_a"], d["lap_b"]
    other = d.get("ref_session_id")
    if not other:
        return f"lap {a}", f"lap {b}", f"lap {a}"
    who = d.get("ref_driver_id")
    short = f"{who}'s lap {a}" if who else f"lap {a} of session {other}"
    return short, f"your lap {b}", f"{short} (session {other})" if who else short


def _delta_text(d: dict[str, Any]) -> str:
    total = d.get("total_delta_s")
    la, lb, full_a = _labels(d)
    if total is None:
        return f"{lb[0].upper()}{lb[1:]} and {full_a} could not be compared."
    slower, faster = (lb, full_a) if total > 0 else (full_a, lb)
    parts = [
        f"{slower[0].upper()}{slower[1:]} was {secs(abs(total), 3)} slower than {faster} over the distance they share."
    ]
    ta, tb = laptime(d.get("lap_a_time_s")), laptime(d.get("lap_b_time_s"))
    if ta and tb:
        parts.append(f"Lap times: {la} {ta}, {lb} {tb}.")
    sign = 1 if total > 0 else -1
    losses = [c for c in d.get("corners") or [] if (c.get("delta_s") or 0) * sign > 0.005]
    losses.sort(key=lambda c: -abs(c["delta_s"]))
    if losses:
        parts.append(
            "Most of it went at "
            + "; ".join(
                f"{corner_label(c['corner'], c.get('name'))} {secs(abs(c['delta_s']), 3)}" for c in losses[:3]
            )
            + "."
        )
        c = losses[0]
        sa, sb = c.get("min_speed_a_kmh"), c.get("min_speed_b_kmh")
        if sa is not None and sb is not None:
            parts.append(f"Minimum speed at {corner_label(c['corner'])}: {la} {sa:g} km/h, {lb} {sb:g} km/h.")
    ca, cb = d.get("coast_pct_a"), d.get("coast_pct_b")
    if ca is not None and cb is not None and abs(ca - cb) >= 1:
        parts.append(f"Coasting: {la} {ca:g} %, {lb} {cb:g} % of the lap.")
    return " ".join(parts)


def _lap_pair(question: str, session_id: str) -> tuple[int, int] | None:
    q = question.lower()
    m = _LAPS.search(q)
    if m and m.group(2):
        first, second = int(m.group(1)), int(m.group(2))
        return (second, first) if "slower" in q or "faster" in q else (first, second)
    if re.search(r"\b(?:fastest|best|quickest)\b", q) and re.search(r"\b(?:slowest|worst)\b", q):
        hl = run_tool("get_session_highlights", {"session_id": session_id})
        if hl.get("best_lap") is not None and hl.get("slowest_lap") is not None:
            return int(hl["best_lap"]), int(hl["slowest_lap"])
    return None


def _find_corner(question: str, track_id: str | None) -> str | None:
    q = " " + question.lower() + " "
    m = re.search(r"\b(?:turn\s+|t|corner\s+|c)(\d+[a-z]?)\b", q)
    if m:
        return m.group(0).strip()
    for c in track_corners(track_id):
        for w in [c.name, c.landmark or "", *c.aliases]:
            w = w.lower().removeprefix("the ").strip()
            if w and re.search(rf"\b{re.escape(w)}\b", q):
                return c.short
    return None


def _corner_text(h: dict[str, Any]) -> str:
    label = corner_label(h["corner"], h.get("name"))
    this = next((s for s in h.get("sessions") or [] if s["session_id"] == h["session_id"]), None)
    if this is None:
        return f"{label}: no valid lap through it in this session."
    parts = [
        f"{label} this session: corner time best {secs(this['best_s'])}, typical {secs(this['median_s'])}"
    ]
    if this.get("min_speed_kmh") is not None:
        parts[0] += f", minimum speed {this['min_speed_kmh']:g} km/h"
    if this.get("brake_point_m") is not None:
        parts[0] += f", braking at {this['brake_point_m']:g} m"
    parts[0] += "."
    if this.get("laps_lost"):
        parts.append(
            f"Time to find there: {secs(this['time_to_find_s'], 2)} a lap on {lap_list(this['laps_lost'])}, against your good laps."
        )
    if len(h.get("sessions") or []) > 1:
        parts.append(f"Across your {len(h['sessions'])} sessions at {h.get('track')}: {h['trend']}.")
    return " ".join(parts)


def _lose_text(hl: dict[str, Any]) -> str:
    if not hl.get("valid_laps"):
        return "No valid lap in this session, so there is no lap time to compare yet."
    opp = [o for o in hl.get("biggest_opportunities") or [] if o.get("time_to_find_s")]
    if not opp:
        why = hl.get("opportunities_reason")
        return f"Best lap {hl['best_lap']} in {laptime(hl['best_lap_s'])}; no corner stands out" + (
            f" ({why})." if why else "."
        )
    return (
        "The most time to find, a lap on the laps it was lost, against your good laps: "
        + "; ".join(f"{corner_label(o['corner'], o.get('name'))} {secs(o['time_to_find_s'], 2)}" for o in opp)
        + f". Best lap {hl['best_lap']} in {laptime(hl['best_lap_s'])}."
    )


def answer_from_data(question: str, session_id: str, intent: str | None = None) -> DataAnswer | None:
    """A labelled answer from the tools for lap comparisons, corners and where time is lost; None when
    the question needs a model. Runs the tools (call it in a worker thread)."""
    try:
        s = session_row(session_id)
    except ToolError:
        return None
    sid = s["session_id"]
    q = question.lower()
    if intent in (None, "lap_comparison", "telemetry"):
        pair = _lap_pair(q, sid)
        if pair is not None:
            args = {"session_id": sid, "lap_a": pair[0], "lap_b": pair[1]}
            d = run_tool("get_lap_delta", args)
            if "error" in d:
                return DataAnswer(d["error"]["message"] + ".", "get_lap_delta", args, d)
            return DataAnswer(_delta_text(d), "get_lap_delta", args, d)
    if intent in (None, "corner", "telemetry"):
        corner = _find_corner(q, s["track_id"])
        if corner is not None:
            args = {"session_id": sid, "corner_name": corner}
            h = run_tool("get_corner_history", args)
            if "error" in h:
                return DataAnswer(h["error"]["message"] + ".", "get_corner_history", args, h)
            return DataAnswer(_corner_text(h), "get_corner_history", args, h)
    if _LOSE.search(q) or intent in ("mental_map",):
        args = {"session_id": sid}
        # the session's opportunities first (laps that lost time against the good ones, with the cause),
        # as "where can I find time?" is answered; typical-minus-best per corner when there are none
        opp = run_tool("get_opportunities", args)
        if "error" not in opp and opp.get("opportunities"):
            return DataAnswer(opportunities_text(opp), "get_opportunities", args, opp)
        hl = run_tool("get_session_highlights", args)
        return DataAnswer(_lose_text(hl), "get_session_highlights", args, hl)
    return None


def tool_words(name: str) -> str:
    """A tool's name as words (``get_lap_delta`` -> ``lap delta``): for the driver, and for a small model,
    which writes a call to a tool whose own name it sees."""
    return name.removeprefix("get_").replace("_", " ")


# the tools whose output has plain sentences of its own
_SENTENCES: dict[str, Callable[[dict[str, Any]], str]] = {
    "get_lap_delta": _delta_text,
    "get_corner_history": _corner_text,
    "get_session_highlights": _lose_text,
    "get_opportunities": opportunities_text,
    "get_threads": threads_text,
    "get_race_pace_model": race_pace_text,
    "get_achievable_lap": achievable_text,
    "get_flags_and_alarms": lambda d: warnings_text(FlagReport.from_dict(d)),
}


def format_result(name: str, result: dict[str, Any]) -> str:
    """A tool's output in plain sentences: the known formatters, else its top-level values."""
    if "error" in result:
        return f"The {tool_words(name)} could not be read: {result['error'].get('message')}."
    if name in _SENTENCES:
        try:
            return _SENTENCES[name](result)
        except (KeyError, TypeError, ValueError):
            pass
    items = [
        f"{k.replace('_', ' ')}: {v:g}" if isinstance(v, float) else f"{k.replace('_', ' ')}: {v}"
        for k, v in result.items()
        if isinstance(v, str | int | float) and not isinstance(v, bool) and k != "session_id"
    ]
    return (
        ("From " + tool_words(name) + ": " + "; ".join(items[:8]) + ".")
        if items
        else (f"{name} returned no figures for this session.")
    )

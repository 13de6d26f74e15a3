"""Narrative post-processing: the emotion tag, the grounding check, and the deterministic template narrator."""

from __future__ import annotations

import json
import re
from typing import Any

from services.paddock.agents.alarm_text import flag_counts
from services.paddock.agents.car_lines import not_recorded, warning_lines
from services.paddock.agents.coaching_lines import focus as coach_focus
from services.paddock.agents.coaching_lines import offs_sentence, thread_lines
from services.paddock.agents.digest import plan_line
from services.paddock.agents.fmt import corner_label, lap_list, load
from services.paddock.agents.grounding import Facts, facts_of, grounding_check
from services.paddock.tools.alarms import WARNING_KINDS
from shared.display import lap_time

EMOTIONS = {"encouraging", "neutral", "concerned", "celebratory", "urgent"}
_TAG = re.compile(r"\[EMOTION:\s*([a-zA-Z_]+)\s*\]")


def parse_emotion(text: str) -> tuple[str, str]:
    """(text without the tag, emotion); a missing or unknown tag is ``neutral``."""
    found = _TAG.findall(text or "")
    clean = _TAG.sub("", text or "").strip()
    emo = found[-1].lower() if found else "neutral"
    return clean, emo if emo in EMOTIONS else "neutral"


__all__ = ["Facts", "facts_of", "grounding_check", "parse_emotion", "template_narrative"]


def template_narrative(kind: str, state: dict[str, Any]) -> tuple[str, list[str]]:
    """A deterministic narrative from the same structured data, for when no model answers."""
    hl, ped, eng, saf, trac = (
        load(state, k)
        for k in ("highlights_data", "pedagogy_data", "engine_health_data", "safety_data", "traction_data")
    )
    picks = coach_focus(state, brief=kind == "brief")
    focus = picks or [
        f"{corner_label(o.get('corner'), o.get('name'))}: {o['time_to_find_s']:.2f} s a lap to find"
        for o in hl.get("biggest_opportunities", [])[:3]
        if o.get("time_to_find_s") is not None
    ]
    parts = []
    if kind == "debrief" and hl:
        if not hl.get("valid_laps") or hl.get("best_lap_s") is None:
            parts.append("No valid lap in this session, so there are no lap times to compare.")
        else:
            n = int(hl["valid_laps"])
            line = f"{n} valid lap{'' if n == 1 else 's'}, best {lap_time(hl['best_lap_s'])} on lap {hl.get('best_lap')}"
            if hl.get("achievable_lap_s") is not None:
                line += f" (achievable {lap_time(hl['achievable_lap_s'])})"
            parts.append(line + ".")
    if focus:
        parts.append(("Work on: " if kind == "brief" and picks else "Focus: ") + "; ".join(focus) + ".")
    elif hl.get("valid_laps") and hl.get("opportunities_reason"):
        parts.append(f"No corner stands out: {hl['opportunities_reason']}.")
    if kind == "debrief":
        parts += offs_sentence(load(state, "opportunities_data"))
        parts += thread_lines(load(state, "threads_data"))
    if ped.get("blocks"):  # a debrief's focus corners named once, their targets in the focus
        parts.append(plan_line(ped["blocks"], brief=kind == "brief" or not focus))
    if eng.get("oil_pressure_low_laps"):
        parts.append(
            f"Oil pressure dropped under load on {lap_list(eng['oil_pressure_low_laps'])}: check the oil level."
        )
    if trac.get("count"):
        parts.append(f"{trac['count']} lockup or wheelspin events.")
    elif "count" in trac and trac["count"] is None:  # no wheel speeds: unknown, not "none"
        parts.append("Lockups and wheelspin were not recorded in this session.")
    warned = warning_lines(saf)
    parts += warned
    # the interventions; a warning already told by its line is not counted again
    if hits := flag_counts(saf.get("counts") or {}, skip=WARNING_KINDS if warned else ()):
        parts.append("Safety: " + ", ".join(hits) + ".")
    if gone := not_recorded(saf, eng):  # one list, never a system this kind of vehicle has not got
        parts.append(gone)
    if away := lake_away(state):  # the store is away: say so, not "no data"
        parts.insert(0, away)
    return " ".join(parts) or "No data for this session yet.", focus


def lake_away(state: dict[str, Any]) -> str | None:
    """The paddock's sentence when a data agent could not read the session because the lake is away."""
    for v in state.values():
        if isinstance(v, str) and '"lake_unreachable"' in v:
            try:
                err = json.loads(v).get("error") or {}
            except (ValueError, AttributeError):
                continue
            if err.get("code") == "lake_unreachable":
                return str(err.get("message"))
    return None

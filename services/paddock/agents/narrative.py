"""Narrative post-processing: the emotion tag, the grounding check, and the deterministic template narrator."""

from __future__ import annotations

import json
import re
from typing import Any

EMOTIONS = {"encouraging", "neutral", "concerned", "celebratory", "urgent"}
_TAG = re.compile(r"\[EMOTION:\s*([a-zA-Z_]+)\s*\]")


def parse_emotion(text: str) -> tuple[str, str]:
    """(text without the tag, emotion); a missing or unknown tag is ``neutral``."""
    found = _TAG.findall(text or "")
    clean = _TAG.sub("", text or "").strip()
    emo = found[-1].lower() if found else "neutral"
    return clean, emo if emo in EMOTIONS else "neutral"


def _facts(state: dict[str, Any]) -> tuple[set[int], set[str], list[float]]:
    laps: set[int] = set()
    corners: set[str] = set()
    times: list[float] = []

    def walk(x: Any, key: str = "") -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, bool):
            return
        elif isinstance(x, int | float):
            if "lap" in key and float(x).is_integer():
                laps.add(int(x))
            if key.endswith("_s"):
                times.append(float(x))
        elif isinstance(x, str) and key in (
            "corner",
            "corner_id",
            "name",
            "least_consistent",
            "most_consistent",
        ):
            corners.add(x.lower())
            m = re.match(r"turn (\d+a?)", x.lower())
            if m:
                corners.add(f"t{m.group(1)}")

    for v in state.values():
        try:
            walk(json.loads(v) if isinstance(v, str) else v)
        except (ValueError, TypeError):
            continue
    return laps, corners, times


def grounding_check(text: str, state: dict[str, Any]) -> list[str]:
    """Laps, corners and lap times the narrative cites that the data agents did not provide."""
    laps, corners, times = _facts(state)
    bad: list[str] = []
    low = text.lower()
    for m in re.finditer(r"\blap (\d+)\b", low):
        if int(m.group(1)) not in laps:
            bad.append(f"lap {m.group(1)}")
    for m in re.finditer(r"\b(?:t|turn )(\d+a?)\b", low):
        if f"t{m.group(1)}" not in corners:
            bad.append(f"T{m.group(1).upper()}")
    for m in re.finditer(r"\b(\d{1,2}:\d{2}\.\d{1,3}|\d{2,3}\.\d{1,3})\s*(?:s\b|sec)", low):
        v = m.group(1)
        secs = float(v.split(":")[0]) * 60 + float(v.split(":")[1]) if ":" in v else float(v)
        if not any(abs(secs - t) < 0.01 for t in times):
            bad.append(v)
    return sorted(set(bad))


def template_narrative(kind: str, state: dict[str, Any]) -> tuple[str, list[str]]:
    """A deterministic narrative from the same structured data, for when no model answers."""

    def get(key: str) -> dict[str, Any]:
        try:
            v = state.get(key)
            return json.loads(v) if isinstance(v, str) else (v or {})
        except ValueError:
            return {}

    hl, ped, eng, saf, trac = (
        get(k)
        for k in ("highlights_data", "pedagogy_data", "engine_health_data", "safety_data", "traction_data")
    )
    focus = [
        f"{o['name']}: {o['median_minus_best_s']:.2f} s between your typical and best"
        for o in hl.get("biggest_opportunities", [])[:3]
        if o.get("median_minus_best_s") is not None
    ]
    parts = []
    if kind == "debrief" and hl:
        parts.append(
            f"{hl.get('valid_laps', 0)} valid laps, best {hl.get('best_lap_s')} s on lap {hl.get('best_lap')}"
            f" (theoretical {hl.get('theoretical_best_s')} s)."
        )
    if focus:
        parts.append("Focus: " + "; ".join(focus) + ".")
    if ped.get("blocks"):
        parts.append(
            "Plan: "
            + "; ".join(f"{b['laps']} lap{'' if b['laps'] == 1 else 's'} {b['focus']}" for b in ped["blocks"])
            + "."
        )
    if eng.get("oil_pressure_low_laps"):
        parts.append(
            f"Oil pressure dropped under load on lap(s) {eng['oil_pressure_low_laps']}: check the oil level."
        )
    if trac.get("count"):
        parts.append(f"{trac['count']} lockup or wheelspin events.")
    if saf.get("counts"):
        parts.append("Safety: " + ", ".join(f"{k} x{v}" for k, v in saf["counts"].items()) + ".")
    return " ".join(parts) or "No data for this session yet.", focus

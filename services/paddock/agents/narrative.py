"""Narrative post-processing: the emotion tag, the grounding check, and the deterministic template narrator."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

EMOTIONS = {"encouraging", "neutral", "concerned", "celebratory", "urgent"}
_TAG = re.compile(r"\[EMOTION:\s*([a-zA-Z_]+)\s*\]")


def parse_emotion(text: str) -> tuple[str, str]:
    """(text without the tag, emotion); a missing or unknown tag is ``neutral``."""
    found = _TAG.findall(text or "")
    clean = _TAG.sub("", text or "").strip()
    emo = found[-1].lower() if found else "neutral"
    return clean, emo if emo in EMOTIONS else "neutral"


_LAP_REF = re.compile(r"\blaps? (\d+)((?:(?:,\s*|\s+and\s+|\s*&\s*)(?:lap\s+)?\d+\b)*)")
_CORNER_REF = re.compile(r"\b(?:(t|c)|turn |corner )(\d+[a-z]?)\b")
_TIME_REF = re.compile(r"\b(\d{1,2}:\d{2}(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:s|secs?|seconds?)\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")


@dataclass
class Facts:
    """What a narrative may cite: lap numbers, corner ids (``t11``, ``c3``) and numbers."""

    laps: set[int] = field(default_factory=set)
    corners: set[str] = field(default_factory=set)
    numbers: list[float] = field(default_factory=list)

    def add_text(self, text: str) -> None:
        low = text.lower()
        for m in _LAP_REF.finditer(low):
            self.laps.add(int(m.group(1)))
            self.laps.update(int(x) for x in re.findall(r"\d+", m.group(2) or ""))
        for m in _CORNER_REF.finditer(low):
            self.corners.add(f"{m.group(1) or ('c' if 'corner' in m.group(0) else 't')}{m.group(2)}")
        for m in re.finditer(r"(\d{1,2}):(\d{2}(?:\.\d+)?)", low):
            self.numbers.append(int(m.group(1)) * 60 + float(m.group(2)))
        self.numbers += [float(x) for x in _NUMBER.findall(low)]

    def add_data(self, x: Any, key: str = "") -> None:
        """Facts from a tool's JSON output (what a specialist saw)."""
        if isinstance(x, dict):
            for k, v in x.items():
                self.add_data(v, str(k))
        elif isinstance(x, list):
            for v in x:
                self.add_data(v, key)
        elif isinstance(x, bool) or x is None:
            return
        elif isinstance(x, int | float):
            if "lap" in key and float(x).is_integer():
                self.laps.add(int(x))
            self.numbers.append(float(x))
        elif isinstance(x, str):
            self.add_text(x)


def facts_of(evidence: str | None = None, data: list[Any] | None = None) -> Facts:
    f = Facts()
    if evidence:
        f.add_text(evidence)
    for d in data or []:
        f.add_data(d)
    return f


def _cited_number_ok(cited: str, numbers: list[float]) -> bool:
    """A cited value is grounded when some number in the data rounds to it at the precision it was cited."""
    if ":" in cited:
        mm, ss = cited.split(":")
        value, nd = int(mm) * 60 + float(ss), len(ss.split(".")[1]) if "." in ss else 0
    else:
        value, nd = float(cited), len(cited.split(".")[1]) if "." in cited else 0
    tol = 0.5 * 10**-nd + 1e-9
    return any(abs(x - value) <= tol for x in numbers)


def grounding_check(text: str, facts: Facts) -> list[str]:
    """Laps, corners and times the narrative cites that are not in the data it was given."""
    bad: list[str] = []
    low = (text or "").lower()
    for m in _LAP_REF.finditer(low):
        for n in [m.group(1), *re.findall(r"\d+", m.group(2) or "")]:
            if int(n) not in facts.laps:
                bad.append(f"lap {n}")
    for m in _CORNER_REF.finditer(low):
        # "T6" and "C6" are ids and must match; "turn 6" and "corner 6" are words for either
        ids = [m.group(1) + m.group(2)] if m.group(1) else ["t" + m.group(2), "c" + m.group(2)]
        if not facts.corners.intersection(ids):
            bad.append(ids[0].upper() if m.group(1) or "turn" in m.group(0) else ids[1].upper())
    for m in _TIME_REF.finditer(low):
        if not _cited_number_ok(m.group(1), facts.numbers):
            bad.append(m.group(1))
    return sorted(set(bad))


def template_narrative(kind: str, state: dict[str, Any]) -> tuple[str, list[str]]:
    """A deterministic narrative from the same structured data, for when no model answers."""

    from services.paddock.agents.digest import corner_label, lap_list, load, not_recorded
    from shared.display import lap_time

    hl, ped, eng, saf, trac = (
        load(state, k)
        for k in ("highlights_data", "pedagogy_data", "engine_health_data", "safety_data", "traction_data")
    )
    focus = [
        f"{corner_label(o.get('corner'), o.get('name'))}: {o['median_minus_best_s']:.2f} s between your typical"
        " and best"
        for o in hl.get("biggest_opportunities", [])[:3]
        if o.get("median_minus_best_s") is not None
    ]
    parts = []
    if kind == "debrief" and hl:
        if not hl.get("valid_laps") or hl.get("best_lap_s") is None:
            parts.append("No valid lap in this session, so there are no lap times to compare.")
        else:
            n = int(hl["valid_laps"])
            line = f"{n} valid lap{'' if n == 1 else 's'}, best {lap_time(hl['best_lap_s'])} on lap {hl.get('best_lap')}"
            if hl.get("theoretical_best_s") is not None:
                line += f" (theoretical {lap_time(hl['theoretical_best_s'])})"
            parts.append(line + ".")
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
            f"Oil pressure dropped under load on {lap_list(eng['oil_pressure_low_laps'])}: check the oil level."
        )
    if trac.get("count"):
        parts.append(f"{trac['count']} lockup or wheelspin events.")
    elif "count" in trac and trac["count"] is None:  # no wheel speeds: unknown, not "none"
        parts.append("Lockups and wheelspin were not recorded in this session.")
    hits = {k: v for k, v in (saf.get("counts") or {}).items() if v}
    if hits:
        parts.append("Safety: " + ", ".join(f"{k} x{v}" for k, v in hits.items()) + ".")
    gone = sorted({x for d in (saf, eng) for x in [not_recorded(d)] if x})
    if gone:
        parts.append("Not recorded: " + "; ".join(gone) + ".")
    return " ".join(parts) or "No data for this session yet.", focus

"""The evidence digest: what the narrative model reads instead of the data agents' raw JSON.

A small local model pays for every prompt token before it says a word (160-210 tokens/s of prefill on a
2-core laptop), so the narrative call gets a few short labelled lines, built deterministically from the
same tool outputs the tablet shows in full. Every number the narrative may cite is in these lines, written
the way the grounding check reads it (``lap 7``, ``T11``, ``98.123 s``), and the grounding check accepts
exactly the numbers found here.
"""

from __future__ import annotations

import math
from typing import Any

from services.paddock.agents.car_lines import car_lines, problem_labels, warning_lines
from services.paddock.agents.coaching_lines import coaching_lines
from services.paddock.agents.fmt import corner_label, laptime, load, secs
from shared.display import car_title, track_title

__all__ = ["DROP_ORDER", "MAX_DIGEST_CHARS", "build_digest", "estimate_tokens", "plan_line"]

# the digest of a one-hour session stays under this many characters (about 500 SmolLM2 tokens)
MAX_DIGEST_CHARS = 1500


def _session_lines(hl: dict[str, Any]) -> list[str]:
    if not hl:
        return ["Session summary: not available."]
    n = int(hl.get("valid_laps") or 0)
    head = f"Session at {track_title(hl.get('track'))}"
    if car_title(hl.get("car")):
        head += f" in the {car_title(hl.get('car'))}"
    if n == 0:
        return [f"{head}: no valid lap in this session, so there are no lap times to compare."]
    out = [f"{head}: {n} valid lap{'' if n == 1 else 's'}."]
    best = laptime(hl.get("best_lap_s"))
    if best and hl.get("best_lap") is not None:
        line = f"Best: lap {hl['best_lap']}, {best}."
        ach, theo = laptime(hl.get("achievable_lap_s")), laptime(hl.get("theoretical_best_s"))
        if ach:  # the session's target, as the highlights label it; then the never-driven sum
            line += f" Achievable lap (your best pieces joined where laps agree, the target): {ach}."
        if theo:
            line += f" Theoretical best (every best piece added up): {theo}."
        out.append(line)
    spread = secs(hl.get("consistency_std_s"), 2)
    slow = laptime(hl.get("slowest_lap_s"))
    if spread or slow:
        parts = []
        if spread:
            parts.append(f"lap-time spread (std) {spread}")
        if slow and hl.get("slowest_lap") is not None:
            parts.append(f"slowest valid lap {hl['slowest_lap']}, {slow}")
        out.append("Consistency: " + "; ".join(parts) + ".")
    return out  # where the time is: the opportunities' lines (the same analysis), said once


def _variance_line(tel: dict[str, Any]) -> list[str]:
    corners = tel.get("corners") or []
    if not corners:
        return []
    worst = corners[0]
    line = f"Least consistent corner: {corner_label(worst.get('corner'), worst.get('name'))}"
    bits = []
    if worst.get("cv_time_pct") is not None:
        bits.append(f"time varies {worst['cv_time_pct']:g} %")
    if worst.get("brake_point_std_m") is not None:
        bits.append(f"brake point varies {worst['brake_point_std_m']:g} m")
    if bits:
        line += " (" + ", ".join(bits) + ")"
    if tel.get("most_consistent"):
        line += f"; most consistent: {corner_label(tel['most_consistent'])}"
    return [line + "."]


def plan_line(blocks: list[dict[str, Any]], brief: bool) -> str:
    """``Plan: 2 laps warm tyres and brakes, build to pace; 3 laps T4; …``: the debrief's plan names each
    focus corner only (its target is the focus line's, said once); a brief's says the target too."""
    items = [
        f"{b['laps']} lap{'' if b['laps'] == 1 else 's'} "
        + (str(b["focus"]).split(":")[0] if not brief and ":" in str(b["focus"]) else str(b["focus"]))
        for b in blocks
    ]
    return "Plan: " + "; ".join(items) + "."


def _plan_lines(ped: dict[str, Any], brief: bool) -> list[str]:
    out = []
    blocks = ped.get("blocks") or []
    if blocks:
        corners = [b["focus"] for b in blocks if ":" in str(b["focus"])]
        if not brief and corners:  # the debrief's focus: the corners to work on, before the plan's laps
            out.append("Focus next time: " + "; ".join(corners) + ".")
        out.append(plan_line(blocks, brief))
    elif brief:
        out.append("Plan: no lap data to plan from yet; build up to pace and set a first reference lap.")
    pb = ped.get("personal_best")
    if isinstance(pb, dict) and laptime(pb.get("time_s")):
        out.append(
            f"Personal best at {track_title(pb.get('track'))} (all sessions at this track): {laptime(pb['time_s'])}"
            f" ({pb.get('sessions', 1)} session{'' if pb.get('sessions', 1) == 1 else 's'} there)."
        )
    return out


# over the budget, lines go in this order (by how they start): the context first, the car lines that report
# no problem, then the session's spread and the plan; the session, its best, the warnings, the focus and a car line that
# reports a problem (``problem_labels``) stay: the narrated debrief carries every fact the template says
DROP_ORDER = (
    "Personal best",
    "Least consistent corner",
    "Opportunity 3",
    "Inputs:",
    "Handling:",
    "Tyres:",
    "Traction:",
    "Engine:",
    "Safety:",
    "Opportunity 2",
    "Consistency:",
    "Opportunity 1",
    "Plan:",
)


def _within_budget(lines: list[str], problems: tuple[str, ...], budget: int) -> list[str]:
    """``lines`` in their order, whole lines dropped in ``DROP_ORDER`` (then from the end) until they fit."""
    keep = list(lines)
    for label in (x for x in DROP_ORDER if x not in problems):
        if sum(len(x) + 1 for x in keep) <= budget:
            break
        keep = [x for x in keep if not x.startswith(label)]
    out: list[str] = []
    total = 0
    for line in keep:
        if total + len(line) + 1 > budget:
            break
        out.append(line)
        total += len(line) + 1
    return out


def build_digest(kind: str, state: dict[str, Any], budget: int = MAX_DIGEST_CHARS) -> str:
    """The narrative's evidence: short labelled lines from the data agents' outputs, at most
    ``budget`` characters (whole lines dropped, in ``DROP_ORDER``; never a warning or a car problem)."""
    lines: list[str] = []
    ped = load(state, "pedagogy_data")
    plan = _plan_lines(ped, brief=kind == "brief")
    if kind == "debrief":  # coaching order: how it went, the car's health, what to work on, why, the laps
        session = _session_lines(load(state, "highlights_data"))
        todo = [x for x in plan if x.startswith(("Focus next time", "Plan:"))]
        lines += session[:2] + warning_lines(load(state, "safety_data"))
        focus = [x for x in todo if x.startswith("Focus next time")]  # the targets, said once
        lines += todo[:1] + coaching_lines(state, brief=False, targets=not focus) + todo[1:] + session[2:]
        lines += _variance_line(load(state, "telemetry_data"))
        plan = [x for x in plan if x not in todo]
    elif ped.get("track"):
        when = f" on {ped['session_date']}" if ped.get("session_date") else ""
        car = f" in the {car_title(ped.get('car'))}" if car_title(ped.get("car")) else ""
        lines.append(f"Brief for {track_title(ped['track'])}{car}, from the session driven{when}.")
    if kind == "brief":
        lines += coaching_lines(state, brief=True)
    lines += plan
    lines += car_lines(state)
    out = _within_budget(lines, problem_labels(state), budget)
    return "\n".join(out) if out else "No data for this session."


def estimate_tokens(text: str) -> int:
    """A conservative token count for budgeting (small models' tokenizers split digits one by one):
    every digit is a token, every other run of 3 characters is one."""
    digits = sum(ch.isdigit() for ch in text)
    return digits + math.ceil((len(text) - digits) / 3)

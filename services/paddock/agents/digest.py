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

from services.paddock.agents.alarm_text import SHORT_FLAG_WORDS, flag_counts, warning_line
from services.paddock.agents.coaching_lines import coaching_lines
from services.paddock.agents.fmt import corner_label, lap_list, laptime, load, secs
from services.paddock.tools.alarms import FlagReport
from services.paddock.tools.recorded import not_recorded_clause, not_recorded_text
from shared.display import car_title, listed, track_title

__all__ = [
    "build_digest",
    "corner_label",
    "estimate_tokens",
    "lap_list",
    "laptime",
    "load",
    "not_recorded",
    "secs",
    "warning_lines",
]

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


def not_recorded(*outs: dict[str, Any]) -> str | None:
    """What tools said their session did not record, merged, in the one wording (``tools.recorded``):
    ``"Not recorded: wheel speeds, ABS activity."`` and the file's channels Pitwall does not read."""
    words = list(dict.fromkeys(w for d in outs for w in d.get("not_recorded_words") or []))
    unread = {k: v for d in outs for k, v in (d.get("unread_channels") or {}).items()}
    return not_recorded_text(words, unread, where="")


def _tyre_line(tyre: dict[str, Any]) -> list[str]:
    if tyre.get("available") and tyre.get("wheels"):
        hot = " ".join(
            f"{w.upper()} {v['hot_bar']:g}" for w, v in tyre["wheels"].items() if v.get("hot_bar") is not None
        )
        win = tyre.get("window_bar") or []
        line = f"Tyres: hot pressures {hot} bar"
        if len(win) == 2:
            line += f", window {win[0]:g}-{win[1]:g}"
        if tyre.get("alarms"):
            line += "; TPMS alarm on " + ", ".join(str(a).upper() for a in tyre["alarms"])
        return [line + "."]
    if tyre.get("recorded") is False and "tpms" not in (tyre.get("not_fitted") or []):  # a kart has none
        return ["Tyres: pressures not recorded (no TPMS)."]
    return []


def _engine_line(eng: dict[str, Any]) -> list[str]:
    if not eng:
        return []
    bits, unknown = [], []
    low, hot = eng.get("oil_pressure_low_laps"), eng.get("coolant_hot_laps")
    if low:
        bits.append("oil pressure low under load on " + lap_list(low))
    if hot:
        bits.append("coolant over 105 C on " + lap_list(hot))
    water = [x.get("water_max_c") for x in eng.get("laps") or [] if x.get("water_max_c") is not None]
    if water:
        bits.append(f"coolant max {max(water):g} C")
    # a check whose channels the session lacks is "not recorded", never "no warnings"
    oil_fitted = "oil_pressure" not in (eng.get("not_fitted") or [])  # a kart has no oil pressure
    if oil_fitted and (
        ("oil_pressure_low_laps" in eng and low is None)
        or eng.get("oil_pressure_under_load_recorded") is False
    ):
        unknown.append("oil pressure under load")
    if ("coolant_hot_laps" in eng and hot is None) or eng.get("coolant_recorded") is False:
        unknown.append("coolant temperature")
    ran = (oil_fitted and "oil pressure under load" not in unknown) or "coolant temperature" not in unknown
    if not bits and not ran:  # nothing checked: never "no warnings" (an electric car: no oil to check)
        return [f"Engine: {listed([u.removesuffix(' under load') for u in unknown])} not recorded."]
    line = "; ".join(bits) if bits else "no warnings"
    return [f"Engine: {line}{not_recorded_clause(not_recorded_text(unknown, where='')) or '.'}"]


def _traction_line(trac: dict[str, Any]) -> list[str]:
    if not trac:
        return []
    counts = trac.get("counts") or {}
    blind = [k for k, v in counts.items() if v is None]
    if "count" in trac and trac.get("count") is None:
        return ["Traction: lockups and wheelspin not recorded (no wheel speeds)."]
    n = int(trac.get("count") or 0)
    if n:
        kinds: dict[str, int] = {}
        where: dict[str, int] = {}
        for e in trac.get("events") or []:
            kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
            if e.get("corner"):
                where[e["corner"]] = where.get(e["corner"], 0) + 1
        top = sorted(where.items(), key=lambda kv: -kv[1])[:2]
        line = "Traction: " + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
        if top:
            line += " (mostly " + ", ".join(f"{corner_label(c)} x{v}" for c, v in top) + ")"
    else:
        seen = [k for k in ("lockup", "wheelspin") if k not in blind]
        line = "Traction: no " + " or ".join(f"{k}s" if k == "lockup" else k for k in seen)
    gone = not_recorded_text([f"{k}s" if k == "lockup" else k for k in blind], where="")
    return [line + (not_recorded_clause(gone) or ".")]


def _safety_line(saf: dict[str, Any]) -> list[str]:
    if not saf:
        return []
    counts = saf.get("counts") or {}
    gone = not_recorded(saf)
    if not counts and gone is None and "recorded" not in saf:  # an older output: counts of what happened
        return ["Safety: no ABS, DSC or warnings."]
    parts = []
    hits = flag_counts(counts)
    if hits:
        parts.append(", ".join(hits))
    zero = [SHORT_FLAG_WORDS.get(k, k) for k, v in counts.items() if not v]
    if zero:
        parts.append("no " + " or ".join(zero))
    if parts:
        return ["Safety: " + "; ".join(parts) + (not_recorded_clause(gone) or ".")]
    return ["Safety: " + not_recorded_clause(gone).removeprefix("; ")] if gone else []


def warning_lines(saf: dict[str, Any]) -> list[str]:
    """The warnings and alarms set in the session (``get_safety_events`` carries the flag report)."""
    line = warning_line(FlagReport.from_dict(saf)) if saf.get("events") else None
    return [line] if line else []


def _car_lines(state: dict[str, Any]) -> list[str]:
    out = _tyre_line(load(state, "tire_data"))
    hb = load(state, "handling_data")
    if hb.get("verdict"):
        out.append(f"Handling: {hb['verdict']} (yaw gain {hb.get('yaw_gain')}).")
    elif hb.get("recorded") is False:
        gone = not_recorded_clause(not_recorded(hb)).removeprefix("; ")
        out.append(f"Handling: {gone or 'not recorded (no steering angle or yaw rate).'}")
    out += _engine_line(load(state, "engine_health_data"))
    out += _traction_line(load(state, "traction_data"))
    inp = load(state, "input_quality_data")
    if inp.get("score") is not None:
        line = f"Inputs: smoothness {inp['score']:g}/100, {inp.get('verdict')}"
        out.append(line + (not_recorded_clause(not_recorded(inp)) or "."))
        if isinstance(inp.get("partly_recorded"), str):
            out.append(inp["partly_recorded"])
    elif inp.get("recorded") is False:
        out.append("Inputs: steering, throttle and brake not recorded.")
    out += _safety_line(load(state, "safety_data"))
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


def problem_labels(state: dict[str, Any]) -> tuple[str, ...]:
    """The car lines (by their label) that report a problem: never dropped for the budget."""
    eng, trac = load(state, "engine_health_data"), load(state, "traction_data")
    saf, tyre = load(state, "safety_data"), load(state, "tire_data")
    said = {
        "Engine:": bool(eng.get("oil_pressure_low_laps") or eng.get("coolant_hot_laps")),
        "Traction:": bool(trac.get("count")),
        "Safety:": any((saf.get("counts") or {}).values()),
        "Tyres:": bool(tyre.get("alarms")),
    }
    return tuple(k for k, v in said.items() if v)


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
    lines += _car_lines(state)
    out = _within_budget(lines, problem_labels(state), budget)
    return "\n".join(out) if out else "No data for this session."


def estimate_tokens(text: str) -> int:
    """A conservative token count for budgeting (small models' tokenizers split digits one by one):
    every digit is a token, every other run of 3 characters is one."""
    digits = sum(ch.isdigit() for ch in text)
    return digits + math.ceil((len(text) - digits) / 3)

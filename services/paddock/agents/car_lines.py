"""The car's lines of the debrief's digest, from the data agents' outputs: tyres, handling, engine, traction,
inputs, safety and the warnings set, each saying what was recorded, what was not (one wording,
``tools.recorded``) and what went wrong; and which of them report a problem (never dropped for the
digest's budget)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.alarm_text import SHORT_FLAG_WORDS, flag_counts, warning_line
from services.paddock.agents.fmt import corner_label, lap_list, load
from services.paddock.tools.alarms import FlagReport
from services.paddock.tools.recorded import not_recorded_clause, not_recorded_text
from shared.display import listed


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


def car_lines(state: dict[str, Any]) -> list[str]:
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

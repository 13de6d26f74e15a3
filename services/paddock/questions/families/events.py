"""Events in the file: the warnings and alarms set (``get_flags_and_alarms`` in the driver's words), ABS
and DSC/TC interventions, lockups and wheelspin by corner and lap, and the car-health readings by lap
("did my oil pressure drop?", "did it overheat?"); what the file cannot show is said so. Runs tools
(worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.alarm_text import warnings_text
from services.paddock.questions.families.laps import laps_said, named_laps
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.alarms import flag_report
from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.registry import run_tool
from shared import event_conditions as ev

# the event a question names (``Question.measure``) -> (tool, the tool's event kind, what a driver calls it)
KINDS: dict[str, tuple[str, str, str]] = {
    "lockup": ("get_traction_events", "lockup", "lockups"),
    "wheelspin": ("get_traction_events", "wheelspin", "wheelspin"),
    "abs": ("get_safety_events", "abs", "ABS interventions"),
    "tc": ("get_safety_events", "dsc", "DSC interventions"),
    "dsc": ("get_safety_events", "dsc", "DSC interventions"),
}
# a car-health measure -> (engine-health key, the laps it flags, what it is, unit, worst is the lowest)
HEALTH: dict[str, tuple[str, str, str, str, bool]] = {
    "oil_pressure": (
        "oil_floor_under_load_bar",
        "oil_pressure_low_laps",
        "oil pressure under load",
        "bar",
        True,
    ),
    "coolant_temp": ("water_max_c", "coolant_hot_laps", "coolant temperature", "°C", False),
}


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    sid = str(s["session_id"])
    if q.measure == "off":
        return _offs(sid)
    if q.measure not in (*KINDS, *HEALTH, None, "alarm", "engine_light"):
        return None
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps  # a lap the session does not have is said so before any event is counted
    picked = tuple(n for _, n in laps)  # "my last 3 laps" names three
    lap = picked[0] if len(picked) == 1 else None
    if q.measure in KINDS:
        got = _interventions(sid, q.measure, picked, q.corner)
        if q.measure == "abs" and got is not None and not got.result.get("count"):
            return _with_lockups(sid, got, picked, q.corner)  # no ABS: did a wheel lock instead?
        return got
    if q.measure in HEALTH:
        return _health(sid, q.measure)
    rep = flag_report(sid)
    text = warnings_text(rep, lap)
    if q.measure == "engine_light" and "engine warning light" in rep.sources:
        lit = [e for e in rep.events if e.kind == ev.MIL and (lap is None or e.lap <= lap <= e.end_lap)]
        if not lit:  # "did the check engine light come on?": that light first, the others beside it
            scope = f" on lap {lap}" if lap is not None else ""
            text = f"The engine warning light never came on{scope}. " + (
                "Other warnings: " + text[len("Yes, ") :] if text.startswith("Yes, ") else text
            )
    return Answer(text, "get_flags_and_alarms", {"session_id": rep.session_id}, rep.as_dict())


def _offs(sid: str) -> Answer:
    """Spins, offs and stops: the corners of the valid laps where the session analysis found the car all
    but stopped, or the corner taking several times as long as usual (never ranked as time to find)."""
    an = session_analysis(sid)
    if not an.rows:
        text = f"No spin, off or stop can be read: {an.reason or 'no valid full lap to analyse'}."
        return Answer(text, "session_analysis", {"session_id": sid}, {"offs": [], "laps": 0})
    offs = [{"lap": r.lap, "corner": r.corner, "evidence": r.evidence} for r in an.offs()]
    if not offs:
        text = f"No spin, off or stop at any corner on your {len(an.laps)} valid laps."
    else:
        text = "A spin, an off or a stop: " + "; ".join(
            f"lap {x['lap']} at {x['corner']} ({x['evidence']})" for x in offs
        )
        text += f". Your other valid laps went through without one ({len(an.laps)} read)."
    return Answer(text, "session_analysis", {"session_id": sid}, {"offs": offs, "laps": len(an.laps)})


def _interventions(
    sid: str, measure: str, laps: tuple[int, ...] = (), corner: str | None = None
) -> Answer | None:
    """How many, at which corners, on which laps (on the ``laps`` named, when any; at ``corner`` first,
    the others beside it); or "cannot be measured" with the reason."""
    tool, kind, label = KINDS[measure]
    r = run_tool(tool, {"session_id": sid})
    if "error" in r:
        return None
    if r.get("recorded") is False and not (r.get("counts") or {}).get(kind):
        why = str(r.get("not_recorded") or "the channels they need are not recorded in this session")
        text = f"{label[0].upper()}{label[1:]} cannot be measured: {why[0].lower()}{why[1:].rstrip('.')}."
        return Answer(text, tool, {"session_id": sid}, {"recorded": False})
    every = [e for e in r.get("events") or [] if e.get("kind") == kind]
    evs = [e for e in every if not laps or e.get("lap") in laps]
    if not evs:
        scope = f"on {laps_said(laps)}" if laps else "this session"
        if every:  # none on the laps named: said beside the ones on the other laps
            text = f"None {scope}; {_counted(len(every), label)} on other laps: {_where(every)}."
            return Answer(text, tool, {"session_id": sid}, {"count": 0, "count_other_laps": len(every)})
        return Answer(f"No {label} {scope}.", tool, {"session_id": sid}, {"count": 0})
    where = _where(evs)
    by = _by_corner(evs)
    res = {"count": len(evs), "events": evs}
    here = corner.upper() if corner else None
    if here is not None and here not in by:  # "do I lock up into turn 4?": none there, said beside the rest
        text = f"None at {here}; {_counted(len(evs), label)} elsewhere: {where}."
        return Answer(text, tool, {"session_id": sid}, res | {"count_at_corner": 0})
    if here is not None:
        res["count_at_corner"] = len(by[here])
    return Answer(f"Yes, {_counted(len(evs), label)}: {where}.", tool, {"session_id": sid}, res)


def _with_lockups(sid: str, got: Answer, laps: tuple[int, ...], corner: str | None) -> Answer:
    """No ABS intervention said, then the lockups the wheel speeds show, when there were any ("No ABS
    interventions this session. 3 lockups, though: at T3 on laps 3, 4 and 5.")."""
    locks = _interventions(sid, "lockup", laps, corner)
    if locks is None or not locks.result.get("count") or locks.result.get("count_at_corner") == 0:
        return got  # none, or none at the corner asked
    evs = locks.result["events"]
    said = f"{_counted(len(evs), KINDS['lockup'][2])}, though: {_where(evs)}."
    return Answer(f"{got.text} {said}", got.tool, got.args, got.result | {"lockups": locks.result})


def _health(sid: str, measure: str) -> Answer | None:
    """The engine-health timeline by lap: the laps flagged, the worst reading and its lap."""
    key, flag_key, what, unit, low = HEALTH[measure]
    h = run_tool("get_engine_health_timeline", {"session_id": sid})
    laps = [x for x in h.get("laps") or [] if isinstance(x, dict)]
    vals = [(x["lap"], x[key]) for x in laps if x.get(key) is not None]
    if "error" in h or not vals:
        text = f"The {what} is not recorded in this session's file, so whether it {'dropped' if low else 'ran hot'} cannot be told."
        return Answer(text, "get_engine_health_timeline", {"session_id": sid}, {"recorded": False})
    flagged = h.get(flag_key) or []
    worst_lap, worst = (min if low else max)(vals, key=lambda v: v[1])
    if flagged:
        text = f"Yes: the {what} {'dropped' if low else 'ran hot'} on {laps_said(flagged)}, "
        text += f"{'down to' if low else 'up to'} {worst:.1f} {unit} on lap {worst_lap}."
        others = [v for n, v in vals if n not in flagged]
        if others:
            text += f" On the other laps it stayed {'at or above' if low else 'at or below'} "
            text += f"{(min if low else max)(others):.1f} {unit}."
    else:
        text = f"No: the {what} held on every lap; its {'lowest' if low else 'highest'} was {worst:.1f} "
        text += f"{unit}, on lap {worst_lap}."
    res = {"flagged_laps": flagged, "worst_lap": worst_lap, f"worst_{key}": worst}
    res |= {f"{key}_lap_{n}": v for n, v in vals}
    return Answer(text, "get_engine_health_timeline", {"session_id": sid}, res)


def _by_corner(evs: list[dict[str, Any]]) -> dict[str, list[int]]:
    by: dict[str, list[int]] = {}
    for e in evs:
        by.setdefault(str(e.get("corner") or "off-corner").upper(), []).append(int(e["lap"]))
    return by


def _counted(n: int, label: str) -> str:
    """ "1 lockup", "3 lockups", "1 ABS intervention" """
    return f"{n} {label[:-1] if n == 1 and label.endswith('s') else label}"


def _where(evs: list[dict[str, Any]]) -> str:
    """at T3 on laps 3, 4 and 5; at T7 on lap 2"""
    return "; ".join(f"at {c} on {laps_said(sorted(set(v)))}" for c, v in _by_corner(evs).items())

"""Lift points: "where do I lift?", "can I take turn 1 flat?". Where each lap came off the throttle before
a corner, the laps taken flat, and the minimum speed flat against lifted (``tools.markers.get_lift_points``,
read off the session analysis)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.fmt import lap_list
from services.paddock.questions.families import channels
from services.paddock.questions.families.track_words import corner_error, corner_names
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import ToolError
from services.paddock.tools.markers import get_lift_points

MEASURE = "lift_point"
PICKUP = "pickup_point"


def _mark(x: dict[str, Any]) -> str:
    gap = x["to_brake_m"]
    brake = (
        ", no braking"
        if gap is None
        else ", straight onto the brakes"
        if gap < 1
        else f", {gap:.0f} m before braking"
    )
    return f"{x['where']} ({x['before_apex_m']:.0f} m before the apex{brake})"


def _flat_or_lifted(c: dict[str, Any], name: str) -> str:
    """Flat, lifted, or some of each with the minimum speed either way."""
    flat, lifted = c["flat"], c["lifted"]
    if not flat and not lifted:
        return f"No valid full lap through {name} to read."
    if flat and not lifted:
        every = "" if c["coasted_through"] else "every lap read, "
        return f"You took {name} flat on {every}{lap_list(flat)}: no lift, no braking."
    if not flat:
        return f"You came off the throttle for {name} on every lap read; no lap took it flat."
    fs, ls = c["flat_min_kmh"], c["lifted_min_kmh"]
    return (
        f"You took {name} flat on {lap_list(flat)} and lifted on {lap_list(lifted)} (typically "
        f"{c['typical_before_apex_m']:.0f} m before the apex). Minimum speed there: {fs:.1f} km/h flat, "
        f"{ls:.1f} km/h lifted on average."
    )


def _one(c: dict[str, Any], name: str, laps: list[int]) -> str:
    out = [_flat_or_lifted(c, name)]
    if c["coasted_through"]:
        out.append(
            f"On {lap_list(c['coasted_through'])} you coasted through it into the next corner's braking."
        )
    best = c["best_lap"]
    if best is not None and "where" in best:
        out.append(f"On your best lap (lap {best['lap']}) you came off the throttle {_mark(best)}.")
    elif best is not None and best["flat"]:
        out.append(f"Your best lap (lap {best['lap']}) took it flat.")
    for n in laps:
        out.append(f"Lap {n}: {_lap_said(next((y for y in c['laps'] if y['lap'] == n), None))}.")
    if len(c["lifted"]) > 1:
        lt, er = c["latest"], c["earliest"]
        each = ", ".join(f"lap {x['lap']} {x['before_apex_m']:.0f} m" for x in c["laps"] if "where" in x)
        out.append(f"Lift before the {name} apex on each lap: {each}.")
        out.append(
            f"Latest: lap {lt['lap']}, {lt['where']}; earliest: lap {er['lap']}, {er['where']}; "
            f"{lt['lift_m'] - er['lift_m']:.0f} m apart."
        )
    return " ".join(out)


def _lap_said(x: dict[str, Any] | None) -> str:
    if x is None:
        return "no valid full lap read there"
    return "flat" if x["flat"] else f"off the throttle {_mark(x)}" if "where" in x else "coasting through it"


def _short(c: dict[str, Any], name: str) -> str:
    flat, lifted, best = c["flat"], c["lifted"], c["best_lap"]
    if flat and not lifted:
        return f"{name}: flat." + (
            f" Coasted through on {lap_list(c['coasted_through'])}." if c["coasted_through"] else ""
        )
    if not lifted:
        return f"{name}: no valid full lap."
    if flat:
        return f"{name}: flat on {lap_list(flat)}; lifted on {lap_list(lifted)}."
    x = best if best is not None and "where" in best else c["latest"]
    return f"{name}: {x['where']} (lap {x['lap']})."


def _points(q: Question, s: dict[str, Any], what: str) -> dict[str, Any] | Answer:
    """``get_lift_points`` of the corner asked (or every corner), or the answer saying why there are none:
    no throttle recorded (said as every family says a reading not recorded), no such corner, no corners."""
    args = {"session_id": s["session_id"], "corner_name": q.corner}
    try:
        res = get_lift_points(s["session_id"], q.corner)
    except ToolError as exc:
        if (text := corner_error(exc, q.corner, corner_names(s), what)) is None:
            raise
        return Answer(text, "get_lift_points", args, exc.as_dict())
    if res["available"]:
        return res
    if res.get("not_recorded"):
        return channels.not_recorded(s, "throttle")
    return Answer(f"No {what} for this session: {res['reason']}.", "get_lift_points", args, res)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """The lift points of the corner asked (or of every corner), flat laps beside lifted ones."""
    names = corner_names(s)
    args = {"session_id": s["session_id"], "corner_name": q.corner}
    res = _points(q, s, "lift points")
    if isinstance(res, Answer):
        return res
    if q.corner:
        c = res["corners"][0]
        laps = [x.number for x in q.laps if x.number is not None and x.session == "this"]
        text = _one(c, names.get(c["corner"], c["name"]), laps)
    else:
        text = "Where you came off the throttle, each corner (your best lap where it lifted): " + " ".join(
            _short(c, names.get(c["corner"], c["name"])) for c in res["corners"]
        )
    return Answer(text, "get_lift_points", args, res)


def _pickup(c: dict[str, Any], name: str) -> str | None:
    """A corner's pick-up over the laps that lifted or braked for it (a flat corner has none)."""
    got = [x for x in c["laps"] if "pickup_after_apex_m" in x and "lift_m" in x]
    if not got:
        return None
    at = sorted(x["pickup_after_apex_m"] for x in got)
    best = c["best_lap"]
    if len(got) == 1:
        over = f"lap {got[0]['lap']} {_apex(at[0])}"
    else:
        over = f"{_apex(at[0])} to {_apex(at[-1])} over {len(got)} laps"
    if best is not None and best in got:
        return f"{name} {_apex(best['pickup_after_apex_m'])} on your best lap ({over})"
    return f"{name} {'flat on your best lap, ' if best is not None and best['flat'] else ''}{over}"


def _apex(m: float) -> str:
    return (
        "at the apex"
        if abs(m) < 1
        else f"{m:.0f} m after the apex"
        if m > 0
        else f"{-m:.0f} m before the apex"
    )


def pickups(q: Question, s: dict[str, Any]) -> Answer | None:
    """Where each lap got back on the throttle after every corner's slowest point ("am I on the power early
    enough?"): the best lap's and the earliest to the latest, in metres from the apex."""
    sid = s["session_id"]
    names = corner_names(s)
    res = _points(q, s, "throttle pick-up")
    if isinstance(res, Answer):
        return res
    said = [_pickup(c, names.get(c["corner"], c["name"])) for c in res["corners"]]
    text = "Where you got back on the throttle, each corner you lifted or braked for: "
    text += "; ".join(x for x in said if x) + "." if any(said) else "no corner had a lift or braking read."
    return Answer(text, "get_lift_points", {"session_id": sid}, res)

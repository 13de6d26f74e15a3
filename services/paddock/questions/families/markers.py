"""Brake markers: "where's my brake marker for T3?", "how late can I brake into turn 11?". Where braking
started on the best lap, the latest and earliest, the latest that still kept the corner's best minimum
speed, and what the session analysis says about braking there (``tools.markers.get_brake_markers``)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.fmt import lap_list
from services.paddock.questions.families.track_words import corner_error, corner_names
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import ToolError
from services.paddock.tools.markers import get_brake_markers


def _mark(x: dict[str, Any]) -> str:
    return f"{x['where']} ({x['before_apex_m']:.0f} m before the apex)"


def _one(c: dict[str, Any], name: str, laps: list[int]) -> str:
    """A corner's markers in full."""
    if not c["braked"]:
        return f"You did not brake for {name} on any analysed lap."
    out = []
    if c["best_lap"]:
        out.append(
            f"Into {name} you braked {_mark(c['best_lap'])} on your best lap (lap {c['best_lap']['lap']})."
        )
    out.append(_verdict(c, name))  # "too deep?", "too early?": first, against the other laps
    for n in laps:
        got = next((x for x in c["laps"] if x["lap"] == n), None)
        out.append(f"On lap {n} you braked {_mark(got)}." if got else f"Lap {n} has no braking for {name}.")
    each = ", ".join(f"lap {x['lap']} {x['before_apex_m']:.0f} m" for x in c["laps"])
    out.append(f"Braking started before the {name} apex on each lap: {each}.")
    lt, er = c["latest"], c["earliest"]
    out.append(
        f"Latest: lap {lt['lap']}, {_mark(lt)}; earliest: lap {er['lap']}, {_mark(er)}; "
        f"{c['spread_m']:.0f} m apart."
    )
    ok = c["latest_that_worked"]
    out.append(
        f"The latest braking that still kept your best minimum speed there ({c['best_min_kmh']:.1f} km/h, "
        f"within {c['min_kmh_slack']:.0f} km/h) was lap {ok['lap']}, {_mark(ok)}."
    )
    slow = c["later_and_slower"]
    if slow:
        out.append(
            "Braking later cost minimum speed: "
            + "; ".join(f"lap {x['lap']} {_mark(x)}, minimum {x['min_kmh']:.1f} km/h" for x in slow[:4])
            + "."
        )
    an = c["analysis"]
    if an:
        by: dict[str, list[int]] = {}
        for x in an:
            by.setdefault(x["cause"], []).append(x["lap"])
        out.append(
            "The analysis: "
            + "; ".join(f"{lap_list(v)} lost time at {name} to {k}" for k, v in by.items())
            + f": {an[0]['evidence']}."
        )
    return " ".join(out)


def _verdict(c: dict[str, Any], name: str) -> str:
    """Too deep or too early: each lap against the other laps' brake point."""
    typ = c["typical_before_apex_m"]
    head = f"Against your other laps (braking typically {typ:.0f} m before the {name} apex)"
    bits = []
    if c["deeper"]:
        bits.append(
            "in too deep on "
            + ", ".join(
                f"lap {x['lap']} ({x['shift_m']:.0f} m later, minimum {x['min_kmh']:.1f} km/h)"
                for x in c["deeper"]
            )
        )
    if c["earlier"]:
        bits.append(
            "braked early on "
            + ", ".join(f"lap {x['lap']} ({x['shift_m']:.0f} m earlier)" for x in c["earlier"])
        )
    if not bits:
        return (
            f"{head}: neither too deep nor too early, every lap within {c['spread_m']:.0f} m of the others."
        )
    return f"{head}: " + "; ".join(bits) + "."


def _short(c: dict[str, Any], name: str) -> str:
    """A corner's markers in one line (every corner at once)."""
    if not c["braked"]:
        return f"{name}: no braking."
    ok = c["latest_that_worked"]
    best = f"best lap {c['best_lap']['where']}, " if c["best_lap"] else ""
    return f"{name}: {best}latest that kept your minimum speed lap {ok['lap']}, {ok['where']}."


def markers_of(
    s: dict[str, Any], corner: str | None, what: str, args: dict[str, Any]
) -> dict[str, Any] | Answer:
    """The brake markers of ``corner`` (None: every corner), or the answer saying why there are none
    (an unknown corner, no braking channel, no laps to analyse); ``what``: the figure asked, in words."""
    sid = str(s["session_id"])
    try:
        res = get_brake_markers(sid, corner)
    except ToolError as exc:
        if (text := corner_error(exc, corner, corner_names(s), what)) is None:
            raise
        return Answer(text, "get_brake_markers", args, exc.as_dict())
    if not res["available"]:
        why = res.get("not_recorded") or f"{res['reason']}."
        return Answer(f"No {what} for this session. {why}", "get_brake_markers", args, res)
    return res


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """The brake markers of the corner asked (or of every corner) in metres before the corner."""
    names = corner_names(s)
    args = {"session_id": s["session_id"], "corner_name": q.corner}
    res = markers_of(s, q.corner, "brake markers", args)
    if isinstance(res, Answer):
        return res
    if q.corner:
        c = res["corners"][0]
        laps = [x.number for x in q.laps if x.number is not None and x.session == "this"]
        text = _one(c, names.get(c["corner"], c["name"]), laps)
    else:
        text = _moved(res["corners"], names)
        text += " ".join(_short(c, names.get(c["corner"], c["name"])) for c in res["corners"])
    return Answer(text, "get_brake_markers", args, res)


def _moved(corners: list[dict[str, Any]], names: dict[str, str]) -> str:
    """Every corner at once, the ones braked early or too deep first ("am I braking too early anywhere?"):
    each lap against the other laps' brake point there; or that none was."""
    moved = [c for c in corners if c["braked"] and (c["earlier"] or c["deeper"])]
    if not moved:
        return "No corner braked early or too deep against your other laps. "
    return " ".join(_verdict(c, names.get(c["corner"], c["name"])) for c in moved) + " Each corner: "


def two_laps(s: dict[str, Any], a: int, b: int) -> Answer:
    """ "where did I brake differently, lap 4 against lap 2?": each corner's brake point on lap ``a``
    against lap ``b``, the corners that moved by the car's ``brake_point_delta_m`` or more first."""
    sid = str(s["session_id"])
    names = corner_names(s)
    args = {"session_id": sid, "lap_a": a, "lap_b": b}
    res = markers_of(s, None, "brake markers", args)
    if isinstance(res, Answer):
        return res
    moved, same, delta = [], [], 0.0
    for c in res["corners"]:
        by = {x["lap"]: x for x in c["laps"]}
        if a not in by or b not in by:
            continue
        name = names.get(c["corner"], c["name"])
        shift, delta = by[a]["brake_m"] - by[b]["brake_m"], c["delta_m"]
        if abs(shift) >= delta:
            word = "later" if shift > 0 else "earlier"
            xa, xb = by[a]["before_apex_m"], by[b]["before_apex_m"]
            moved.append(
                f"into {name} {abs(shift):.0f} m {word} ({xa:.0f} m before the apex against {xb:.0f} m)"
            )
        else:
            same.append(name)
    if not moved and not same:
        return Answer(
            f"No corner has a brake point on both lap {a} and lap {b}.", "get_brake_markers", args, res
        )
    text = (
        f"On lap {a} against lap {b} you braked " + "; ".join(moved) + "."
        if moved
        else (f"Lap {a} and lap {b} braked at the same points.")
    )
    if same:
        text += f" Within {delta:.0f} m of each other at {', '.join(same)}."
    return Answer(text, "get_brake_markers", args, res)

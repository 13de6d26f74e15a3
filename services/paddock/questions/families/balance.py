"""Understeer and oversteer: "does the car understeer?", "is it loose in T7?". The car's yaw rate against
the rate the steering asked for (``tools.balance.get_handling_balance``, whose docstring states the
method), over the session with each corner's verdict, or at the corner asked; "not recorded" naming the
channel the file lacks."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.families import lifts
from services.paddock.questions.families.track_words import corner_names, no_such_corner
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.balance import get_handling_balance
from services.paddock.tools.base import ToolError

_WORDS = {"understeer": "understeered", "oversteer": "oversteered", "neutral": "was neutral"}
# "understeer on the throttle", "loose under braking": the phase named; the balance is judged over each
# corner whole, which the answer says when a phase was named
PEDALS = frozenset({"throttle", "brake_point", lifts.PICKUP, lifts.MEASURE})
_WHOLE = "Judged over each corner as a whole, not on the throttle or under braking apart: "


def _pct(gain: float) -> str:
    return f"turned at {gain * 100:.0f} % of the rate your steering asked for"


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """The balance at the corner asked, or over the session with the corners that under- or oversteer."""
    sid = s["session_id"]
    names = corner_names(s)
    args = {"session_id": sid, "corner_name": q.corner}
    if q.corner and not names:
        return Answer(no_such_corner(q.corner, names), "get_handling_balance", args, {"corners": []})
    try:
        res = get_handling_balance(sid, q.corner)
    except ToolError as exc:
        if exc.code != "unknown_corner":
            raise
        return Answer(no_such_corner(q.corner, names), "get_handling_balance", args, exc.as_dict())
    if not res["recorded"]:
        text = f"I can't tell understeer from oversteer here. {res['not_recorded']}"
        return Answer(text, "get_handling_balance", args, res)
    if not res["available"]:
        where = f" at {names.get(str(q.corner), q.corner)}" if q.corner else ""
        text = f"Not enough cornering{where} with steering and yaw rate recorded to judge the balance."
        return Answer(text, "get_handling_balance", args, res)
    lines = []
    if q.corner:
        c = res["corners"][0]
        lines.append(
            f"At {names.get(c['corner'], c['name'])} the car {_WORDS[res['verdict']]}: it {_pct(res['yaw_gain'])}."
        )
    else:
        lines.append(f"Over the session the car {_WORDS[res['verdict']]}: it {_pct(res['yaw_gain'])}.")
        for kind in ("understeer", "oversteer"):
            at = [c for c in res["corners"] if c["verdict"] == kind]
            if at:
                lines.append(
                    f"{kind.capitalize()} at "
                    + ", ".join(
                        f"{names.get(c['corner'], c['name'])} ({c['yaw_gain'] * 100:.0f} %)" for c in at
                    )
                    + "."
                )
        neutral = [names.get(c["corner"], c["name"]) for c in res["corners"] if c["verdict"] == "neutral"]
        if neutral:
            lines.append("Neutral at " + ", ".join(neutral) + ".")
    if q.measure in PEDALS:
        lines[0] = _WHOLE + lines[0][0].lower() + lines[0][1:]
    if res["warning"]:
        lines.append(
            "Steering and yaw rate turn opposite ways on most samples: one of them may be wired the wrong "
            "way round, so check it before trusting this."
        )
    return Answer(" ".join(lines), "get_handling_balance", args, res)

"""Coasting: where the car ran with neither pedal into a corner ("am I coasting too much?", "where am I off
both pedals?", "did I coast into turn 10 on lap 4?"), from the one session analysis (``tools/analysis``:
each corner's coast on each valid lap, against your good laps, and the time it cost), never recomputed
here. Runs SQL (worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.fmt import lap_list
from services.paddock.lake import get_lake
from services.paddock.questions.families.channels import label, on_lap
from services.paddock.questions.families.laps import named_laps
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.analysis import session_analysis
from shared.analysis.model import TYPICAL, CornerLap, finite
from shared.thresholds import car_thresholds

TOOL = "session_analysis"
NEEDS = (("throttle",), ("brake_pressure", "long_g"))  # the channels a coast is read from, one of each


def _corner(rows: list[CornerLap]) -> dict[str, Any]:
    """One corner's coasting: the laps, the longest coast, your good laps' coast, the time it cost."""
    cost = [r.loss_s for r in rows if r.cause == "coasting"]
    return {
        "corner": rows[0].corner,
        "laps": [r.lap for r in rows],
        "coast_s": round(max(r.coast_s for r in rows), 2),
        "typical_coast_s": round(rows[0].typ_coast_s, 2) if finite(rows[0].typ_coast_s) else None,
        "lost_s": [round(x, 3) for x in cost],
    }


def _coasts(rows: list[CornerLap], least: float) -> list[dict[str, Any]]:
    """Each corner coasted into for ``least`` seconds or more, the ones that cost time first."""
    by: dict[str, list[CornerLap]] = {}
    for r in rows:
        if finite(r.coast_s) and r.coast_s >= least:
            by.setdefault(r.corner, []).append(r)
    return sorted((_corner(v) for v in by.values()), key=lambda c: (-sum(c["lost_s"]), -c["coast_s"]))


def _said(c: dict[str, Any]) -> str:
    text = f"into {c['corner']} on {lap_list(c['laps'])}: {c['coast_s']:.1f} s"
    if c["typical_coast_s"] is not None:
        text += f" (on {TYPICAL} {c['typical_coast_s']:.1f} s)"
    if c["lost_s"]:
        lo, hi = min(c["lost_s"]), max(c["lost_s"])
        text += f", costing {lo:.2f} s" + (f" to {hi:.2f} s" if hi - lo >= 0.005 else "") + " a lap"
    return text


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """The corners the car coasted into for ``coast_min_s`` or more (on the lap or at the corner named),
    the ones that cost time first."""
    if q.measure != "coasting":
        return None
    sid = str(s["session_id"])
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps
    mine = [n for x, n in laps if x == sid]  # "lap 4 vs lap 2": the coasts of both
    args = {"session_id": sid, "laps": mine, "corner": q.corner}
    an = session_analysis(sid)
    rows = [r for r in an.rows if (not mine or r.lap in mine) and q.corner in (None, r.corner_id.lower())]
    # a coast runs from the lift to the braking: the throttle, and the brake pressure or the deceleration
    lacking = [" or ".join(map(label, ms)) for ms in NEEDS if all(on_lap(sid, m, None) is None for m in ms)]
    if lacking or not any(finite(r.coast_s) for r in rows):
        why = f"not recorded in this session: {' and '.join(lacking)}" if lacking else None
        why = why or an.reason or "no valid lap passes there"
        return Answer(f"Coasting cannot be measured: {why}.", TOOL, args, {"recorded": False})
    least = car_thresholds(s.get("car_id"), get_lake().settings.data_dir)["coast_min_s"]
    got = _coasts(rows, least)
    if not got:
        scope = (f" on {lap_list(mine)}" if mine else "") + (f" into {rows[0].corner}" if q.corner else "")
        most = max(r.coast_s for r in rows if finite(r.coast_s))
        text = f"No coasting{scope}: at most {most:.1f} s with neither pedal before a corner."
        # "did my fastest lap have the least coasting?": the lap against the session's other laps
        rest = (
            [r for r in an.rows if q.corner in (None, r.corner_id.lower())] if mine and q.aggregation else []
        )
        if others := _coasts(rest, least):
            text += " On the other laps you coasted " + "; ".join(map(_said, others)) + "."
        return Answer(text, TOOL, args, {"coasts": [], "coast_min_s": least, "most_coast_s": round(most, 2)})
    text = "You coasted (neither pedal) " + "; ".join(map(_said, got)) + "."
    quiet = [n for n in mine if not any(n in c["laps"] for c in got)]
    if quiet:
        text += f" No coasting on {lap_list(quiet)}."
    return Answer(text, TOOL, args, {"coasts": got, "coast_min_s": least})

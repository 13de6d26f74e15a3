"""Gears over the lap: the gear at every corner's slowest point, each valid lap ("am I in the wrong gear
anywhere?", "what gear in each corner?"), and the engine speed at each upshift against the car's redline
("am I short shifting?", "when do I change up?"). Read from the recorded gear and rpm channels. Runs SQL
(worker thread)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from services.paddock.questions.families.channels import lap_of, on_lap, ordinal, show
from services.paddock.questions.families.corners import name_of
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import car_profile, rows

CORNER_GEARS, SHIFT_RPM = "corner_gears", "shift_rpm"
TOOL = "telemetry"
_FULL = "JOIN laps l ON l.session_id = ? AND l.lap = {t}.lap WHERE l.kind = 'full' AND l.valid"


def _recorded(sid: str) -> bool:
    try:
        have = rows("SELECT count(gear) AS n FROM telemetry WHERE session_id = ? AND gear > 0", [sid])
    except Exception:  # a lake without the column at all
        return False
    return bool(have and have[0]["n"])


def _at_corners(sid: str) -> Answer:
    """Each corner's usual gear at its slowest point, and the laps in another gear there."""
    got = rows(
        """SELECT c.corner_id, c.lap, c.apex_m,
                  (SELECT t.gear FROM telemetry t WHERE t.session_id = c.session_id AND t.lap = c.lap
                     AND t.gear > 0 ORDER BY abs(t.dist_m - c.apex_m) LIMIT 1) AS gear
           FROM corner_results c """
        + _FULL.format(t="c")
        + " AND c.session_id = ? AND c.apex_m IS NOT NULL ORDER BY c.corner_id, c.lap",
        [sid, sid],
    )
    by: dict[str, dict[int, int]] = {}
    at: dict[str, float] = {}  # where each corner is on the lap: the corners in driving order
    for x in got:
        if x["gear"] is not None:
            by.setdefault(str(x["corner_id"]), {})[int(x["lap"])] = round(float(x["gear"]))
            at.setdefault(str(x["corner_id"]), float(x["apex_m"]))
    if not by:
        return Answer("No valid lap has a gear reading at a corner.", TOOL, {"session_id": sid}, {})
    said, other, out = [], [], {}
    for cid in sorted(by, key=at.__getitem__):
        laps = by[cid]
        typical, k = Counter(laps.values()).most_common(1)[0]
        name = name_of(cid, None)
        odd = sorted((lap, g) for lap, g in laps.items() if g != typical)
        out[name] = {"typical_gear": typical, "laps_in_typical_gear": k, "other_laps": dict(odd)}
        said.append(f"{name} {ordinal(typical)}")
        other += [f"{name}: {ordinal(g)} on lap {lap} (usually {ordinal(typical)})" for lap, g in odd]
    text = "Your gear at each corner's slowest point on your valid laps: " + ", ".join(said) + "."
    text += (
        " In another gear than usual: " + "; ".join(other) + "."
        if other
        else " The same gear there on every valid lap."
    )
    return Answer(text, TOOL, {"session_id": sid}, {"corners": out})


def _shifts(sid: str, s: dict[str, Any]) -> Answer:
    """The engine speed just before each upshift on the valid laps, against the car's redline."""
    got = rows(
        """WITH t AS (SELECT lap, gear, lag(gear) OVER w AS g0, lag(rpm) OVER w AS r0 FROM telemetry
                      WHERE session_id = ? AND gear > 0 WINDOW w AS (ORDER BY t_s))
           SELECT g0, count(*) AS n, median(r0) AS rpm, min(r0) AS lo, max(r0) AS hi FROM t """
        + _FULL.format(t="t")
        + " AND t.gear = t.g0 + 1 AND t.r0 IS NOT NULL GROUP BY g0 ORDER BY g0",
        [sid, sid],
    )
    if not got:
        return Answer("No upshift on a valid lap has an engine speed reading.", TOOL, {"session_id": sid}, {})
    said = [
        f"{ordinal(int(x['g0']))} to {ordinal(int(x['g0']) + 1)} at {x['rpm']:,.0f} rpm "
        f"({x['lo']:,.0f} to {x['hi']:,.0f}, {x['n']} shifts)"
        for x in got
    ]
    text = "You changed up, typically: " + "; ".join(said) + "."
    res: dict[str, Any] = {"upshifts": {int(x["g0"]): round(float(x["rpm"])) for x in got}}
    car = car_profile(s.get("car_id"))
    if "redline_rpm" in car.vehicle.model_fields_set:  # a redline the profile does not state: none said
        red = car.vehicle.redline_rpm
        low = min(float(x["rpm"]) for x in got)
        text += f" The car's redline is {red:,.0f} rpm: your earliest typical upshift is {red - low:,.0f} rpm"
        text += " short of it."
        res["redline_rpm"] = red
    return Answer(text, TOOL, {"session_id": sid}, res)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    if q.measure not in (CORNER_GEARS, SHIFT_RPM) or q.corner is not None:
        return None
    sid = str(s["session_id"])
    if not _recorded(sid):
        text = "Gear is not recorded in this session's file (no gear channel)"
        peak = on_lap(sid, "rpm", None, "max") if q.measure == SHIFT_RPM else None
        if peak is None:
            return Answer(text + ".", TOOL, {"session_id": sid}, {})
        at = lap_of(sid, "rpm", "max")  # the session's peak, as the rpm answer says it
        text += f", so the upshifts cannot be found; your engine speed peaked at {show('rpm', peak[0])}"
        text += f" (lap {at})." if at is not None else "."
        return Answer(text, TOOL, {"session_id": sid}, {"max_rpm": peak[0], "lap": at})
    return _at_corners(sid) if q.measure == CORNER_GEARS else _shifts(sid, s)

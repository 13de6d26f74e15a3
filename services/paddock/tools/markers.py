"""Brake markers in driver terms: where braking starts for a corner on each valid lap, as metres before the
corner's entry (or from the track's named brake marker, ``shared.analysis.advice.where``), the latest and
the earliest, and the latest that still kept the corner's best minimum speed ("how late can I brake?");
and lift points: where each lap came off the throttle for the corner, or took it flat ("is T1 flat?").

The brake and lift points are the session analysis' (``shared.analysis``: the start of the corner's braking zone,
``shared.corners.brake_zone``: brake pressure, else deceleration), so every surface reads one figure.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.lake import get_lake
from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.base import ToolError, find_corner, r, session_row, track_corners
from services.paddock.tools.recorded import session_recorded
from shared.analysis.advice import where
from shared.analysis.model import CAUSE_WORDS, CornerLap, finite
from shared.profiles.track import Corner
from shared.thresholds import car_thresholds

BRAKE_CAUSES = ("late_brake", "early_brake", "lockup")
_NEEDS = ("brake_pressure", "g_long")


def _lap(c: Corner, x: CornerLap) -> dict[str, Any]:
    return {
        "lap": x.lap,
        "brake_m": r(x.brake_m, 1),
        "before_entry_m": r(c.start_m - x.brake_m, 1),
        "before_apex_m": r(c.apex_m - x.brake_m, 1),
        "where": where(c, x.brake_m),
        "min_kmh": r(x.min_kmh, 1),
        # trail braking: the pressure still on at the corner's entry, and where the brake came off (NaN:
        # no pressure channel)
        "turn_in_bar": r(x.turn_in_bar, 1) if finite(x.turn_in_bar) else None,
        "off_before_apex_m": r(c.apex_m - x.release_m, 1) if finite(x.release_m) else None,
        # the brake on across the turn-in (braking begun after it is braking in the corner)
        "trailed": finite(x.release_m) and finite(x.turn_in_bar) and x.brake_m <= c.start_m < x.release_m,
    }


def _against_others(c: Corner, braked: list[CornerLap], delta_m: float) -> dict[str, Any]:
    """Each lap's brake point against the median of the other laps' ("did I go in too deep?"): the laps
    ``delta_m`` or more later (deeper) or earlier, with the metres and the minimum speed."""
    out: dict[str, Any] = {
        "typical_before_apex_m": r(c.apex_m - float(np.median([x.brake_m for x in braked])), 1)
    }
    deeper: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []
    for x in braked:
        others = [y.brake_m for y in braked if y is not x]
        if not others:
            continue
        shift = x.brake_m - float(np.median(others))
        if abs(shift) >= delta_m:
            (deeper if shift > 0 else earlier).append(_lap(c, x) | {"shift_m": r(abs(shift), 1)})
    return out | {"deeper": deeper, "earlier": earlier, "delta_m": delta_m}


def corner_markers(
    c: Corner, rows: list[CornerLap], best_lap: int | None, slack_kmh: float, delta_m: float
) -> dict[str, Any]:
    """One corner's brake markers over its analysis rows (one per valid full lap)."""
    braked = [x for x in rows if finite(x.brake_m)]
    out: dict[str, Any] = {"corner": c.id, "name": c.name, "entry_m": c.start_m, "apex_m": c.apex_m}
    if not braked:
        return {**out, "braked": False, "laps": []}
    laps = [_lap(c, x) for x in braked]
    latest = max(braked, key=lambda x: x.brake_m)
    earliest = min(braked, key=lambda x: x.brake_m)
    best_min = max(x.min_kmh for x in braked if finite(x.min_kmh))
    kept = [x for x in braked if finite(x.min_kmh) and x.min_kmh >= best_min - slack_kmh]
    ok = max(kept, key=lambda x: x.brake_m)
    too_late = [x for x in braked if x.brake_m > ok.brake_m]
    best = next((x for x in braked if x.lap == best_lap), None)
    return {
        **out,
        "braked": True,
        "laps": laps,
        "best_lap": _lap(c, best) if best else None,
        "latest": _lap(c, latest),
        "earliest": _lap(c, earliest),
        "spread_m": r(latest.brake_m - earliest.brake_m, 1),
        "best_min_kmh": r(best_min, 1),
        "min_kmh_slack": slack_kmh,
        "latest_that_worked": _lap(c, ok),
        "later_and_slower": [_lap(c, x) for x in sorted(too_late, key=lambda x: -x.brake_m)],
        **_against_others(c, braked, delta_m),
        "analysis": [
            {"lap": x.lap, "cause": CAUSE_WORDS[x.cause], "loss_s": r(x.loss_s), "evidence": x.evidence}
            for x in rows
            if x.cause in BRAKE_CAUSES
        ],
    }


def get_brake_markers(session_id: str, corner_name: str | None = None) -> dict[str, Any]:
    """Brake markers per corner: braking start on each valid lap and the best lap, metres before the corner, latest, earliest, and the latest that kept the best minimum speed."""
    s = session_row(session_id)
    sid = s["session_id"]
    corners = track_corners(s.get("track_id"))
    if corner_name:
        corners = [find_corner(s.get("track_id"), corner_name)]
    if not corners:
        raise ToolError("no_corners", f"session {sid} has no corners", "the track is unknown")
    base = {"session_id": sid, "best_lap": s.get("best_lap")}
    rec = session_recorded(sid, _NEEDS)
    if not any(rec.has(m) for m in _NEEDS):  # braking is read from the pressure, else the deceleration
        return {
            **base,
            "available": False,
            **rec.fields(*_NEEDS),
            "reason": "no brake pressure or longitudinal g",
        }
    an = session_analysis(sid)
    if not an.rows:
        return {**base, "available": False, "reason": an.reason or "no valid full laps to analyse"}
    th = car_thresholds(s.get("car_id"), get_lake().settings.data_dir)
    slack, delta = th["over_slow_kmh"], th["brake_point_delta_m"]
    return {
        **base,
        "available": True,
        "laps": an.laps,
        "corners": [
            corner_markers(c, an.corner_rows(c.id), s.get("best_lap"), slack, delta) for c in corners
        ],
    }


def _lift(c: Corner, x: CornerLap) -> dict[str, Any]:
    """A lap's lift for the corner: where it came off the throttle (the brake point when it went straight
    from throttle to brake), or flat: neither a lift nor braking."""
    out: dict[str, Any] = {"lap": x.lap, "min_kmh": r(x.min_kmh, 1), "corner_s": r(x.time_s)}
    if finite(x.pickup_m):  # back on the throttle after the slowest point: metres after the apex
        out["pickup_after_apex_m"] = r(x.pickup_m - c.apex_m, 1)
    if x.to_m <= x.from_m:  # off the throttle from before it, coasting on into the next corner's braking
        return out | {"flat": False, "through": True}
    at = x.lift_m if finite(x.lift_m) else x.brake_m
    if not finite(at):
        return out | {"flat": True}
    out |= {"flat": False, "lift_m": r(at, 1), "before_apex_m": r(c.apex_m - at, 1), "where": where(c, at)}
    return out | {"to_brake_m": r(x.brake_m - at, 1) if finite(x.brake_m) else None}


def corner_lifts(c: Corner, rows: list[CornerLap], best_lap: int | None) -> dict[str, Any]:
    """One corner's lift points over its analysis rows: where each lap came off the throttle (the start of
    the off-throttle run it was driven in), the laps taken flat, and their minimum speeds side by side."""
    laps = [_lift(c, x) for x in rows]
    lifted = [x for x in laps if "lift_m" in x]
    flat = [x for x in laps if x["flat"]]
    out: dict[str, Any] = {"corner": c.id, "name": c.name, "entry_m": c.start_m, "apex_m": c.apex_m}
    out |= {"laps": laps, "lifted": [x["lap"] for x in lifted], "flat": [x["lap"] for x in flat]}
    out["coasted_through"] = [x["lap"] for x in laps if x.get("through")]
    out["best_lap"] = next((x for x in laps if x["lap"] == best_lap), None)
    if lifted:
        out["latest"] = max(lifted, key=lambda x: x["lift_m"])
        out["earliest"] = min(lifted, key=lambda x: x["lift_m"])
        out["typical_before_apex_m"] = r(float(np.median([x["before_apex_m"] for x in lifted])), 1)
    if lifted and flat:  # the minimum speed flat against lifted, each set's mean (the corner's stretch
        # is not the same on both: a lift moves where it starts)
        out["flat_min_kmh"] = r(float(np.mean([x["min_kmh"] for x in flat])), 1)
        out["lifted_min_kmh"] = r(float(np.mean([x["min_kmh"] for x in lifted])), 1)
    return out


def get_lift_points(session_id: str, corner_name: str | None = None) -> dict[str, Any]:
    """Throttle points per corner: where each valid lap came off the throttle before it and back on after its apex, in metres; laps taken flat; minimum speed flat against lifted."""
    s = session_row(session_id)
    sid = s["session_id"]
    base = {"session_id": sid, "best_lap": s.get("best_lap")}
    rec = session_recorded(sid, ("throttle",))
    if not rec.has("throttle"):  # said first: no track's corners would give a figure without it
        return {**base, "available": False, **rec.fields("throttle"), "reason": "no throttle position"}
    corners = (
        [find_corner(s.get("track_id"), corner_name)] if corner_name else track_corners(s.get("track_id"))
    )
    if not corners:
        raise ToolError("no_corners", f"session {sid} has no corners", "the track is unknown")
    an = session_analysis(sid)
    if not an.rows:
        return {**base, "available": False, "reason": an.reason or "no valid full laps to analyse"}
    rows = {c.id: corner_lifts(c, an.corner_rows(c.id), s.get("best_lap")) for c in corners}
    return {**base, "available": True, "laps": an.laps, "corners": list(rows.values())}

"""Opportunity tools: a session's three biggest opportunities, and the coaching threads from the driver's
previous session at the same track in the same car (computed from the lake on demand; nothing stored)."""

from __future__ import annotations

from typing import Any

from services.paddock.tools.alarms import flag_report, warning_threads
from services.paddock.tools.base import ToolError, rows, same_origin, session_arrays, session_row
from shared.opportunity_rules import session_opportunities
from shared.profiles.car import CarProfileError, load_car
from shared.profiles.track import TrackProfile, load_track
from shared.threads import session_threads
from shared.thresholds import thresholds_for

CHANNELS = ("speed_kmh", "throttle_pct", "brake_bar", "g_long", "g_lat")


def _track(s: dict[str, Any]) -> TrackProfile | None:
    try:
        tr = load_track(s["track_id"]) if s.get("track_id") else None
    except KeyError:
        return None
    return tr if tr is not None and tr.corners else None


def car_thresholds(car_id: str | None) -> dict[str, float]:
    """The coaching threshold table with the car profile's overrides (the defaults for an unknown car)."""
    try:
        over = load_car(car_id).thresholds if car_id else {}
    except (KeyError, CarProfileError, ValueError):
        over = {}
    try:
        return thresholds_for(over)
    except ValueError:
        return thresholds_for(None)


def corner_gaps(
    session_id: str, car_id: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], float]:
    """(each corner's best and typical (median) time over the session's valid full laps, those whose
    typical time is the car's ``opportunity_min_s`` or more over their best, that bar): hundredths are
    noise, not time to find."""
    corners = rows(
        """SELECT c.corner_id, any_value(c.corner_name) AS name, min(c.time_s) AS best_s, median(c.time_s) AS median_s
           FROM corner_results c JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
           WHERE c.session_id = ? AND l.kind = 'full' AND l.valid GROUP BY 1""",
        [session_id],
    )
    bar = car_thresholds(car_id)["opportunity_min_s"]
    over = [
        c
        for c in corners
        if c["median_s"] is not None and c["best_s"] is not None and c["median_s"] - c["best_s"] >= bar
    ]
    return corners, over, bar


def _inputs(sid: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    wide = session_arrays(sid, CHANNELS)
    laps = rows(
        "SELECT lap, kind, valid, t_start_s, t_end_s FROM laps WHERE session_id = ? ORDER BY lap", [sid]
    )
    return wide, laps


def _opportunities(s: dict[str, Any]) -> dict[str, Any]:
    sid = s["session_id"]
    track = _track(s)
    if track is None:
        return {
            "session_id": sid,
            "opportunities": [],
            "reason": "no track profile with corners for this track",
        }
    wide, laps = _inputs(sid)
    out = session_opportunities(wide, laps, track, car_thresholds(s.get("car_id")))
    for o in out["opportunities"]:
        o["session_id"] = sid
    return {"session_id": sid, "track": track.id, **out}


def get_opportunities(session_id: str) -> dict[str, Any]:
    """Three biggest opportunities by time lost over the session: corner, time to gain a lap, evidence (brake point, minimum speed, throttle pick-up, coasting), one target, the rule, next session's check."""
    return _opportunities(session_row(session_id))


def previous_session(s: dict[str, Any]) -> dict[str, Any] | None:
    """The driver's own session before ``s`` at the same track in the same car, or None (a bundle's
    session has none: :func:`services.paddock.tools.base.same_origin`)."""
    when = s.get("started_at")
    own, own_params = same_origin(s)
    got = rows(
        f"""SELECT * FROM sessions
           WHERE driver_id IS NOT DISTINCT FROM ? AND track_id IS NOT DISTINCT FROM ?
             AND car_id IS NOT DISTINCT FROM ? AND session_id <> ? AND {own}
             AND (coalesce(started_at, TIMESTAMP '1970-01-01') < coalesce(CAST(? AS TIMESTAMP), TIMESTAMP '1970-01-01')
                  OR (coalesce(started_at, TIMESTAMP '1970-01-01') = coalesce(CAST(? AS TIMESTAMP), TIMESTAMP '1970-01-01')
                      AND session_id < ?))
           ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT 1""",
        [
            s.get("driver_id"),
            s.get("track_id"),
            s.get("car_id"),
            s["session_id"],
            *own_params,
            when,
            when,
            s["session_id"],
        ],
    )
    return got[0] if got else None


def get_threads(session_id: str) -> dict[str, Any]:
    """Previous session's opportunities (same track and car) re-measured here: resolved, improving or unchanged with before and now, or no new data; its warnings set again or not."""
    s = session_row(session_id)
    sid = s["session_id"]
    prev = previous_session(s)
    if prev is None:
        return {
            "session_id": sid,
            "threads": [],
            "warnings": [],
            "reason": "no earlier session of yours at this track in this car",
        }
    head = {
        "session_id": sid,
        "previous_session_id": prev["session_id"],
        "warnings": warning_threads(flag_report(prev["session_id"]), flag_report(sid)),
    }
    before = _opportunities(prev)
    opps = before.get("opportunities") or []
    if not opps:
        why = before.get("reason") or "it had no opportunity over the threshold"
        return {**head, "threads": [], "reason": why}
    track = _track(s)
    if track is None:
        raise ToolError("no_track", "no track profile with corners for this track", "")
    wide, laps = _inputs(sid)
    threads = session_threads(opps, wide, laps, track, car_thresholds(s.get("car_id")))
    return {**head, "threads": threads}

"""Opportunity tools: where the time is in a session (its analysis' top corners, each with its cause,
evidence and one target), and the coaching threads from the driver's previous session at the same
track in the same car (both sessions' analyses compared; nothing stored)."""

from __future__ import annotations

from typing import Any

from services.paddock.lake import get_lake
from services.paddock.tools.alarms import flag_report, warning_threads
from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.base import rows, same_origin, session_row
from shared.analysis.advice import opportunity
from shared.analysis.model import SPLIT_RULE, TYPICAL
from shared.analysis.summary import LABELS, corner_summaries, where_the_time_is
from shared.profiles.track import TrackProfile, load_track
from shared.session_date import date_text
from shared.threads import session_threads

METHOD = (
    f"each corner's time on every valid lap against {TYPICAL} there, a corner ending at {SPLIT_RULE}; "
    "ranked by the time lost over the session"
)


def _track(s: dict[str, Any]) -> TrackProfile | None:
    try:
        # a track Pitwall detected and stored lives in the lake's data directory
        tr = load_track(s["track_id"], get_lake().settings.data_dir) if s.get("track_id") else None
    except KeyError:
        return None
    return tr if tr is not None and tr.corners else None


def _opportunities(s: dict[str, Any]) -> dict[str, Any]:
    sid = s["session_id"]
    track = _track(s)
    an = session_analysis(sid)
    if track is None or not an.rows:
        why = "no track profile with corners for this track" if track is None else an.reason
        return {"session_id": sid, "valid_laps": len(an.laps), "opportunities": [], "reason": why}
    ops = []
    for i, x in enumerate(where_the_time_is(an), start=1):
        c = track.find_corner(x.corner_id)
        if c is not None:
            ops.append({**opportunity(i, x, c, an.corner_rows(x.corner_id)), "session_id": sid})
    out: dict[str, Any] = {
        "session_id": sid,
        "track": track.id,
        "valid_laps": len(an.laps),
        "opportunities": ops,
        "offs": [  # a stop, a spin or an off: said, never ranked as time to find
            {"lap": r.lap, "corner": r.corner, "corner_id": r.corner_id, "evidence": r.evidence}
            for r in an.offs()
        ],
    }
    if not ops:
        out["reason"] = "no corner loses time against your good laps often enough to name"
    return out | {"method": METHOD, "labels": LABELS}


def get_opportunities(session_id: str) -> dict[str, Any]:
    """Three corners with most time lost over the session: time to find a lap, laps, cause with evidence, one target; laps that stopped, spun or went off (not ranked)."""
    return _opportunities(session_row(session_id))


def previous_session(s: dict[str, Any]) -> dict[str, Any] | None:
    """The driver's own session before ``s`` at the same track in the same car, or None (a bundle's
    session has none: :func:`services.paddock.tools.base.same_origin`). By date when ``s``'s file carries
    one (among the sessions whose files do); else the session imported before it."""
    own, own_params = same_origin(s)
    col = "started_at" if s.get("started_at") is not None else "created_at"
    got = rows(
        f"""SELECT * FROM sessions
           WHERE driver_id IS NOT DISTINCT FROM ? AND track_id IS NOT DISTINCT FROM ?
             AND car_id IS NOT DISTINCT FROM ? AND session_id <> ? AND {own} AND {col} IS NOT NULL
             AND ({col} < CAST(? AS TIMESTAMP) OR ({col} = CAST(? AS TIMESTAMP) AND session_id < ?))
           ORDER BY {col} DESC, session_id DESC LIMIT 1""",
        [
            s.get("driver_id"),
            s.get("track_id"),
            s.get("car_id"),
            s["session_id"],
            *own_params,
            s.get(col),
            s.get(col),
            s["session_id"],
        ],
    )
    return got[0] if got else None


def _order(prev: dict[str, Any], s: dict[str, Any]) -> str:
    """How "the previous session" was chosen, in words, with both sessions' dates."""
    was, now = date_text(prev), date_text(s)
    if s.get("started_at") is not None:
        return f"by date: the previous session was driven {was}, this one {now}"
    return (
        f"import order (this session's file carries no date): the previous session is the one imported "
        f"before it ({was}; this one {now})"
    )


def get_threads(session_id: str) -> dict[str, Any]:
    """Corners that lost time last session (same track and car) or this one: new, worse, better, resolved or unchanged, with before and now; its warnings set again or not."""
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
        "order": _order(prev, s),
        "warnings": warning_threads(flag_report(prev["session_id"]), flag_report(sid)),
    }
    before, now = session_analysis(prev["session_id"]), session_analysis(sid)
    if not before.rows or not now.rows:
        why = (before.reason if not before.rows else now.reason) or "not enough valid laps"
        return {**head, "threads": [], "reason": why}
    threads = session_threads(corner_summaries(before), corner_summaries(now))
    return {**head, "threads": threads}

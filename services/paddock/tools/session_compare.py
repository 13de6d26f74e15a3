"""The driver's own sessions at a session's track, and one session against another: best lap against best
lap with the gap, and where the gap is, corner by corner, from the two sessions' analyses
(each corner's segment as the analysis cuts this session's best lap, ``shared.analysis``, timed on both
best laps over the same stretch of lap distance). Own sessions only: a friend's imported session is never
"yours" (the rule of ``base.same_origin``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.base import (
    ToolError,
    lap_arrays,
    r,
    rows,
    session_row,
    track_corners,
)
from shared.bundle_read import foreign
from shared.session_date import dated


def own_sessions_here(s: dict[str, Any]) -> list[dict[str, Any]]:
    """The driver's own sessions at ``s``'s track (``s`` included), newest first, with their best valid lap
    and when each was driven (``at``, ISO to the minute: the file's date, else its guess, ``session_date``).
    A friend's bundle (``shared.bundle_read.foreign``) is only ever compared with itself, as in
    ``base.same_origin``. Two queries, the second naming every session it reads (an S3 lake shows a query
    only the sessions its parameters name)."""
    sid = s["session_id"]
    me = {**s, "started": s.get("started_at")}
    found = [me]
    if s.get("track_id") and not foreign(s.get("meta_json")):
        found = rows(
            """SELECT session_id, CAST(started_at AS VARCHAR) AS started, started_at, created_at, car_id, meta_json
               FROM sessions
               WHERE driver_id = ? AND track_id = ?""",
            [s["driver_id"], s["track_id"]],
        )
        found = [g for g in found if g["session_id"] == sid or not foreign(g["meta_json"])]
    ids = [g["session_id"] for g in found]
    best = {
        x["session_id"]: x
        for x in rows(
            f"""SELECT session_id, count(*) AS valid_laps, min(time_s) AS best_s, arg_min(lap, time_s) AS best_lap
                FROM laps WHERE session_id IN ({", ".join("?" * len(ids))}) AND kind = 'full' AND valid
                GROUP BY session_id""",
            ids,
        )
    }
    out = [
        {
            "session_id": g["session_id"],
            "started": None if g["started"] is None else str(g["started"]),
            "at": dated(g)["date_at"],
            "at_guessed": dated(g)["date_guessed"],  # how the date was guessed: the file carries none
            "car_id": g["car_id"],
            "valid_laps": best.get(g["session_id"], {}).get("valid_laps", 0),
            "best_s": best.get(g["session_id"], {}).get("best_s"),
            "best_lap": best.get(g["session_id"], {}).get("best_lap"),
        }
        for g in found
    ]
    out.sort(key=lambda g: g["session_id"], reverse=True)
    out.sort(key=lambda g: (g["started"] is not None, g["started"] or ""), reverse=True)
    return out


def get_sessions_here(session_id: str) -> dict[str, Any]:
    """The driver's own sessions at this track (friends' bundles excluded), newest first: date, car, valid laps, best lap; and the newest other session."""
    s = session_row(session_id)
    got = own_sessions_here(s)
    others = [g for g in got if g["session_id"] != s["session_id"]]
    return {
        "session_id": s["session_id"],
        "track": s.get("track_id"),
        "track_name": s.get("track_name"),
        "sessions": [
            {**g, "best_s": r(g["best_s"]), "this": g["session_id"] == s["session_id"]} for g in got
        ],
        "other_session_id": others[0]["session_id"] if others else None,
    }


def _stretches(session_id: str, lap: int | None) -> list[tuple[str, float, float]]:
    """(corner, from, to) of each corner's segment on the session's best lap (the analysis' cut), within the lap."""
    if lap is None:
        return []
    got = [x for x in session_analysis(session_id).rows if x.lap == lap]
    return [(x.corner_id, max(x.from_m, 0.0), x.to_m) for x in got]


def _times(session_id: str, lap: int, stretches: list[tuple[str, float, float]]) -> dict[str, float]:
    """Each stretch's time on ``lap``: the lap's clock interpolated at both ends by lap distance."""
    a = lap_arrays(session_id, lap, ())
    ok = np.isfinite(a["dist_m"]) & np.isfinite(a["t_s"])
    d, t = np.maximum.accumulate(a["dist_m"][ok]), a["t_s"][ok]
    end = float(d[-1])
    return {
        cid: float(np.interp(min(hi, end), d, t) - np.interp(min(lo, end), d, t)) for cid, lo, hi in stretches
    }


def compare_sessions(session_id: str, other_session_id: str) -> dict[str, Any]:
    """This session's best lap against another own session's at the same track: both times, the gap (positive: slower), and the gap per corner, largest first."""
    s, o = session_row(session_id), session_row(other_session_id)
    own = {g["session_id"]: g for g in own_sessions_here(s)}
    if o["session_id"] not in own or o["session_id"] == s["session_id"]:
        raise ToolError(
            "not_comparable",
            f"session {o['session_id']} is not another of your sessions at {s.get('track_id') or 'this track'}",
            "see get_sessions_here",
        )
    this, other = own[s["session_id"]], own[o["session_id"]]
    out: dict[str, Any] = {
        "session_id": s["session_id"],
        "other_session_id": o["session_id"],
        "other_started": other["started"],
        "best_s": r(this["best_s"]),
        "best_lap": this["best_lap"],
        "other_best_s": r(other["best_s"]),
        "other_best_lap": other["best_lap"],
    }
    if this["best_s"] is None or other["best_s"] is None:
        return {**out, "available": False, "reason": "one of the two sessions has no valid full lap"}
    cut = _stretches(s["session_id"], this["best_lap"])
    a, b = _times(s["session_id"], this["best_lap"], cut), _times(o["session_id"], other["best_lap"], cut)
    names = {c.id: c.name for c in track_corners(s.get("track_id"))}
    corners = [
        {
            "corner": cid,
            "name": names.get(cid, cid),
            "from_m": r(lo, 1),
            "to_m": r(hi, 1),
            "time_s": r(a[cid]),
            "other_time_s": r(b[cid]),
            "gap_s": r(a[cid] - b[cid]),
        }
        for cid, lo, hi in cut
    ]
    corners.sort(key=lambda x: -abs(x["gap_s"]))
    return {**out, "available": True, "gap_s": r(this["best_s"] - other["best_s"]), "corners": corners}

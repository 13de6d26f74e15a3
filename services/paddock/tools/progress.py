"""Driver-level tools, scoped to one session: its driver, at its track, in its car. Cross-session context
(corner history, progress, personal best) comes only from that driver's sessions at the same track and in
the same car, up to and including the session asked about, and says so."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.base import ToolError, find_corner, r, rows, session_row
from services.paddock.tools.history import history_scope, same_track
from services.paddock.tools.opportunities import get_opportunities
from services.paddock.tools.optimal import session_achievable
from shared.analysis.plan import PUSH, plan_blocks
from shared.analysis.summary import LABELS, corner_summaries

CORNER_TREND_S = 0.02  # a corner losing this much less (more) a lap per session is improving (regressing)


def _time_to_find(session_id: str, corner_id: str) -> dict[str, Any]:
    """The corner's time to find in one session (its analysis: the one figure every screen shows)."""
    s = next((x for x in corner_summaries(session_analysis(session_id)) if x.corner_id == corner_id), None)
    if s is None:
        return {"time_to_find_s": None, "laps_lost": None}
    return {
        "time_to_find_s": r(s.per_lap_s) if s.laps else 0.0,
        "laps_lost": s.laps,
        "cause": s.cause or None,
    }


def get_corner_history(session_id: str, corner_name: str, n_sessions: int = 10) -> dict[str, Any]:
    """One corner across the driver's recent sessions at this session's track and car: best and median corner time, minimum speed, brake point, grade, coaching notes and trend."""
    if not 1 <= n_sessions <= 50:
        raise ToolError("bad_argument", "n_sessions must be 1-50", "")
    s, sess = same_track(
        session_id, n_sessions, ("laps", "corner_results", "coaching_notes", "corner_analysis")
    )
    c = find_corner(s["track_id"], corner_name)
    ids = [x["session_id"] for x in sess]
    inn = ", ".join("?" * len(ids))
    # one query each over the driver's sessions (named by parameter: on S3 only their objects are read);
    # corner ids compare in any case: a lake written before ids were canonical may hold "T3A"
    stats = {
        x["session_id"]: x
        for x in rows(
            f"""SELECT c.session_id, min(c.time_s) AS best_s, median(c.time_s) AS median_s,
                       median(c.min_kmh) AS min_kmh, median(c.brake_point_m) AS brake_point_m, count(*) AS laps
                FROM corner_results c JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
                WHERE c.session_id IN ({inn}) AND lower(c.corner_id) = lower(?) AND l.kind = 'full' AND l.valid
                GROUP BY c.session_id""",
            [*ids, c.id],
        )
    }
    # each session's best lap (fastest valid full lap) through this corner: its own minimum speed, not
    # the session's median
    bests = {
        x["session_id"]: x
        for x in rows(
            f"""SELECT l.session_id, l.lap, c.time_s, c.min_kmh, c.brake_point_m
                FROM laps l JOIN corner_results c ON c.session_id = l.session_id AND c.lap = l.lap
                WHERE l.session_id IN ({inn}) AND lower(c.corner_id) = lower(?) AND l.kind = 'full' AND l.valid
                QUALIFY row_number() OVER (PARTITION BY l.session_id ORDER BY l.time_s, l.lap) = 1""",
            [*ids, c.id],
        )
    }
    notes: dict[str, list[dict[str, Any]]] = {}
    for n in rows(
        f"""SELECT session_id, text, status, reason FROM coaching_notes
            WHERE session_id IN ({inn}) AND lower(corner) = lower(?)
            QUALIFY row_number() OVER (PARTITION BY session_id ORDER BY ts) <= 5""",
        [*ids, c.id],
    ):
        notes.setdefault(n.pop("session_id"), []).append(n)
    out = []
    for sid in ids:
        x = stats.get(sid)
        if x is None or not x["laps"]:
            continue
        best = bests.get(sid, {})
        out.append(
            {
                "session_id": sid,
                "best_s": r(x["best_s"]),
                "median_s": r(x["median_s"]),
                "best_lap": best.get("lap"),
                "best_lap_corner_s": r(best.get("time_s")),
                "best_lap_min_speed_kmh": r(best.get("min_kmh"), 1),
                "best_lap_brake_point_m": r(best.get("brake_point_m"), 1),
                "min_speed_kmh": r(best.get("min_kmh"), 1),  # the best lap's (as the sentences say)
                "min_speed_median_kmh": r(x["min_kmh"], 1),
                "brake_point_m": r(x["brake_point_m"], 1),
                **_time_to_find(sid, c.id),
                "notes": notes.get(sid, []),
            }
        )
    med = [o["median_s"] for o in out if o["median_s"] is not None]
    trend = "not enough sessions"
    if len(med) >= 2:
        slope = float(np.polyfit(np.arange(len(med)), med, 1)[0])
        trend = "improving" if slope < -0.02 else ("regressing" if slope > 0.02 else "flat")
    return {
        "session_id": s["session_id"],
        "driver_id": s["driver_id"],
        "corner": c.short,
        "name": c.name,
        "sessions": out,
        "trend": trend,
        **history_scope(s, sess),
    }


def get_progress_report(session_id: str, n_sessions: int = 10) -> dict[str, Any]:
    """Progress up to this session at its track and car: best-lap trend, corners losing less or more time a lap, and plateau detection."""
    if not 1 <= n_sessions <= 50:
        raise ToolError("bad_argument", "n_sessions must be 1-50", "")
    s, sess = same_track(session_id, n_sessions, ("laps", "corner_analysis"))
    bests = [{"session_id": x["session_id"], "best_lap_s": r(x["best_lap_s"])} for x in sess]
    vals = [b["best_lap_s"] for b in bests if b["best_lap_s"] is not None]
    plateau = len(vals) >= 3 and (max(vals[-3:]) - min(vals[-3:])) / min(vals[-3:]) < 0.003
    # each corner's time lost a lap in each session (its analysis: the figure threads and debriefs give)
    corners: dict[str, list[tuple[int, float]]] = {}
    for i, x in enumerate(sess):
        for c in corner_summaries(session_analysis(x["session_id"])):
            corners.setdefault(c.corner, []).append((i, c.session_s / max(c.valid_laps, 1)))
    improving: list[dict[str, Any]] = []
    regressing: list[dict[str, Any]] = []
    for cid, pts in corners.items():
        if len(pts) < 2:
            continue
        slope = float(np.polyfit([p[0] for p in pts], [p[1] for p in pts], 1)[0])
        (improving if slope < -CORNER_TREND_S else regressing if slope > CORNER_TREND_S else []).append(
            {"corner": cid, "lost_per_lap_s": [r(p[1]) for p in pts], "change_per_session_s": r(slope)}
        )
    return {
        "session_id": s["session_id"],
        "driver_id": s["driver_id"],
        "sessions": bests,
        "best_at_track_s": min(vals) if vals else None,
        "trend_s_per_session": r(float(np.polyfit(range(len(vals)), vals, 1)[0])) if len(vals) >= 2 else None,
        "plateau": plateau,
        "improving_corners": improving,
        "regressing_corners": regressing,
        "labels": {"lost_per_lap_s": "time lost at the corner a lap (against your good laps), each session"},
        **history_scope(s, sess),
    }


def get_goal_targets(session_id: str) -> dict[str, Any]:
    """Lap-time goals from this session: personal best at this track and car, the achievable lap (the target), and the corners with most time to find."""
    s, sess = same_track(session_id, 20, ())  # the others' catalog rows only
    with_pb = [x for x in sess if x["best_lap_s"]]
    pb_row = min(with_pb, key=lambda x: x["best_lap_s"]) if with_pb else None
    pb = pb_row["best_lap_s"] if pb_row else None
    ach = session_achievable(s["session_id"])[2]
    achievable = ach.time_s if ach is not None else None
    # the next target: this session's achievable lap when it beats the personal best, else the best
    target = min(x for x in (pb, achievable) if x is not None) if (pb or achievable) else None
    lost = [x for x in corner_summaries(session_analysis(s["session_id"])) if x.laps]
    return {
        "session_id": s["session_id"],
        "driver_id": s["driver_id"],
        "personal_best_s": r(pb),
        "personal_best_session": pb_row["session_id"] if pb_row else None,
        "session_best_s": r(s["best_lap_s"]),
        "achievable_lap_s": r(achievable),
        "next_target_s": r(target),
        "labels": {
            "achievable_lap_s": "achievable lap: your best pieces joined where laps agree",
            "next_target_s": "the achievable lap when it beats your personal best, else your personal best",
            "time_to_find_s": LABELS["per_lap_s"],
        },
        "corner_targets": [
            {"corner": x.corner, "time_to_find_s": r(x.per_lap_s), "laps": x.laps, "cause": x.cause}
            for x in lost[:5]
        ],
        **history_scope(s, sess),
    }


def get_session_plan_context(session_id: str, n_laps: int = 10) -> dict[str, Any]:
    """Plan the next session's laps from this session: the corners with most time to find, what to work on, warm-up and cool-down laps."""
    if n_laps < 1 or n_laps > 60:
        raise ToolError("bad_argument", "n_laps must be between 1 and 60", "")
    goals = get_goal_targets(session_id)
    # what to work on: the session's opportunities (the debrief's focus, with their targets); never more
    # focus blocks than work laps
    opps = get_opportunities(goals["session_id"]).get("opportunities") or []
    focus = [f"{o['corner']}: {o['target']}" for o in opps if o.get("target")]
    idle = (
        PUSH
        if goals["corner_targets"] == [] and goals["session_best_s"] is not None
        else "steady laps to set a first reference"
    )
    blocks = plan_blocks(focus, n_laps, idle)
    s = session_row(goals["session_id"])
    pb = None
    if goals["personal_best_s"] is not None:
        pb = {
            "track": goals["track"],
            "car": goals["car"],
            "time_s": goals["personal_best_s"],
            "session_id": goals["personal_best_session"],
            "sessions": goals["sessions_compared"],
        }
    return {
        "session_id": goals["session_id"],
        "driver_id": goals["driver_id"],
        "track": goals["track"],
        "car": goals["car"],
        "session_date": str(s["started_at"])[:10] if s.get("started_at") else None,
        "n_laps": n_laps,
        "personal_best": pb,
        "personal_best_s": goals["personal_best_s"],
        "blocks": blocks,
    }

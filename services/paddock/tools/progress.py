"""Driver-level tools across sessions: corner history, progress, goals, session planning."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.tools.base import ToolError, find_corner, r, rows


def _sessions(driver_id: str, n: int) -> list[dict[str, Any]]:
    s = rows(
        "SELECT * FROM sessions WHERE driver_id = ? ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT ?",
        [driver_id, n],
    )
    if not s:
        drivers = [x["driver_id"] for x in rows("SELECT DISTINCT driver_id FROM sessions LIMIT 10")]
        raise ToolError("unknown_driver", f"no sessions for driver {driver_id!r}", f"drivers: {drivers}")
    return list(reversed(s))


def _grade(delta_s: float) -> str:
    return "A" if delta_s < 0.05 else "B" if delta_s < 0.15 else "C" if delta_s < 0.35 else "D"


def get_corner_history(driver_id: str, corner_name: str, n_sessions: int = 10) -> dict[str, Any]:
    """One corner across a driver's recent sessions: best and median corner time, minimum speed, brake point, grade, coaching notes and trend."""
    sess = _sessions(driver_id, n_sessions)
    c = find_corner(sess[-1]["track_id"], corner_name)
    out = []
    for s in sess:
        x = rows(
            """SELECT min(c.time_s) AS best_s, median(c.time_s) AS median_s, median(c.min_kmh) AS min_kmh,
                      median(c.brake_point_m) AS brake_point_m, count(*) AS laps
               FROM corner_results c JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
               WHERE c.session_id = ? AND c.corner_id = ? AND l.kind = 'full' AND l.valid""",
            [s["session_id"], c.id],
        )[0]
        if not x["laps"]:
            continue
        notes = rows(
            "SELECT text, status, reason FROM coaching_notes WHERE session_id = ? AND corner = ? LIMIT 5",
            [s["session_id"], c.id],
        )
        out.append(
            {
                "session_id": s["session_id"],
                "best_s": r(x["best_s"]),
                "median_s": r(x["median_s"]),
                "min_speed_kmh": r(x["min_kmh"], 1),
                "brake_point_m": r(x["brake_point_m"], 1),
                "grade": _grade((x["median_s"] or 0) - (x["best_s"] or 0)),
                "notes": notes,
            }
        )
    med = [o["median_s"] for o in out if o["median_s"] is not None]
    trend = "not enough sessions"
    if len(med) >= 2:
        slope = float(np.polyfit(np.arange(len(med)), med, 1)[0])
        trend = "improving" if slope < -0.02 else ("regressing" if slope > 0.02 else "flat")
    return {"driver_id": driver_id, "corner": c.short, "name": c.name, "sessions": out, "trend": trend}


def get_progress_report(driver_id: str, n_sessions: int = 10) -> dict[str, Any]:
    """Driver progress over sessions: best-lap trend, corners improving or regressing, and plateau detection."""
    sess = _sessions(driver_id, n_sessions)
    bests = [
        {"session_id": s["session_id"], "track": s["track_id"], "best_lap_s": r(s["best_lap_s"])}
        for s in sess
    ]
    vals = [b["best_lap_s"] for b in bests if b["best_lap_s"] is not None]
    plateau = len(vals) >= 3 and (max(vals[-3:]) - min(vals[-3:])) / min(vals[-3:]) < 0.003
    ids = [s["session_id"] for s in sess]
    per = rows(
        f"""SELECT c.corner_id, c.session_id, median(c.time_s) AS m FROM corner_results c
            JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
            WHERE c.session_id IN ({", ".join("?" * len(ids))}) AND l.kind = 'full' AND l.valid GROUP BY 1, 2""",
        ids,
    )
    order = {sid: i for i, sid in enumerate(ids)}
    corners: dict[str, list[tuple[int, float]]] = {}
    for p in per:
        corners.setdefault(p["corner_id"], []).append((order[p["session_id"]], p["m"]))
    improving: list[dict[str, Any]] = []
    regressing: list[dict[str, Any]] = []
    for cid, pts in corners.items():
        if len(pts) < 2:
            continue
        pts.sort()
        slope = float(np.polyfit([p[0] for p in pts], [p[1] for p in pts], 1)[0])
        (improving if slope < -0.02 else regressing if slope > 0.02 else []).append(
            {"corner": cid, "s_per_session": r(slope)}
        )
    return {
        "driver_id": driver_id,
        "sessions": bests,
        "best_ever_s": min(vals) if vals else None,
        "trend_s_per_session": r(float(np.polyfit(range(len(vals)), vals, 1)[0])) if len(vals) >= 2 else None,
        "plateau": plateau,
        "improving_corners": improving,
        "regressing_corners": regressing,
    }


def get_goal_targets(driver_id: str) -> dict[str, Any]:
    """Lap-time goals: personal best, theoretical best from best corners, a realistic next target and per-corner targets."""
    sess = _sessions(driver_id, 20)
    latest = sess[-1]
    pb = min((s["best_lap_s"] for s in sess if s["best_lap_s"]), default=None)
    corners = rows(
        """SELECT c.corner_id, min(c.time_s) AS best_s, median(c.time_s) AS median_s FROM corner_results c
           JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
           WHERE c.session_id = ? AND l.kind = 'full' AND l.valid GROUP BY 1""",
        [latest["session_id"]],
    )
    theo_gain = sum(max(0.0, (c["median_s"] or 0) - (c["best_s"] or 0)) for c in corners)
    target = pb - 0.5 * theo_gain if pb else None
    return {
        "driver_id": driver_id,
        "personal_best_s": r(pb),
        "theoretical_gain_s": r(theo_gain),
        "next_target_s": r(target),
        "corner_targets": sorted(
            (
                {"corner": c["corner_id"], "target_s": r(c["best_s"]), "typical_s": r(c["median_s"])}
                for c in corners
            ),
            key=lambda x: -((x["typical_s"] or 0) - (x["target_s"] or 0)),
        )[:5],
    }


def get_session_plan_context(driver_id: str, n_laps: int = 10) -> dict[str, Any]:
    """Plan the next session's laps: the corners with most time to find, what to work on, warm-up and cool-down laps."""
    if n_laps < 1 or n_laps > 60:
        raise ToolError("bad_argument", "n_laps must be between 1 and 60", "")
    goals = get_goal_targets(driver_id)
    focus = goals["corner_targets"][:3]
    warm = 1 if n_laps < 5 else 2
    work = max(0, n_laps - warm - 1)
    blocks = [{"laps": warm, "focus": "warm tyres and brakes, build to pace"}]
    for i, f in enumerate(focus):
        blocks.append(
            {
                "laps": max(1, work // max(1, len(focus)))
                if i < len(focus) - 1
                else work - (work // max(1, len(focus))) * (len(focus) - 1),
                "focus": f"{f['corner']}: aim for {f['target_s']} s (typical {f['typical_s']} s)",
            }
        )
    blocks.append({"laps": 1, "focus": "cool-down"})
    return {
        "driver_id": driver_id,
        "n_laps": n_laps,
        "personal_best_s": goals["personal_best_s"],
        "blocks": blocks,
    }

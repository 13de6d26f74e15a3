"""Lap tools: deltas between laps, race pace, per-corner variance, gold-lap comparison."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.tools.base import (
    ToolError,
    lap_arrays,
    r,
    rows,
    session_row,
    track_corners,
    valid_laps,
)
from services.paddock.tools.recorded import recorded
from shared.resample import line_to_line

STEP_M = 10.0


def _grid(
    a: dict[str, np.ndarray],
    top: float,
    trace: tuple[np.ndarray, np.ndarray] | None = None,
    scale: float = 1.0,
) -> dict[str, np.ndarray]:
    """A lap on a distance grid to ``top`` (inclusive). With ``trace`` (its line-to-line (distance,
    elapsed)) time runs from the line; ``scale`` maps the grid onto this lap's own distance."""
    d = np.maximum.accumulate(a["dist_m"]) + np.arange(len(a["dist_m"])) * 1e-6
    g = np.append(np.arange(0.0, top, STEP_M), top) if top > 0 else np.zeros(1)
    at = g * scale
    if trace is not None:
        td = trace[0] + np.arange(len(trace[0])) * 1e-6
        t = np.interp(at, td, trace[1])
    else:
        t = np.interp(at, d, a["t_s"] - a["t_s"][0])
    out = {"dist_m": g, "time_s": t}
    for c in ("speed_kmh", "throttle_pct", "brake_bar"):
        v = a.get(c)
        if v is not None and np.isfinite(v).sum() > 1:
            ok = np.isfinite(v)
            out[c] = np.interp(at, d[ok], v[ok])
    return out


def _trace(a: dict[str, np.ndarray], lap: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    return line_to_line(a["t_s"], a["dist_m"], a.get("speed_kmh"), lap["t_start_s"], lap["t_end_s"])


def _segments(delta: np.ndarray, g: np.ndarray, corners: list[Any]) -> list[dict[str, Any]]:
    """The lap cut into corners and the stretches between them: their deltas add up to the total
    (each is the difference of the rounded running delta at its ends)."""
    marks = {0.0, float(g[-1])}
    named: dict[float, str] = {}
    for c in corners:
        if 0 < c.start_m < g[-1]:
            marks.add(float(c.start_m))
            named[float(c.start_m)] = c.short
        if 0 < c.end_m < g[-1]:
            marks.add(float(c.end_m))
    cuts = sorted(marks)
    cum = [round(float(np.interp(x, g, delta)), 3) for x in cuts]
    out = []
    for k in range(len(cuts) - 1):
        out.append(
            {
                "from_m": round(cuts[k]),
                "to_m": round(cuts[k + 1]),
                "corner": named.get(cuts[k]),
                "delta_s": round(cum[k + 1] - cum[k], 3),
            }
        )
    return out


def _coast_pct(a: dict[str, np.ndarray]) -> float | None:
    thr, brk, spd = a.get("throttle_pct"), a.get("brake_bar"), a.get("speed_kmh")
    if thr is None or brk is None or spd is None:
        return None
    if not (np.isfinite(thr).any() and np.isfinite(brk).any()):  # no pedal recorded: unknown, not coasting
        return None
    m = (np.nan_to_num(thr) < 5) & (np.nan_to_num(brk) < 2) & (np.nan_to_num(spd) > 50)
    return float(m.mean() * 100)


def get_lap_delta(
    session_id: str, lap_a: int, lap_b: int, ref_session_id: str | None = None
) -> dict[str, Any]:
    """Compare two laps by distance: delta trace, time gained or lost per corner, speed and coasting. lap_a, the reference, may come from ref_session_id (another session here, a friend's too)."""
    s = session_row(session_id)
    sid = s["session_id"]
    ref = s if ref_session_id in (None, "", sid) else session_row(str(ref_session_id))
    rsid = ref["session_id"]
    if ref["track_id"] != s["track_id"]:
        raise ToolError(
            "other_track",
            f"session {rsid} was driven at {ref['track_id']}, not at {s['track_id']}",
            "choose a reference lap from a session at the same track",
        )
    ch = ("speed_kmh", "throttle_pct", "brake_bar")
    a, b = lap_arrays(rsid, lap_a, ch), lap_arrays(sid, lap_b, ch)
    rec = recorded(
        sid, {c: np.concatenate([a[c], b[c]]) for c in ch}, ("speed", "throttle", "brake_pressure")
    )
    lap_sql = "SELECT lap, time_s, t_start_s, t_end_s FROM laps WHERE session_id = ? AND lap = ?"
    ia, ib = rows(lap_sql, [rsid, lap_a]), rows(lap_sql, [sid, lap_b])
    times = {"a": ia[0]["time_s"] if ia else None, "b": ib[0]["time_s"] if ib else None}
    if ia and ib:  # line to line, each lap on its own distance: ends at the lap-time gap
        tra, trb = _trace(a, ia[0]), _trace(b, ib[0])
        top = float(tra[0][-1])
        ga, gb = _grid(a, top, tra), _grid(b, top, trb, float(trb[0][-1]) / top if top > 0 else 1.0)
    else:
        top = min(float(np.nanmax(a["dist_m"])), float(np.nanmax(b["dist_m"])))
        ga, gb = _grid(a, top), _grid(b, top)
    delta = gb["time_s"] - ga["time_s"]  # + = lap_b behind lap_a
    track_c = track_corners(s["track_id"])
    corners = []
    for c in track_c:
        if c.end_m > top:
            continue
        i0, i1 = int(c.start_m // STEP_M), min(int(c.end_m // STEP_M), len(delta) - 1)
        seg = slice(i0, i1 + 1)
        corners.append(
            {
                "corner": c.short,
                "name": c.name,
                "delta_s": r(delta[i1] - delta[i0]),
                "min_speed_a_kmh": r(np.min(ga["speed_kmh"][seg]), 1) if "speed_kmh" in ga else None,
                "min_speed_b_kmh": r(np.min(gb["speed_kmh"][seg]), 1) if "speed_kmh" in gb else None,
            }
        )
    corners.sort(key=lambda x: -(x["delta_s"] or 0))
    step = max(1, len(delta) // 100)
    return {
        "session_id": sid,
        "lap_a": lap_a,
        "lap_b": lap_b,
        **({} if rsid == sid else {"ref_session_id": rsid, "ref_driver_id": ref["driver_id"]}),
        "lap_a_time_s": r(times["a"]),
        "lap_b_time_s": r(times["b"]),
        "total_delta_s": r(delta[-1]),
        **rec.fields("speed", "throttle", "brake_pressure"),
        "corners": corners,
        "segments": _segments(delta, ga["dist_m"], track_c),
        "biggest_loss": corners[0] if corners else None,
        "coast_pct_a": r(_coast_pct(a), 1),
        "coast_pct_b": r(_coast_pct(b), 1),
        "top_speed_a_kmh": r(np.nanmax(a["speed_kmh"]), 1),
        "top_speed_b_kmh": r(np.nanmax(b["speed_kmh"]), 1),
        "delta_trace": {
            "dist_m": ga["dist_m"][::step].round(0).tolist(),
            "delta_s": delta[::step].round(3).tolist(),
        },
    }


def get_race_pace_model(session_id: str) -> dict[str, Any]:
    """Race pace model: qualifying pace (best lap), race pace (median), consistency, degradation in seconds per lap."""
    s = session_row(session_id)
    laps = valid_laps(s["session_id"])
    if len(laps) < 2:
        raise ToolError(
            "too_few_laps", "need at least two valid full laps", "drive more laps or import a longer session"
        )
    n = np.array([x["lap"] for x in laps], dtype=float)
    t = np.array([x["time_s"] for x in laps], dtype=float)
    slope = float(np.polyfit(n, t, 1)[0]) if len(t) >= 3 else None
    return {
        "session_id": s["session_id"],
        "laps": len(t),
        "quali_pace_s": r(t.min()),
        "race_pace_s": r(np.median(t)),
        "consistency_std_s": r(t.std()),
        "degradation_s_per_lap": r(slope, 4),
        "stint_projection_10_laps_s": r(np.median(t) * 10 + (slope or 0) * 45),
        "lap_times_s": [r(x) for x in t],
    }


def get_track_variance_map(session_id: str) -> dict[str, Any]:
    """Per-corner consistency map: coefficient of variation of corner time, minimum speed and brake point over valid laps."""
    s = session_row(session_id)
    sid = s["session_id"]
    res = rows(
        """SELECT c.corner_id, any_value(c.corner_name) AS name, count(*) AS laps,
                  stddev_samp(c.time_s) / avg(c.time_s) AS cv_time, stddev_samp(c.min_kmh) / avg(c.min_kmh) AS cv_min_speed,
                  stddev_samp(c.brake_point_m) AS brake_point_std_m, avg(c.time_s) AS mean_time_s
           FROM corner_results c JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
           WHERE c.session_id = ? AND l.kind = 'full' AND l.valid GROUP BY 1 ORDER BY cv_time DESC NULLS LAST""",
        [sid],
    )
    corners = [
        {
            "corner": x["corner_id"],
            "name": x["name"],
            "laps": x["laps"],
            # one lap has no spread: None, not 0 %
            "cv_time_pct": r(x["cv_time"] * 100, 2) if x["cv_time"] is not None else None,
            "cv_min_speed_pct": r(x["cv_min_speed"] * 100, 2) if x["cv_min_speed"] is not None else None,
            "brake_point_std_m": r(x["brake_point_std_m"], 1),
            "mean_time_s": r(x["mean_time_s"]),
        }
        for x in res
    ]
    return {
        "session_id": sid,
        "corners": corners,
        "least_consistent": corners[0]["corner"] if corners else None,
        "most_consistent": corners[-1]["corner"] if corners else None,
    }


def get_gold_lap_comparison(session_id: str) -> dict[str, Any]:
    """Compare the session's best lap with the saved gold reference lap corner by corner: speed gaps and lap-time leverage."""
    from services.paddock.lake import get_lake
    from shared.store.gold import load_gold_lap

    s = session_row(session_id)
    gold = load_gold_lap(get_lake().settings, s["track_id"] or "", s["driver_id"]) if s["track_id"] else None
    if gold is None:
        return {
            "available": False,
            "reason": f"no gold lap saved for {s['driver_id']} at {s['track_id']}",
            "hint": "pitwall gold save SESSION LAP",
        }
    trace, meta = gold
    laps = valid_laps(s["session_id"])
    if not laps:
        raise ToolError("too_few_laps", "no valid lap in this session", "")
    best = min(laps, key=lambda x: x["time_s"])
    a = lap_arrays(s["session_id"], best["lap"], ("speed_kmh",))
    g = _grid(
        a, float(min(np.nanmax(a["dist_m"]), trace["dist_m"][-1])), _trace(a, best)
    )  # both from the line
    gt = np.interp(g["dist_m"], trace["dist_m"], trace["time_s"])
    gs = np.interp(g["dist_m"], trace["dist_m"], trace["speed_kmh"])
    delta = g["time_s"] - gt
    out = []
    for c in track_corners(s["track_id"]):
        i0, i1 = int(c.start_m // STEP_M), min(int(c.end_m // STEP_M), len(delta) - 1)
        if i0 >= len(delta):
            continue
        seg = slice(i0, i1 + 1)
        out.append(
            {
                "corner": c.short,
                "name": c.name,
                "time_gap_s": r(delta[i1] - delta[i0]),
                "min_speed_gap_kmh": r(np.min(g["speed_kmh"][seg]) - np.min(gs[seg]), 1),
                "leverage": c.leverage,
                "weighted_gap_s": r((delta[i1] - delta[i0]) * (1 + c.leverage)),
            }
        )
    out.sort(key=lambda x: -(x["weighted_gap_s"] or 0))
    return {
        "available": True,
        "session_id": s["session_id"],
        "best_lap": best["lap"],
        "best_lap_s": r(best["time_s"]),
        "gold": meta,
        "total_gap_s": r(delta[-1]),
        "corners": out,
    }

"""The achievable lap (pieces of laps actually driven, joined where they agree) and consistency per
corner (spread of brake point and minimum speed, and its trend over the driver's sessions here)."""

from __future__ import annotations

from typing import Any

from services.paddock.tools.base import find_corner, r, rows, session_arrays, session_row, valid_laps
from services.paddock.tools.history import same_track
from services.paddock.tools.recorded import not_recorded_text, session_recorded
from shared import achievable as ac
from shared.achievable import Achievable, achievable_lap
from shared.consistency import MIN_LAPS, brake_source, spread, trend
from shared.display import corner_short, lap_time

TOLERANCES = {
    "speed_kmh": ac.SPEED_TOL_KMH,
    "heading_deg": ac.HEADING_TOL_DEG,
    "lateral_offset_m": ac.OFFSET_TOL_M,
}


def session_achievable(session_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], Achievable | None]:
    """(session row, corner zones, its achievable lap or None without a valid full lap)."""
    s = session_row(session_id)
    sid = s["session_id"]
    corners = rows(
        """SELECT corner_id, any_value(start_m) AS start_m, any_value(end_m) AS end_m
           FROM corner_results WHERE session_id = ? GROUP BY 1 ORDER BY 2""",
        [sid],
    )
    laps = valid_laps(sid)
    if not laps:
        return s, corners, None
    wide = session_arrays(sid, ("speed_kmh", "lat", "lon"))
    return s, corners, achievable_lap(wide, laps, corners)


def _gate_name(corners: list[dict[str, Any]], at_m: float) -> str | None:
    names = [f"{corner_short(c['corner_id'])} entry" for c in corners if abs(c["start_m"] - at_m) < 0.5]
    return " / ".join(names) or None


def get_achievable_lap(session_id: str) -> dict[str, Any]:
    """Achievable optimal lap: this session's valid laps joined only where speed, heading and line agree; each join's mismatch; beside the best lap and theoretical best."""
    s, corners, a = session_achievable(session_id)
    base = {"session_id": s["session_id"], "track": s["track_id"], "car": s["car_id"]}
    if a is None:
        why = "no valid full lap: out, in and invalid laps never contribute"
        if valid_laps(s["session_id"]):
            why = "the best lap has no telemetry in the lake to cut into pieces"
        return {**base, "available": False, "reason": why}
    gates = len(a.stations_m) - 2
    note = None
    if gates and not a.gates_checked:
        note = not_recorded_text(
            ["GPS position or speed at the corner gates"],
            so="no join can be checked and the achievable lap is the best lap",
        )
    elif not gates:
        note = "This session has no corner zones to cut the lap at: the achievable lap is the best lap."
    return {
        **base,
        "available": True,
        "valid_laps": len(a.laps),
        "achievable": lap_time(a.time_s),
        "achievable_s": r(a.time_s),
        "best_lap": a.best_lap,
        "best_lap_time": lap_time(a.best_lap_s),
        "best_lap_s": r(a.best_lap_s),
        "theoretical_best": lap_time(a.theoretical_s),
        "theoretical_best_s": r(a.theoretical_s),
        "gain_vs_best_s": r(a.best_lap_s - a.time_s),
        "segments": [
            {"lap": p.lap, "from_m": r(p.from_m, 1), "to_m": r(p.to_m, 1), "time_s": r(p.time_s)}
            for p in a.pieces
        ],
        "joins": [
            {
                "at_m": r(j.at_m, 1),
                "where": _gate_name(corners, j.at_m),
                "from_lap": j.from_lap,
                "to_lap": j.to_lap,
                "d_speed_kmh": r(j.d_speed_kmh, 2),
                "d_heading_deg": r(j.d_heading_deg, 2),
                "d_offset_m": r(j.d_offset_m, 2),
                "gate": {"lat": r(j.gate[0], 7), "lon": r(j.gate[1], 7), "heading_deg": r(j.gate[2], 2)},
            }
            for j in a.joins
        ],
        "tolerances": TOLERANCES,
        "gates": gates,
        "gates_checked": a.gates_checked,
        "method": (
            "The lap is cut at every corner's entry (a gate across the best lap's line): each piece is a "
            "corner and the run out of it. The next piece may come from another lap only where both laps "
            "crossed that gate within the tolerances. Theoretical best: each piece's best time added up."
        ),
        "not_recorded": note,
    }


def _corner_rows(sid: str) -> list[dict[str, Any]]:
    return rows(
        """SELECT c.corner_id, any_value(c.corner_name) AS name, min(c.start_m) AS start_m,
                  list(c.brake_point_m) AS brake, list(c.min_kmh) AS vmin
           FROM corner_results c JOIN laps l ON l.session_id = c.session_id AND l.lap = c.lap
           WHERE c.session_id = ? AND l.kind = 'full' AND l.valid GROUP BY 1 ORDER BY 3""",
        [sid],
    )


def _brake_source_of(sid: str, current: bool) -> str | None:
    if current:  # the quality report and the telemetry both say what was recorded
        rec = session_recorded(sid, ("brake_pressure", "g_long"))
        return brake_source(rec.has("brake_pressure"), rec.has("g_long"))
    got = rows(
        "SELECT count(brake_bar) > 0 AS p, count(g_long) > 0 AS g FROM telemetry WHERE session_id = ?", [sid]
    )[0]
    return brake_source(bool(got["p"]), bool(got["g"]))


def _figs(sp: dict[str, Any], unit: str, nd: int) -> dict[str, Any]:
    return {
        f"median_{unit}": r(sp["median"], nd),
        f"iqr_{unit}": r(sp["iqr"], nd),
        f"sd_{unit}": r(sp["sd"], nd),
    }


def get_corner_consistency(session_id: str, corner: str | None = None) -> dict[str, Any]:
    """Consistency per corner over valid laps: spread (IQR, SD) of brake point in metres and minimum speed in km/h, and its trend against the driver's earlier sessions here."""
    s, sess = same_track(session_id, 10, ("laps", "corner_results"))
    sid = s["session_id"]
    want = find_corner(s["track_id"], corner).id if corner else None
    per: dict[str, list[dict[str, Any]]] = {}
    names: dict[str, str] = {}
    sources: dict[str, str | None] = {}
    for x in sess:
        src = _brake_source_of(x["session_id"], x["session_id"] == sid)
        sources[x["session_id"]] = src
        for c in _corner_rows(x["session_id"]):
            cid = str(c["corner_id"]).lower()
            if want is not None and cid != want:
                continue
            names.setdefault(cid, c["name"])
            brake = spread(c["brake"]) if src else None
            per.setdefault(cid, []).append(
                {
                    "session_id": x["session_id"],
                    "date": str(x.get("started_at") or "")[:10] or None,
                    "brake": brake,
                    "vmin": spread(c["vmin"]),
                }  # fmt: skip
            )
    out = []
    src_now = sources.get(sid)
    for cid, hist in per.items():
        if hist[-1]["session_id"] != sid:  # the corner was not driven in this session
            continue
        now = hist[-1]
        b, v = now["brake"], now["vmin"]
        row: dict[str, Any] = {"corner": corner_short(cid), "name": names[cid], "laps": v["laps"]}
        if b is None:
            row["brake_point"] = "not recorded: no brake pressure or longitudinal g in this session"
        elif not b["laps"]:
            row["brake_point"] = "no braking zone found on any lap (taken without braking)"
        else:
            row["brake_point"] = {**_figs(b, "m", 1), "laps": b["laps"]}
            if b["laps"] < MIN_LAPS:
                row["brake_point"]["note"] = f"braked on only {b['laps']} of {v['laps']} laps: no spread"
        row["min_speed"] = _figs(v, "kmh", 1)
        row["history"] = [
            {
                "session_id": h["session_id"],
                "date": h["date"],
                "laps": h["vmin"]["laps"],
                "brake_point_iqr_m": r(h["brake"]["iqr"], 1) if h["brake"] else None,
                "min_speed_iqr_kmh": r(h["vmin"]["iqr"], 1),
            }
            for h in hist
        ]
        row["trend"] = {
            "brake_point": trend([h["brake"]["iqr"] if h["brake"] else None for h in hist], "brake_point_m"),
            "min_speed": trend([h["vmin"]["iqr"] for h in hist], "min_kmh"),
        }
        out.append(row)
    if want is not None and not out:
        return {
            "session_id": sid,
            "corner": corner_short(want),
            "available": False,
            "reason": "no valid lap of this session has a result at this corner",
        }
    return {
        "session_id": sid,
        "track": s["track_id"],
        "car": s["car_id"],
        "available": bool(out),
        "reason": None if out else "no valid full lap with corner results in this session",
        "brake_point_source": src_now,
        "not_recorded": None
        if src_now
        else not_recorded_text(["brake pressure and longitudinal g"], so="no brake points"),
        "min_laps_for_a_spread": MIN_LAPS,
        "sessions_compared": len(sess),
        "trend_note": None
        if len(sess) > 1
        else "no earlier session of this driver here in this car: no trend yet",
        "trend_rule": "this session's IQR against the median IQR of the earlier sessions: under 20 % "
        "(and under 2 m / 0.5 km/h) of change is unchanged",
        "corners": out,
    }

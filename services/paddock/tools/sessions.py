"""Session tools: raw SQL, highlights, setup indicators, incident moments."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.lake import get_lake
from services.paddock.lake_scope import ScopeNeeded
from services.paddock.tools.base import corner_of, r, rows, runs, session_arrays, session_row, valid_laps
from services.paddock.tools.opportunities import get_opportunities
from services.paddock.tools.optimal import session_achievable
from services.paddock.tools.recorded import (
    EVENT_MEASURES,
    event_kinds,
    event_measures,
    recorded,
    session_recorded,
)
from services.paddock.tools.sql_guard import run_query
from shared.event_conditions import INCIDENT_KINDS
from shared.profiles.car import load_car

INCIDENT_G_OVER_GRIP = 1.4  # combined g this far beyond the car's lateral grip figure is a moment


def query_pitwall_db(sql: str) -> dict[str, Any]:
    """Run one read-only SELECT over the lake tables sessions, laps, telemetry, corner_results, coaching_notes, driver_events, telemetry_signals (every logger channel by name), signal_registry; at most 500 rows."""
    try:
        cur = get_lake().sql_cursor(sql if isinstance(sql, str) else "")
    except ScopeNeeded as exc:
        return {
            "error": {"code": "scope_needed", "message": str(exc), "hint": "add WHERE session_id = '...'"}
        }
    try:
        return run_query(cur, sql)
    finally:
        cur.close()


def get_session_highlights(session_id: str) -> dict[str, Any]:
    """Session highlights: best lap, achievable lap (the target), theoretical best, consistency, the corners with most time to find, event counts."""
    s = session_row(session_id)
    sid = s["session_id"]
    laps = valid_laps(sid)
    times = [x["time_s"] for x in laps]
    best = min(laps, key=lambda x: x["time_s"]) if laps else None
    slowest = max(laps, key=lambda x: x["time_s"]) if len(laps) > 1 else None
    # where the time is: the session analysis' top corners, the same figures as the opportunities
    opp = get_opportunities(sid)
    gain = [
        {k: o[k] for k in ("corner", "corner_id", "name", "time_to_find_s", "session_s", "laps", "cause")}
        for o in opp["opportunities"]
    ]
    # one theoretical best everywhere: the achievable lap's pieces, each one's best time added up
    ach = session_achievable(sid)[2] if laps else None
    events = rows(
        "SELECT kind, count(*) AS n FROM driver_events WHERE session_id = ? GROUP BY 1 ORDER BY 2 DESC", [sid]
    )
    rec = session_recorded(sid, event_measures())
    can, cannot = event_kinds(rec)
    notes = rows("SELECT status, count(*) AS n FROM coaching_notes WHERE session_id = ? GROUP BY 1", [sid])
    return {
        "session_id": sid,
        "track": s["track_id"],
        "car": s["car_id"],
        "valid_laps": len(laps),
        "best_lap": best["lap"] if best else None,
        "best_lap_s": r(best["time_s"]) if best else None,
        "slowest_lap": slowest["lap"] if slowest else None,
        "slowest_lap_s": r(slowest["time_s"]) if slowest else None,
        "theoretical_best_s": r(ach.theoretical_s) if ach else None,
        "achievable_lap_s": r(ach.time_s) if ach else None,
        "consistency_std_s": r(np.std(times)) if len(times) > 1 else None,
        "biggest_opportunities": gain,
        "opportunities_reason": opp.get("reason"),
        "labels": {
            **opp.get("labels", {}),
            "achievable_lap_s": "achievable lap: your best pieces joined where laps agree (the target)",
            "theoretical_best_s": "theoretical best: every best piece added up (never driven)",
        },
        # an event kind's count, 0 included, only when the session recorded what detects it
        "events": {**{k: 0 for k in can}, **{e["kind"]: e["n"] for e in events if e["kind"] not in cannot}},
        "events_not_recorded": cannot,
        **rec.fields(*event_measures()),
        "cues": {n["status"]: n["n"] for n in notes},
    }


def get_setup_indicators(session_id: str) -> dict[str, Any]:
    """Car setup indicators from telemetry: understeer gradient proxy, entry versus exit balance, top speed, braking stability, rev use."""
    s = session_row(session_id)
    a = session_arrays(s["session_id"], ("speed_kmh", "steer_deg", "g_lat", "brake_bar", "rpm", "g_long"))
    measures = ("speed", "steering", "g_lat", "g_long", "rpm")
    rec = recorded(s["session_id"], a, measures)
    spd, st, gl = a["speed_kmh"], a["steer_deg"], a["g_lat"]
    m = np.isfinite(st) & np.isfinite(gl) & (np.abs(gl) > 0.5) & (spd > 40)
    grad = float(np.median(np.abs(st[m]) / np.abs(gl[m]))) if m.sum() > 20 else None
    lo = m & (spd < 100)
    hi = m & (spd >= 100)
    g_lo = float(np.median(np.abs(st[lo]) / np.abs(gl[lo]))) if lo.sum() > 20 else None
    g_hi = float(np.median(np.abs(st[hi]) / np.abs(gl[hi]))) if hi.sum() > 20 else None
    verdict = "not enough cornering data"
    if not (rec.has("steering") and rec.has("g_lat") and rec.has("speed")):
        verdict = "not recorded: the balance needs steering angle, lateral g and speed"
    if g_lo and g_hi:
        ratio = g_hi / g_lo
        verdict = (
            "more understeer at high speed"
            if ratio > 1.15
            else ("more oversteer at high speed" if ratio < 0.85 else "balanced across speeds")
        )
    rpm = a.get("rpm")
    glong = a["g_long"]
    return {
        "session_id": s["session_id"],
        **rec.fields(*measures),
        "steer_per_g_deg": r(grad, 1),
        "steer_per_g_low_speed_deg": r(g_lo, 1),
        "steer_per_g_high_speed_deg": r(g_hi, 1),
        "balance_verdict": verdict,
        "top_speed_kmh": r(np.nanmax(spd), 1) if rec.has("speed") else None,
        "max_brake_decel_g": r(-np.nanmin(glong), 2) if np.isfinite(glong).any() else None,
        "max_rpm": r(np.nanmax(rpm), 0) if rpm is not None and np.isfinite(rpm).any() else None,
    }


def get_incident_moments(
    session_id: str, combo_g_threshold: float | None = None, steer_spike_threshold: float = 400.0
) -> dict[str, Any]:
    """Find scary moments: lockups, wheelspin, ABS or DSC interventions first, then combined-g spikes beyond the car's grip and steering-rate spikes in deg/s."""
    s = session_row(session_id)
    sid = s["session_id"]
    if combo_g_threshold is None:  # beyond what the car corners at: ordinary cornering is not a moment
        try:
            combo_g_threshold = round(
                INCIDENT_G_OVER_GRIP * load_car(s.get("car_id") or "generic").vehicle.max_g_lat, 2
            )
        except KeyError:
            combo_g_threshold = 1.6
    a = session_arrays(sid, ("g_lat", "g_long", "steer_deg"))
    measures = tuple(
        dict.fromkeys(
            ("g_lat", "g_long", "steering", *(m for k in INCIDENT_KINDS for m in EVENT_MEASURES[k]))
        )
    )
    rec = session_recorded(sid, measures)
    cannot = event_kinds(rec)[1]
    t = a["t_s"]
    out: list[dict[str, Any]] = []
    # combined g needs both axes: one axis alone is not the combined load
    g_ok = rec.has("g_lat") and rec.has("g_long")
    combo = np.hypot(np.nan_to_num(a["g_lat"]), np.nan_to_num(a["g_long"]))
    for i0, i1 in runs(combo > combo_g_threshold) if g_ok else []:
        k = i0 + int(np.argmax(combo[i0:i1]))
        out.append(
            {
                "t_s": r(t[k], 2),
                "lap": int(a["lap"][k]),
                "dist_m": r(a["dist_m"][k], 0),
                "kind": "combo_g",
                "value": r(combo[k], 2),
                "corner": corner_of(s["track_id"], float(a["dist_m"][k])),
            }
        )
    st = a["steer_deg"]
    if np.isfinite(st).sum() > 10:
        rate = np.abs(np.gradient(np.nan_to_num(st), t))
        for i0, i1 in runs(rate > steer_spike_threshold):
            k = i0 + int(np.argmax(rate[i0:i1]))
            out.append(
                {
                    "t_s": r(t[k], 2),
                    "lap": int(a["lap"][k]),
                    "dist_m": r(a["dist_m"][k], 0),
                    "kind": "steer_spike",
                    "value": r(rate[k], 0),
                    "corner": corner_of(s["track_id"], float(a["dist_m"][k])),
                }
            )
    kinds = ", ".join(f"'{k}'" for k in INCIDENT_KINDS)
    for e in rows(
        f"SELECT t_s, lap, dist_m, corner, kind, wheel FROM driver_events WHERE session_id = ? AND kind IN ({kinds})",
        [sid],
    ):
        out.append({**e, "t_s": r(e["t_s"], 2), "dist_m": r(e["dist_m"], 0), "value": None})
    # incidents (the driver's and the car's interventions) before g and steering spikes, each in time order
    out.sort(key=lambda x: (x["kind"] not in INCIDENT_KINDS, x["t_s"] or 0))
    # what this session cannot show: not "no lockups" but "lockups not recorded"
    blind = [k for k in INCIDENT_KINDS if k in cannot]
    blind += ([] if g_ok else ["combo_g"]) + ([] if rec.has("steering") else ["steer_spike"])
    return {
        "session_id": sid,
        **rec.fields(*measures),
        "kinds_not_recorded": blind,
        "thresholds": {"combo_g": combo_g_threshold, "steer_rate_dps": steer_spike_threshold},
        "count": None if len(blind) == len(INCIDENT_KINDS) + 2 else len(out),
        "moments": out[:100],
    }

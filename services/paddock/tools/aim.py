"""AiM-aware tools: tyres, engine health, traction, input smoothness, safety (the balance: ``balance``)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from services.paddock.tools.alarms import FLAG_MEASURES, flag_report
from services.paddock.tools.base import (
    ToolError,
    corner_of,
    r,
    rows,
    runs,
    session_arrays,
    session_row,
)
from services.paddock.tools.recorded import MEASURES, recorded
from shared import event_conditions as ev
from shared.event_detect import slip_runs
from shared.profiles.car import load_car

WHEELS = ev.WHEELS
BRAKE_SWITCH_CHECK_BAR = 20.0  # brake pressure that must have lit the brake-light switch


def get_tire_thermal_window(session_id: str) -> dict[str, Any]:
    """Tyre pressures and temperatures per wheel from TPMS: cold versus hot, operating window, and alarms."""
    s = session_row(session_id)
    cols = tuple(
        f"tpms_{k}_{w}{u}" for w in WHEELS for k, u in (("press", "_bar"), ("temp", "_c"), ("alarm", ""))
    )
    a = session_arrays(s["session_id"], cols)
    rec = recorded(s["session_id"], a, ("tpms", "tpms_temp", "tpms_alarm"))
    out = {}
    for w in WHEELS:
        p, t, al = a[f"tpms_press_{w}_bar"], a[f"tpms_temp_{w}_c"], a[f"tpms_alarm_{w}"]
        if not np.isfinite(p).any():
            continue
        cold = p[np.isfinite(p)][: max(1, int(np.isfinite(p).sum() * 0.05))]
        hot = float(np.nanpercentile(p, 95))
        out[w] = {
            "cold_bar": r(np.mean(cold), 2),
            "hot_bar": r(hot, 2),
            "cold_to_hot_bar": r(hot - np.mean(cold), 2),
            "max_temp_c": r(np.nanmax(t), 1) if np.isfinite(t).any() else None,
            "alarm_s": r(float(np.sum(np.nan_to_num(al) > 0)) * float(np.median(np.diff(a["t_s"]))), 1)
            if np.isfinite(al).any()
            else None,  # no alarm channel: not "0 s of alarm"
            "in_window": bool(1.9 <= hot <= 2.6),
        }
    if not out or not rec.has("tpms"):
        return {
            "available": False,
            "session_id": s["session_id"],
            **rec.fields("tpms"),
            "reason": "no TPMS channels in this session",
        }
    alarms = [w for w, v in out.items() if v["alarm_s"]] if rec.has("tpms_alarm") else None
    return {
        "available": True,
        "session_id": s["session_id"],
        **rec.fields("tpms", "tpms_temp", "tpms_alarm"),
        "wheels": out,
        "alarms": alarms,
        "window_bar": [1.9, 2.6],
    }


def get_engine_health_timeline(session_id: str) -> dict[str, Any]:
    """Engine health per lap: oil-pressure floor under load, coolant and oil temperature drift, fuel pressure under braking."""
    s = session_row(session_id)
    a = session_arrays(
        s["session_id"],
        ("oil_press_bar", "rpm", "throttle_pct", "water_temp_c", "oil_temp_c", "fuel_press_bar", "brake_bar"),
    )
    th = _car_thresholds(s.get("car_id"))
    measures = ("oil_pressure", "rpm", "throttle", "coolant", "oil_temp", "fuel_pressure", "brake_pressure")
    rec = recorded(s["session_id"], a, measures)
    # "under load" needs rpm and throttle; "under braking" needs brake pressure
    oil_ok = rec.has("oil_pressure") and rec.has("rpm") and rec.has("throttle")
    fuel_ok = rec.has("fuel_pressure") and rec.has("brake_pressure")
    load_all = (
        (np.nan_to_num(a["rpm"]) > th["oil_rpm_min"])
        & (np.nan_to_num(a["throttle_pct"]) > th["oil_throttle_min_pct"])
        & np.isfinite(a["oil_press_bar"])
    )
    brake_all = (np.nan_to_num(a["brake_bar"]) > 20) & np.isfinite(a["fuel_press_bar"])
    oil, fuel, water_c, oil_c = a["oil_press_bar"], a["fuel_press_bar"], a["water_temp_c"], a["oil_temp_c"]
    bounds = np.flatnonzero(np.diff(a["lap"])) + 1  # rows are in time order, so each lap is one slice
    out = []
    for sl in (slice(i, j) for i, j in zip(np.r_[0, bounds], np.r_[bounds, len(a["lap"])], strict=True)):
        if sl.stop <= sl.start:
            continue
        load, braking, w, o = load_all[sl], brake_all[sl], water_c[sl], oil_c[sl]
        out.append(
            {
                "lap": int(a["lap"][sl.start]),
                "oil_floor_under_load_bar": r(np.min(oil[sl][load]), 2) if load.any() else None,
                "water_max_c": r(np.nanmax(w), 1) if np.isfinite(w).any() else None,
                "oil_temp_max_c": r(np.nanmax(o), 1) if np.isfinite(o).any() else None,
                "fuel_press_min_braking_bar": r(np.min(fuel[sl][braking]), 2) if braking.any() else None,
            }
        )
    low = (
        [
            x["lap"]
            for x in out
            if x["oil_floor_under_load_bar"] is not None
            and x["oil_floor_under_load_bar"] < th["oil_press_min_bar"]
        ]
        if oil_ok
        else None  # not measured: not "no lap with low oil pressure"
    )
    hot = (
        [x["lap"] for x in out if x["water_max_c"] is not None and ev.is_coolant_hot(x["water_max_c"], th)]
        if rec.has("coolant")
        else None
    )
    water = [x["water_max_c"] for x in out if x["water_max_c"] is not None]
    return {
        "session_id": s["session_id"],
        **rec.fields(*measures),
        "oil_pressure_under_load_recorded": oil_ok,
        "fuel_pressure_under_braking_recorded": fuel_ok,
        "coolant_recorded": rec.has("coolant"),
        "laps": out,
        "oil_pressure_low_laps": low,
        "coolant_hot_laps": hot,
        "coolant_drift_c": r(water[-1] - water[0], 1) if len(water) > 1 else None,
        "note": "sentinel readings (no reading) are stored as NULL and ignored",
    }


def _car_thresholds(car_id: str | None) -> dict[str, float]:
    """The event threshold table with the session's car-profile overrides (shared.event_conditions)."""
    try:
        return ev.event_thresholds(load_car(car_id or "generic").thresholds)
    except KeyError:  # a car profile that is no longer installed: the defaults
        return ev.event_thresholds(None)


def get_traction_events(session_id: str, slip_threshold_kmh: float | None = None) -> dict[str, Any]:
    """Wheelspin and lockups from wheel speeds versus vehicle speed, attributed to lap, distance and corner."""
    if slip_threshold_kmh is not None and not 0 < slip_threshold_kmh <= 100:
        raise ToolError("bad_argument", "slip_threshold_kmh must be in (0, 100]", "")
    s = session_row(session_id)
    th = _car_thresholds(s.get("car_id"))
    if slip_threshold_kmh is not None:
        th["slip_lockup_kmh"] = th["slip_spin_kmh"] = float(slip_threshold_kmh)
    cols = ("speed_kmh", "brake_bar", "throttle_pct", "abs_active", *(f"wheel_speed_{w}_kmh" for w in WHEELS))
    a = session_arrays(s["session_id"], cols)  # with the ABS flag: a wheel the ABS holds is no lockup
    measures = ("wheel_speeds", "speed", "brake_pressure", "throttle")
    rec = recorded(s["session_id"], a, (*measures, "rear_wheel_speeds"))
    # a lockup is a wheel slower than the car under braking (brake pressure), wheelspin a driven wheel
    # faster than the car on throttle: without those channels the count is unknown, not 0
    can = {
        ev.LOCKUP: rec.has("wheel_speeds") and rec.has("speed") and rec.has("brake_pressure"),
        ev.WHEELSPIN: rec.has("rear_wheel_speeds") and rec.has("speed") and rec.has("throttle"),
    }
    t = a["t_s"]
    out = [
        {
            "kind": sr.kind,
            "wheel": sr.wheel,
            "lap": int(a["lap"][sr.start]),
            "t_s": r(t[sr.start], 2),
            "dist_m": r(a["dist_m"][sr.start], 0),
            "corner": corner_of(s["track_id"], float(a["dist_m"][sr.start])),
            "duration_s": r(t[sr.end - 1] - t[sr.start], 2),
            "max_slip_kmh": sr.max_slip_kmh,
        }
        for sr in slip_runs(a, th)
        if can[sr.kind]
    ]
    out.sort(key=lambda x: x["t_s"])
    known = any(can.values())
    return {
        "session_id": s["session_id"],
        **rec.fields(*measures),
        "slip_threshold_kmh": {"lockup": th["slip_lockup_kmh"], "wheelspin": th["slip_spin_kmh"]},
        # None, not 0, for what the session cannot show
        "counts": {k: sum(1 for e in out if e["kind"] == k) if ok else None for k, ok in can.items()},
        "count": len(out) if known else None,
        "events": out if known else None,
    }


def get_input_smoothness(session_id: str) -> dict[str, Any]:
    """Driver input smoothness: steering oscillation, throttle modulation, brake release, and a 0-100 score with a verdict."""
    s = session_row(session_id)
    a = session_arrays(s["session_id"], ("steer_deg", "throttle_pct", "brake_bar", "speed_kmh"))
    t = a["t_s"]
    if len(t) < 50:
        raise ToolError("too_few_samples", "not enough telemetry", "")
    dt = float(np.median(np.diff(t)))
    k = max(1, int(0.25 / dt))
    measures = ("steering", "throttle", "brake_pressure")
    rec = recorded(s["session_id"], a, measures)
    out: dict[str, Any] = {"session_id": s["session_id"], **rec.fields(*measures)}
    if not any(rec.has(m) for m in measures):  # no input recorded: no score, not a perfect 100
        return {**out, "score": None, "verdict": "not recorded"}
    score = 100.0
    st = a["steer_deg"]
    if np.isfinite(st).sum() > 50:
        sm = np.convolve(np.nan_to_num(st), np.ones(k) / k, mode="same")
        rate = np.diff(sm) / dt
        sig = np.sign(rate[np.abs(rate) > 30])
        km = max(float(np.nanmax(a["dist_m"])) / 1000 * len(np.unique(a["lap"])), 0.1)
        osc = float(np.sum(sig[1:] != sig[:-1])) / km
        out["steering_reversals_per_km"] = r(osc, 1)
        score -= min(30.0, osc * 1.5)
    thr = a["throttle_pct"]
    if np.isfinite(thr).sum() > 50:
        mod = float(np.std(np.diff(np.nan_to_num(thr)) / dt))
        out["throttle_modulation_pct_per_s"] = r(mod, 1)
        score -= min(30.0, mod / 20)
    brk = a["brake_bar"]
    if np.isfinite(brk).sum() > 50:
        d = np.diff(np.nan_to_num(brk)) / dt
        rel = d[d < -5]
        out["brake_release_bar_per_s"] = r(-np.median(rel), 1) if len(rel) else None
        if len(rel):
            score -= min(20.0, max(0.0, (-np.median(rel) - 300) / 30))
    score = max(0.0, min(100.0, score))
    out["score"] = r(score, 0)
    out["score_from"] = [m for m in measures if rec.has(m)]  # the inputs the score judges
    out["verdict"] = "smooth" if score >= 80 else "mostly smooth" if score >= 60 else "busy hands and feet"
    return out


def get_safety_events(session_id: str) -> dict[str, Any]:
    """Safety timeline: ABS and DSC interventions, engine light, TPMS and logger alarms (timed, by lap and corner), brake switch counts and safety cues spoken."""
    s = session_row(session_id)
    flag_cols = (c for m in FLAG_MEASURES.values() for c in MEASURES[m].channels)
    a = session_arrays(s["session_id"], ("brake_switch", "brake_bar", *flag_cols))
    rec = recorded(s["session_id"], a, (*FLAG_MEASURES.values(), "brake_switch"))
    flags = flag_report(s["session_id"])  # the one event detector's stored flag and alarm events
    out = [asdict(e) for e in flags.events]
    bs = a["brake_switch"]
    presses = len(runs(np.nan_to_num(bs) > 0.5)) if np.isfinite(bs).any() else None
    # a switch that never comes on while the pressure shows hard braking is not wired: unknown, not 0
    if presses == 0 and bool((np.nan_to_num(a["brake_bar"]) > BRAKE_SWITCH_CHECK_BAR).any()):
        presses = None
    cues = rows(
        "SELECT t_s, lap, rule, text, status FROM coaching_notes WHERE session_id = ? AND priority = 3 ORDER BY t_s",
        [s["session_id"]],
    )
    shown = {k: m for k, m in FLAG_MEASURES.items() if rec.has(m)}
    if flags.alarm_channels:
        shown[ev.ALARM] = ev.ALARM
    return {
        **flags.as_dict(),
        **rec.fields(*FLAG_MEASURES.values()),
        "events": out,
        # a kind's count (0 included) only when its channel was recorded; the others are in not_recorded
        "counts": {k: sum(1 for e in out if e["kind"] == k) for k in shown},
        "brake_presses": presses,
        "safety_cues": cues,
    }

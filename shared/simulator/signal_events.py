"""Events written into a simulated session's channels (pedals, wheel speeds, oil pressure, TPMS), each with
its ground-truth record; the truth's brake points read back off the generated brake-pressure signal."""

from __future__ import annotations

from typing import Any

import numpy as np

from shared.profiles.track import TrackProfile
from shared.simulator.scenario import DRIVING_MISTAKES, Event

BRAKE_ONSET_BAR = 1.0  # the pressure has started to rise


def _onset(
    wide: dict[str, np.ndarray], on: np.ndarray, lap_dist: np.ndarray, lo: float, hi: float
) -> float | None:
    """Lap distance where the brake pressure first rises above BRAKE_ONSET_BAR within [lo, hi]."""
    idx = np.where(on & (lap_dist >= lo) & (lap_dist <= hi))[0]
    hit = idx[wide["brake_bar"][idx] > BRAKE_ONSET_BAR]
    return round(float(lap_dist[hit[0]]), 1) if len(hit) else None


def brake_points_from_signals(
    wide: dict[str, np.ndarray],
    events: list[dict[str, Any]],
    lap_no: np.ndarray,
    lap_dist: np.ndarray,
    clean_laps: list[int],
) -> None:
    """The truth's brake points are read off the generated brake-pressure signal (where it first rises),
    the mistake's lap against the median of the clean laps at that corner."""
    for e in events:
        if "brake_point_m" not in e:
            continue
        apex, trace_bp, trace_clean = e.pop("apex_m"), e["brake_point_m"], e["clean_brake_point_m"]
        lo = min(trace_bp, trace_clean, e.get("start_m", trace_bp)) - 40.0
        bp = _onset(wide, lap_no == e["lap"], lap_dist, lo, apex)
        cl = [_onset(wide, lap_no == k, lap_dist, trace_clean - 40.0, apex) for k in clean_laps]
        cl_ok = [x for x in cl if x is not None]
        if bp is not None and cl_ok:
            e["brake_point_m"] = bp
            e["clean_brake_point_m"] = round(float(np.median(cl_ok)), 1)
            e["brake_shift_m"] = round(bp - e["clean_brake_point_m"], 1)


def inject_signal_event(
    wide: dict[str, np.ndarray],
    ev: Event,
    track: TrackProfile,
    lap_no: np.ndarray,
    lap_dist: np.ndarray,
    t: np.ndarray,
    rate_hz: float,
    applied: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Write an event into the signals; its truth record, with what ``apply_mistake`` measured on the
    speed trace (brake points, minimum speeds, time lost) for driving mistakes."""
    on_lap = lap_no == ev.lap
    if not on_lap.any():
        return None
    c = track.find_corner(ev.corner_id) if ev.corner_id else None
    rec: dict[str, Any] = {
        "kind": ev.kind,
        "lap": ev.lap,
        "corner_id": ev.corner_id,
        "wheel": ev.wheel,
        "offset_m": ev.offset_m,
    }
    if applied is not None:
        rec.update({k: v for k, v in applied.items() if k != "range_m"})
        if "brake_point_m" in applied:
            rec["brake_shift_m"] = round(applied["brake_point_m"] - applied["clean_brake_point_m"], 1)
    elif ev.kind in DRIVING_MISTAKES:
        return None
    idx = np.where(on_lap)[0]
    if ev.kind in ("late_brake", "early_brake", "coasting") and c is not None:
        a, b = applied["range_m"] if applied else (c.start_m - 400, c.end_m)
        zone = idx[(lap_dist[idx] >= a) & (lap_dist[idx] <= b)]
        if not len(zone):
            return None
        if ev.kind == "coasting":
            wide["throttle_pct"][zone] = np.clip(wide["throttle_pct"][zone] * 0.0 + 1.0, 0, 2)
            wide["brake_bar"][zone] = 0.0
            wide["brake_switch"][zone] = 0.0
        rec["t_start_s"], rec["t_end_s"] = float(t[zone[0]]), float(t[zone[-1]])
        rec["start_m"], rec["end_m"] = round(a, 1), round(b, 1)
        return rec
    if ev.kind == "lockup" and c is not None:
        prev_end = max((o.end_m for o in track.corners if o.end_m < c.start_m), default=-1e9)
        lo = max(c.start_m - 200, prev_end)  # this corner's own braking zone, not the previous corner's
        zone = idx[(lap_dist[idx] > lo) & (lap_dist[idx] < c.apex_m) & (wide["brake_bar"][idx] > 20)]
        if not len(zone):
            return None
        k0 = zone[int(np.argmax(wide["brake_bar"][zone]))]
        span = np.arange(k0, min(k0 + int(ev.duration_s * rate_hz), len(t)))
        w = ev.wheel or "fl"
        # a locked wheel with the ABS silent (a wheel slower than the car while the ABS regulates is the
        # ABS at work, not a lockup: shared.event_detect)
        wide[f"wheel_speed_{w}_kmh"][span] = np.maximum(wide["speed_kmh"][span] - 25.0, 0.0)
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        return rec
    if ev.kind == "wheelspin" and c is not None:
        zone = idx[
            (lap_dist[idx] > c.apex_m) & (lap_dist[idx] < c.end_m + 150) & (wide["throttle_pct"][idx] > 50)
        ]
        if not len(zone):
            return None
        k0 = zone[0]
        span = np.arange(k0, min(k0 + int(ev.duration_s * rate_hz), len(t)))
        w = ev.wheel or "rr"
        wide[f"wheel_speed_{w}_kmh"][span] = wide["speed_kmh"][span] + 18.0
        wide["dsc_active"][span] = 1.0
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        return rec
    if ev.kind == "oil_pressure_drop":
        load = idx[(wide["rpm"][idx] > 5000) & (wide["throttle_pct"][idx] > 80)]
        if not len(load):
            return None
        k0 = load[len(load) // 3]
        span = np.arange(k0, min(k0 + int(ev.duration_s * rate_hz), len(t)))
        wide["oil_press_bar"][span] = 0.6
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        at = track.corner_at(float(lap_dist[k0]))
        rec["corner_id"] = at.id if at else None
        rec["dist_m"] = float(lap_dist[k0])
        return rec
    if ev.kind == "tpms_alarm":
        w = ev.wheel or "rl"
        k0 = idx[len(idx) // 4]
        span = np.arange(k0, min(k0 + int((ev.duration_s or 15) * rate_hz), len(t)))
        wide[f"tpms_alarm_{w}"][span] = 1.0
        wide[f"tpms_press_{w}_bar"][span] -= np.linspace(0, 0.6, len(span))
        rec["t_start_s"], rec["t_end_s"] = float(t[span[0]]), float(t[span[-1]])
        return rec
    return None

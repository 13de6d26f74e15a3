"""Offline detection of driver and car events in a session: lockups, wheelspin, ABS/DSC/MIL, TPMS
alarms, oil pressure lost under load, coolant over temperature. Each is attributed to lap, lap
distance and corner. The hot path raises the same events live; this is for imported sessions."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from shared.profiles.track import Corner

Wide = dict[str, np.ndarray]

DEFAULTS = {
    "lockup_slip_kmh": 12.0,
    "wheelspin_slip_kmh": 8.0,
    "oil_press_min_bar": 1.0,
    "oil_rpm_min": 3000.0,
    "oil_throttle_min_pct": 10.0,
    "coolant_max_c": 105.0,
    "min_event_s": 0.15,
}


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index runs where mask is true."""
    if not mask.any():
        return []
    m = np.concatenate([[False], mask, [False]])
    d = np.diff(m.astype(np.int8))
    return list(zip(np.where(d == 1)[0].tolist(), np.where(d == -1)[0].tolist(), strict=True))


def _corner_for(dist: float, corners: list[Corner], margin_m: float = 150.0) -> str | None:
    best = None
    for c in corners:
        if c.start_m - margin_m <= dist <= c.end_m + margin_m:
            centre = (c.start_m + c.end_m) / 2
            score = abs(dist - centre)
            if best is None or score < best[0]:
                best = (score, c.id)
    return best[1] if best else None


def detect_events(
    wide: Wide, corners: list[Corner], thresholds: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    th = {**DEFAULTS, **(thresholds or {})}
    t = wide["t_s"]
    if len(t) < 3:
        return []
    dt = float(np.median(np.diff(t)))
    min_n = max(1, int(th["min_event_s"] / max(dt, 1e-3)))
    lap = wide.get("lap", np.zeros(len(t)))
    dist = wide.get("dist_m", np.zeros(len(t)))
    out: list[dict[str, Any]] = []

    def add(
        kind: str, a: int, b: int, wheel: str | None = None, severity: float | None = None, **detail: Any
    ) -> None:
        k = a
        out.append(
            {
                "t_s": float(t[k]),
                "lap": int(lap[k]),
                "dist_m": float(dist[k]),
                "corner": _corner_for(float(dist[k]), corners),
                "kind": kind,
                "wheel": wheel,
                "severity": severity,
                "detail": json.dumps({"duration_s": round(float(t[b - 1] - t[a]), 3), **detail}),
            }
        )

    speed = wide.get("speed_kmh")
    brake = wide.get("brake_bar")
    thr = wide.get("throttle_pct")
    if speed is not None:
        for w in ("fl", "fr", "rl", "rr"):
            ws = wide.get(f"wheel_speed_{w}_kmh")
            if ws is None or not np.isfinite(ws).any():
                continue
            slip = np.nan_to_num(ws - speed)
            braking = np.nan_to_num(brake) > 5 if brake is not None else np.zeros(len(t), bool)
            driving = np.nan_to_num(thr) > 30 if thr is not None else np.zeros(len(t), bool)
            for a, b in _runs((slip < -th["lockup_slip_kmh"]) & braking & (speed > 20)):
                if b - a >= min_n:
                    add(
                        "lockup",
                        a,
                        b,
                        w,
                        float(-slip[a:b].min()),
                        max_slip_kmh=round(float(-slip[a:b].min()), 1),
                    )
            if w in ("rl", "rr"):
                for a, b in _runs((slip > th["wheelspin_slip_kmh"]) & driving & (speed > 10)):
                    if b - a >= min_n:
                        add(
                            "wheelspin",
                            a,
                            b,
                            w,
                            float(slip[a:b].max()),
                            max_slip_kmh=round(float(slip[a:b].max()), 1),
                        )
    for flag, kind in (("abs_active", "abs"), ("dsc_active", "dsc"), ("mil", "mil")):
        f = wide.get(flag)
        if f is not None:
            for a, b in _runs(np.nan_to_num(f) > 0.5):
                add(kind, a, b)
    for w in ("fl", "fr", "rl", "rr"):
        al = wide.get(f"tpms_alarm_{w}")
        if al is not None:
            for a, b in _runs(np.nan_to_num(al) > 0):
                press = wide.get(f"tpms_press_{w}_bar")
                add(
                    "tpms_alarm",
                    a,
                    b,
                    w,
                    None,
                    bitfield=int(np.nanmax(al[a:b])),
                    min_press_bar=None if press is None else round(float(np.nanmin(press[a:b])), 2),
                )
    oil, rpm = wide.get("oil_press_bar"), wide.get("rpm")
    if oil is not None and rpm is not None and thr is not None:
        load = (np.nan_to_num(rpm) > th["oil_rpm_min"]) & (np.nan_to_num(thr) > th["oil_throttle_min_pct"])
        low = np.isfinite(oil) & (oil < th["oil_press_min_bar"]) & load
        for a, b in _runs(low):
            if b - a >= min_n:
                add(
                    "oil_pressure",
                    a,
                    b,
                    None,
                    float(np.nanmin(oil[a:b])),
                    min_bar=round(float(np.nanmin(oil[a:b])), 2),
                )
    water = wide.get("water_temp_c")
    if water is not None:
        for a, b in _runs(np.isfinite(water) & (water > th["coolant_max_c"])):
            add(
                "coolant",
                a,
                b,
                None,
                float(np.nanmax(water[a:b])),
                max_c=round(float(np.nanmax(water[a:b])), 1),
            )
    out.sort(key=lambda e: e["t_s"])
    return out

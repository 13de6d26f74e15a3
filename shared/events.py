"""The one event detector: lockups, wheelspin, ABS/DSC/MIL, TPMS alarms, oil pressure lost under load,
coolant over temperature.

One vocabulary (``EVENT_KINDS``), one threshold table (``EVENT_THRESHOLDS``, overridden per car by the
car profile's ``thresholds:``) and one set of predicates, used by the importer (``detect_events``), the
hot path (the safety rules and the corner watcher call the same predicates frame by frame or corner by
corner) and the paddock tools. Live and imported sessions therefore store the same event names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.profiles.track import Corner

Wide = dict[str, np.ndarray]
WHEELS = ("fl", "fr", "rl", "rr")
DRIVEN_WHEELS = ("rl", "rr")

# ---- the vocabulary -------------------------------------------------------------------
LOCKUP = "lockup"
WHEELSPIN = "wheelspin"
ABS = "abs"
DSC = "dsc"
MIL = "mil"
TPMS_ALARM = "tpms_alarm"
TPMS_DROP = "tpms_drop"
OIL_PRESSURE = "oil_pressure"
COOLANT = "coolant"
EVENT_KINDS = (LOCKUP, WHEELSPIN, ABS, DSC, MIL, TPMS_ALARM, TPMS_DROP, OIL_PRESSURE, COOLANT)
# driver incidents (what "scary moments" are made of); the rest is car health
INCIDENT_KINDS = (LOCKUP, WHEELSPIN, ABS, DSC)
FLAG_CHANNELS = {ABS: "abs_active", DSC: "dsc_active", MIL: "mil"}

# ---- the one threshold table (a car profile's ``thresholds:`` overrides any of them) --------
EVENT_THRESHOLDS: dict[str, float] = {
    "slip_lockup_kmh": 12.0,  # a wheel this much slower than the car under braking
    "slip_spin_kmh": 8.0,  # a driven wheel this much faster than the car on throttle
    "slip_brake_bar": 5.0,  # braking: pressure above
    "slip_throttle_pct": 30.0,  # driving: throttle above
    "slip_min_speed_kmh": 15.0,  # below this wheel-speed noise is not slip
    "event_min_s": 0.15,  # a slip shorter than this is sensor noise
    "oil_press_min_bar": 1.0,  # oil pressure below this under load
    "oil_rpm_min": 3000.0,  # load: rpm above
    "oil_throttle_min_pct": 10.0,  # load: throttle above
    "coolant_max_c": 105.0,  # coolant above
    "tpms_drop_bar": 0.4,  # tyre pressure this far below its session baseline
}
FLAG_ON = 0.5


def event_thresholds(overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """The table with a car profile's overrides applied (keys that are not event thresholds are ignored:
    they belong to RuleCoach's technique table, which validates them)."""
    out = dict(EVENT_THRESHOLDS)
    for k, v in (overrides or {}).items():
        if k in out:
            out[k] = float(v)
    return out


# ---- predicates: the same code for one frame (floats) and a whole session (arrays) -----------
def is_lockup(wheel_kmh: Any, speed_kmh: Any, brake_bar: Any, th: Mapping[str, float]) -> Any:
    return (
        (wheel_kmh - speed_kmh < -th["slip_lockup_kmh"])
        & (brake_bar > th["slip_brake_bar"])
        & (speed_kmh > th["slip_min_speed_kmh"])
    )


def is_wheelspin(wheel_kmh: Any, speed_kmh: Any, throttle_pct: Any, th: Mapping[str, float]) -> Any:
    return (
        (wheel_kmh - speed_kmh > th["slip_spin_kmh"])
        & (throttle_pct > th["slip_throttle_pct"])
        & (speed_kmh > th["slip_min_speed_kmh"])
    )


def is_oil_pressure_low(oil_bar: Any, rpm: Any, throttle_pct: Any, th: Mapping[str, float]) -> Any:
    return (
        (oil_bar < th["oil_press_min_bar"])
        & (rpm > th["oil_rpm_min"])
        & (throttle_pct > th["oil_throttle_min_pct"])
    )


def is_coolant_hot(water_c: Any, th: Mapping[str, float]) -> Any:
    return water_c > th["coolant_max_c"]


def is_flag_on(v: Any) -> Any:
    return v >= FLAG_ON


# ---- runs -------------------------------------------------------------------------------
def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index runs where mask is true."""
    if not mask.any():
        return []
    m = np.concatenate([[False], mask, [False]])
    d = np.diff(m.astype(np.int8))
    return list(zip(np.where(d == 1)[0].tolist(), np.where(d == -1)[0].tolist(), strict=True))


@dataclass(frozen=True)
class SlipRun:
    kind: str  # lockup | wheelspin
    wheel: str
    start: int  # index of the first sample
    end: int  # index after the last sample
    max_slip_kmh: float


def _nz(a: np.ndarray | None, n: int) -> np.ndarray:
    return np.zeros(n) if a is None else np.nan_to_num(np.asarray(a, dtype=np.float64))


def slip_runs(a: Mapping[str, np.ndarray], th: Mapping[str, float]) -> list[SlipRun]:
    """Lockups (any wheel, under braking) and wheelspin (driven wheels, on throttle) that last at least
    ``event_min_s``; ``a`` holds ``t_s``, ``speed_kmh``, ``brake_bar``, ``throttle_pct`` and
    ``wheel_speed_<w>_kmh`` arrays of one length."""
    t = np.asarray(a["t_s"], dtype=np.float64)
    speed = a.get("speed_kmh")
    if speed is None or len(t) < 2:
        return []
    n = len(t)
    dt = float(np.median(np.diff(t)))
    min_n = max(1, int(round(th["event_min_s"] / max(dt, 1e-3))))
    spd = np.asarray(speed, dtype=np.float64)
    brake, thr = _nz(a.get("brake_bar"), n), _nz(a.get("throttle_pct"), n)
    out: list[SlipRun] = []
    with np.errstate(invalid="ignore"):
        for w in WHEELS:
            ws = a.get(f"wheel_speed_{w}_kmh")
            if ws is None or not np.isfinite(ws).any():
                continue
            slip = np.asarray(ws, dtype=np.float64) - spd
            masks = [(LOCKUP, is_lockup(ws, spd, brake, th))]
            if w in DRIVEN_WHEELS:
                masks.append((WHEELSPIN, is_wheelspin(ws, spd, thr, th)))
            for kind, mask in masks:
                for i0, i1 in runs(np.asarray(mask, dtype=bool)):
                    if i1 - i0 >= min_n:
                        worst = float(np.nanmax(np.abs(slip[i0:i1])))
                        out.append(SlipRun(kind, w, i0, i1, round(worst, 1)))
    out.sort(key=lambda s: (s.start, s.wheel))
    return out


def corner_for(dist: float, corners: list[Corner], margin_m: float = 150.0) -> str | None:
    """The corner an event at lap distance ``dist`` belongs to (its approach counts)."""
    best = None
    for c in corners:
        if c.start_m - margin_m <= dist <= c.end_m + margin_m:
            score = abs(dist - (c.start_m + c.end_m) / 2)
            if best is None or score < best[0]:
                best = (score, c.id)
    return best[1] if best else None


def detect_events(
    wide: Wide, corners: list[Corner], thresholds: Mapping[str, float] | None = None
) -> list[dict[str, Any]]:
    """Every event of a session (``driver_events`` rows without ``session_id``), in time order.
    ``thresholds`` are the car profile's overrides."""
    th = event_thresholds(thresholds)
    t = wide["t_s"]
    if len(t) < 3:
        return []
    n = len(t)
    dt = float(np.median(np.diff(t)))
    min_n = max(1, int(round(th["event_min_s"] / max(dt, 1e-3))))
    lap = wide.get("lap", np.zeros(n))
    dist = wide.get("dist_m", np.zeros(n))
    out: list[dict[str, Any]] = []

    def add(
        kind: str, a: int, b: int, wheel: str | None = None, severity: float | None = None, **detail: Any
    ) -> None:
        d = float(np.nan_to_num(dist[a]))
        out.append(
            {
                "t_s": float(t[a]),
                "lap": int(np.nan_to_num(lap[a])),
                "dist_m": d,
                "corner": corner_for(d, corners),
                "kind": kind,
                "wheel": wheel,
                "severity": severity,
                "detail": json.dumps({"duration_s": round(float(t[b - 1] - t[a]), 3), **detail}),
            }
        )

    for s in slip_runs(wide, th):
        add(s.kind, s.start, s.end, s.wheel, s.max_slip_kmh, max_slip_kmh=s.max_slip_kmh)
    for kind, ch in FLAG_CHANNELS.items():
        f = wide.get(ch)
        if f is not None:
            for a, b in runs(is_flag_on(np.nan_to_num(f))):
                add(kind, a, b)
    for w in WHEELS:
        al = wide.get(f"tpms_alarm_{w}")
        press = wide.get(f"tpms_press_{w}_bar")
        if al is not None:
            for a, b in runs(np.nan_to_num(al) > 0):
                add(
                    TPMS_ALARM,
                    a,
                    b,
                    w,
                    None,
                    bitfield=int(np.nanmax(al[a:b])),
                    min_press_bar=None if press is None else round(float(np.nanmin(press[a:b])), 2),
                )
    oil, rpm, thr = wide.get("oil_press_bar"), wide.get("rpm"), wide.get("throttle_pct")
    if oil is not None and rpm is not None and thr is not None:
        with np.errstate(invalid="ignore"):
            low = np.isfinite(oil) & is_oil_pressure_low(oil, np.nan_to_num(rpm), np.nan_to_num(thr), th)
        for a, b in runs(low):
            if b - a >= min_n:
                m = float(np.nanmin(oil[a:b]))
                add(OIL_PRESSURE, a, b, None, m, min_bar=round(m, 2))
    water = wide.get("water_temp_c")
    if water is not None:
        with np.errstate(invalid="ignore"):
            hot = np.isfinite(water) & is_coolant_hot(water, th)
        for a, b in runs(hot):
            m = float(np.nanmax(water[a:b]))
            add(COOLANT, a, b, None, m, max_c=round(m, 1))
    out.sort(key=lambda e: e["t_s"])
    return out

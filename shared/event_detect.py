"""The one event detector over a whole session (the importer): lockups, wheelspin, ABS/DSC/MIL, TPMS
alarms, the logger's own alarm channels (``shared.alarms``), oil pressure lost under load, coolant over
temperature. A wheel slower than the car while ABS regulates is the ABS at work (an ``abs`` event), never a
lockup. What makes each event (kinds, thresholds, predicates) is ``shared.event_conditions``; the same
detector one frame at a time is ``shared.events.LiveEvents``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared import event_conditions as ev
from shared.profiles.track import Corner
from shared.signals import WHEELS, Wide


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
    ``wheel_speed_<w>_kmh`` arrays of one length, and ``abs_active`` where recorded: no lockup while it is
    on (the ABS is regulating)."""
    t = np.asarray(a["t_s"], dtype=np.float64)
    speed = a.get("speed_kmh")
    if speed is None or len(t) < 2:
        return []
    n = len(t)
    min_n = ev.min_samples(float(np.median(np.diff(t))), th)
    spd = np.asarray(speed, dtype=np.float64)
    brake, thr = _nz(a.get("brake_bar"), n), _nz(a.get("throttle_pct"), n)
    abs_off = ~ev.is_flag_on(_nz(a.get("abs_active"), n))
    out: list[SlipRun] = []
    with np.errstate(invalid="ignore"):
        for w in WHEELS:
            ws = a.get(f"wheel_speed_{w}_kmh")
            if ws is None or not np.isfinite(ws).any():
                continue
            slip = np.asarray(ws, dtype=np.float64) - spd
            masks = [(ev.LOCKUP, ev.is_lockup(ws, spd, brake, th) & abs_off)]
            if w in ev.DRIVEN_WHEELS:
                masks.append((ev.WHEELSPIN, ev.is_wheelspin(ws, spd, thr, th)))
            for kind, mask in masks:
                for i0, i1 in ev.runs(np.asarray(mask, dtype=bool)):
                    if i1 - i0 >= min_n:
                        worst = float(np.nanmax(np.abs(slip[i0:i1])))
                        out.append(SlipRun(kind, w, i0, i1, round(worst, 1)))
    out.sort(key=lambda s: (s.start, s.wheel))
    return out


def _finite_min(a: np.ndarray) -> float | None:
    f = a[np.isfinite(a)]
    return round(float(f.min()), 2) if len(f) else None


def detect_events(
    wide: Wide,
    corners: list[Corner],
    thresholds: Mapping[str, float] | None = None,
    alarms: Mapping[str, np.ndarray] | None = None,
) -> list[dict[str, Any]]:
    """Every event of a session (``driver_events`` rows without ``session_id``), in time order.
    ``thresholds`` are the car profile's overrides; ``alarms`` the logger's alarm channels on the
    session's time grid, by name (``shared.alarms.alarm_signals``)."""
    th = ev.event_thresholds(thresholds)
    t = wide["t_s"]
    if len(t) < 3:
        return []
    n = len(t)
    min_n = ev.min_samples(float(np.median(np.diff(t))), th)
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
                "corner": ev.corner_for(d, corners),
                "kind": kind,
                "wheel": wheel,
                "severity": severity,
                "detail": json.dumps({"duration_s": round(float(t[b - 1] - t[a]), 3), **detail}),
            }
        )

    for s in slip_runs(wide, th):
        add(s.kind, s.start, s.end, s.wheel, s.max_slip_kmh, max_slip_kmh=s.max_slip_kmh)
    for kind, ch in ev.FLAG_CHANNELS.items():
        f = wide.get(ch)
        if f is not None:
            for a, b in ev.runs(ev.is_flag_on(np.nan_to_num(f))):
                add(kind, a, b)
    for name, v in (alarms or {}).items():
        for a, b in ev.runs(np.nan_to_num(v) > 0):
            end_lap = int(np.nan_to_num(lap[b - 1]))
            add(ev.ALARM, a, b, None, None, channel=name, bitfield=int(np.nanmax(v[a:b])), end_lap=end_lap)
    for w in WHEELS:
        al = wide.get(f"tpms_alarm_{w}")
        press = wide.get(f"tpms_press_{w}_bar")
        if al is not None:
            for a, b in ev.runs(np.nan_to_num(al) > 0):
                add(
                    ev.TPMS_ALARM,
                    a,
                    b,
                    w,
                    None,
                    bitfield=int(np.nanmax(al[a:b])),
                    min_press_bar=None if press is None else _finite_min(press[a:b]),
                )
        if press is not None:  # the baseline is stateful: one pass, as the hot path sees it
            base: dict[str, float] = {}
            drops = np.array([ev.tpms_drop(base, w, p) or 0.0 for p in press.tolist()])
            for a, b in ev.runs(drops >= th["tpms_drop_bar"]):
                m = float(drops[a:b].max())
                add(ev.TPMS_DROP, a, b, w, round(m, 2), drop_bar=round(m, 2))
    oil, rpm, thr = wide.get("oil_press_bar"), wide.get("rpm"), wide.get("throttle_pct")
    if oil is not None and rpm is not None and thr is not None:
        with np.errstate(invalid="ignore"):
            low = np.isfinite(oil) & ev.is_oil_pressure_low(oil, np.nan_to_num(rpm), np.nan_to_num(thr), th)
        for a, b in ev.runs(low):
            if b - a >= min_n:
                m = float(np.nanmin(oil[a:b]))
                add(ev.OIL_PRESSURE, a, b, None, m, min_bar=round(m, 2))
    water = wide.get("water_temp_c")
    if water is not None:
        with np.errstate(invalid="ignore"):
            hot = np.isfinite(water) & ev.is_coolant_hot(water, th)
        for a, b in ev.runs(hot):
            m = float(np.nanmax(water[a:b]))
            add(ev.COOLANT, a, b, None, m, max_c=round(m, 1))
    out.sort(key=lambda e: e["t_s"])
    return out

"""The one event detector one frame at a time (the hot path): ``LiveEvents`` asks the same predicates
(``shared.event_conditions``) as the import's detector (``shared.event_detect``) and stores the same rows.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.event_conditions import (
    COOLANT,
    DRIVEN_WHEELS,
    FLAG_CHANNELS,
    LOCKUP,
    OIL_PRESSURE,
    TPMS_ALARM,
    TPMS_DROP,
    WHEELSPIN,
    corner_for,
    event_thresholds,
    is_coolant_hot,
    is_flag_on,
    is_lockup,
    is_oil_pressure_low,
    is_wheelspin,
    min_samples,
    tpms_drop,
)
from shared.profiles.track import Corner
from shared.signals import WHEELS


@dataclass
class _Open:
    t0: float
    lap: int
    dist_m: float
    t1: float
    n: int = 0
    worst: float | None = None  # the value the run's severity is made of (max slip, min oil, ...)
    bits: int = 0  # TPMS alarm bitfield seen
    press: float | None = None  # lowest TPMS pressure seen during an alarm


def _num(row: Mapping[str, Any], key: str) -> float | None:
    v = row.get(key)
    return None if v is None else float(v)


def _z(v: float | None) -> float:
    return 0.0 if v is None or not math.isfinite(v) else v


class LiveEvents:
    """``detect_events`` one frame at a time: the same predicates, runs, minimum durations and rows,
    each row given when its run ends (or at ``close``), so a live session stores every event an import
    of the same data would, not one per spoken cue."""

    def __init__(self, corners: list[Corner], thresholds: Mapping[str, float] | None = None) -> None:
        self.th = event_thresholds(thresholds)
        self.corners = corners
        self._open: dict[tuple[str, str | None], _Open] = {}
        self._dts: deque[float] = deque(maxlen=101)  # recent frame spacing: the minimum run length
        self._last_t: float | None = None
        self._tpms_base: dict[str, float] = {}
        self._tpms_last: dict[str, tuple[float, float | None]] = {}  # wheel -> (pressure, its drop)
        # per frame: the channel names, built once (the frame path runs at up to 1 kHz)
        self._wheels = [(w, f"wheel_speed_{w}_kmh", w in DRIVEN_WHEELS) for w in WHEELS]
        self._tpms = [(w, f"tpms_alarm_{w}", f"tpms_press_{w}_bar") for w in WHEELS]
        self._flags = list(FLAG_CHANNELS.items())
        self._on_buf: dict[tuple[str, str | None], float | None] = {}

    # Channel values are floats or None (missing). A NaN compares false, as the import's nan_to_num(0)
    # does against these positive thresholds, so no NaN is cleaned here: this runs on every frame.
    def _slips(self, get: Any, on: dict[tuple[str, str | None], float | None]) -> None:
        th = self.th
        spd = get("speed_kmh")
        if spd is None or not spd > th["slip_min_speed_kmh"]:
            return  # both predicates need the car moving: no wheel to look at
        brake, thr = get("brake_bar") or 0.0, get("throttle_pct") or 0.0
        braking, driving = brake > th["slip_brake_bar"], thr > th["slip_throttle_pct"]
        if braking and is_flag_on(get("abs_active") or 0.0):
            braking = False  # the ABS is regulating: a slow wheel is its work, not a lockup
        if not (braking or driving):
            return  # neither braking nor driving: neither predicate can hold
        for w, key, driven in self._wheels:
            ws = get(key)
            if ws is None:
                continue
            # each predicate is asked only when its pedal term holds (it is False otherwise)
            if braking and is_lockup(ws, spd, brake, th):
                on[(LOCKUP, w)] = abs(ws - spd)
            elif driven and driving and is_wheelspin(ws, spd, thr, th):
                on[(WHEELSPIN, w)] = abs(ws - spd)

    def _tpms_drop(self, wheel: str, press: float) -> float | None:
        last = self._tpms_last.get(wheel)
        if last is not None and last[0] == press:  # the same reading again: the baseline cannot move
            return last[1]
        drop = tpms_drop(self._tpms_base, wheel, press)
        self._tpms_last[wheel] = (press, drop)
        return drop

    def _on(self, row: Mapping[str, Any]) -> dict[tuple[str, str | None], float | None]:
        """Each condition true on this frame, with the value its severity is made of."""
        th, get = self.th, row.get
        on = self._on_buf  # reused: a dict allocated per frame costs the frame path garbage collections
        on.clear()
        self._slips(get, on)
        for kind, ch in self._flags:
            f = get(ch)
            if f and is_flag_on(f):  # 0.0 (the usual value) and None are off
                on[(kind, None)] = None
        tpms_last = self._tpms_last
        for w, alarm_key, press_key in self._tpms:
            al, press = get(alarm_key), get(press_key)
            if al is not None and al > 0:
                on[(TPMS_ALARM, w)] = al
            if press is not None:
                last = tpms_last.get(w)  # the same reading again (the usual case): its drop, no call
                drop = last[1] if last is not None and last[0] == press else self._tpms_drop(w, press)
                if drop is not None and drop >= th["tpms_drop_bar"]:
                    on[(TPMS_DROP, w)] = drop
        oil, rpm, thr = get("oil_press_bar"), get("rpm"), get("throttle_pct")
        if oil is not None and rpm is not None and thr is not None and is_oil_pressure_low(oil, rpm, thr, th):
            on[(OIL_PRESSURE, None)] = oil
        water = get("water_temp_c")
        if water is not None and is_coolant_hot(water, th):
            on[(COOLANT, None)] = water
        return on

    @property
    def conditions(self) -> Mapping[tuple[str, str | None], float | None]:
        """The conditions true on the last frame fed, by (kind, wheel): shared with the hot path's safety
        rules, which then need not evaluate the same predicates again (valid until the next ``feed``)."""
        return self._on_buf

    @property
    def tpms_baseline(self) -> dict[str, float]:
        """Each wheel's TPMS baseline (updated on every frame); the safety rules read the same one."""
        return self._tpms_base

    def feed(self, row: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One frame (``t_s``, ``lap``, ``dist_m`` and channels): the events that ended on it."""
        t = float(row["t_s"])
        if self._last_t is not None and t > self._last_t:
            self._dts.append(t - self._last_t)
        self._last_t = t
        on = self._on(row)
        if not on and not self._open:
            return []
        done = [self._end(k) for k in [k for k in self._open if k not in on]]
        for k, v in on.items():
            r = self._open.get(k)
            if r is None:
                d = _z(_num(row, "dist_m"))
                r = self._open[k] = _Open(t, int(_z(_num(row, "lap"))), d, t)
            r.n += 1
            r.t1 = t
            if v is not None:
                worse = min if k[0] == OIL_PRESSURE else max  # oil: the lowest; the rest: the highest
                r.worst = v if r.worst is None else worse(r.worst, v)
            if k[0] == TPMS_ALARM:
                r.bits = max(r.bits, int(_z(v)))
                press = _num(row, f"tpms_press_{k[1]}_bar")
                if press is not None and math.isfinite(press):
                    r.press = press if r.press is None else min(r.press, press)
        return [e for e in done if e is not None]

    def maybe(self, col: Any, n: int) -> np.ndarray:
        """For a run of ``n`` frames given as columns (``col(name)``: that channel on each frame, held as
        ``feed`` would see it, as a float array, NaN for none; None when no frame has it): False on
        each frame where no condition can hold, True where one may (a superset: ``feed`` decides). A TPMS
        drop is ruled out with an upper bound of the baseline (it never exceeds a pressure seen)."""
        th = self.th
        out = np.zeros(n, dtype=bool)
        with np.errstate(invalid="ignore"):
            spd = col("speed_kmh")
            if spd is not None:
                zero = np.zeros(n)
                brake, thr = col("brake_bar"), col("throttle_pct")
                brake = zero if brake is None else brake
                thr = zero if thr is None else thr
                for _w, key, driven in self._wheels:
                    ws = col(key)
                    if ws is not None:
                        out |= is_lockup(ws, spd, brake, th)
                        if driven:
                            out |= is_wheelspin(ws, spd, thr, th)
            for _kind, ch in self._flags:
                f = col(ch)
                if f is not None:
                    out |= is_flag_on(f)
            for w, alarm_key, press_key in self._tpms:
                al, press = col(alarm_key), col(press_key)
                if al is not None:
                    out |= al > 0
                if press is not None:
                    base = self._tpms_base.get(w, -math.inf)
                    top = np.fmax(np.fmax.accumulate(press), base)
                    out |= top - press >= th["tpms_drop_bar"]
            oil, rpm, thr = col("oil_press_bar"), col("rpm"), col("throttle_pct")
            if oil is not None and rpm is not None and thr is not None:
                out |= is_oil_pressure_low(oil, rpm, thr, th)
            water = col("water_temp_c")
            if water is not None:
                out |= is_coolant_hot(water, th)
        return out

    def quiet(self, t: list[float], press: list[tuple[str, float]] | None = None) -> None:
        """Frames on which ``maybe`` ruled every condition out and no run was open (times ``t``, in
        order): ``feed``'s bookkeeping alone: the frame spacing, and the TPMS baseline for ``press``,
        the (wheel, pressure) readings that changed on them, in order."""
        if not t:
            return
        last = self._last_t
        if len(t) > 8:
            steps = np.diff(np.asarray([t[0] if last is None else last, *t])).tolist()
            self._dts.extend(s for s in steps if s > 0)
        else:
            for x in t:
                if last is not None and x > last:
                    self._dts.append(x - last)
                last = x
        self._last_t = t[-1]
        self._on_buf.clear()
        if press:  # each a change from the reading before (what _tpms_drop would not skip)
            base, seen = self._tpms_base, self._tpms_last
            for w, p in press:
                seen[w] = (p, tpms_drop(base, w, p))

    def close(self) -> list[dict[str, Any]]:
        """End of session: the runs still open end here."""
        return [e for e in (self._end(k) for k in list(self._open)) if e is not None]

    def _end(self, key: tuple[str, str | None]) -> dict[str, Any] | None:
        r = self._open.pop(key)
        kind, wheel = key
        min_n = min_samples(float(np.median(self._dts)), self.th) if self._dts else 1
        detail: dict[str, Any] = {"duration_s": round(r.t1 - r.t0, 3)}
        severity: float | None = None
        if kind in (LOCKUP, WHEELSPIN, OIL_PRESSURE) and r.n < min_n:
            return None
        if kind in (LOCKUP, WHEELSPIN):
            severity = round(r.worst or 0.0, 1)
            detail["max_slip_kmh"] = severity
        elif kind == TPMS_ALARM:
            detail.update(bitfield=r.bits, min_press_bar=None if r.press is None else round(r.press, 2))
        elif kind == TPMS_DROP:
            severity = round(r.worst or 0.0, 2)
            detail["drop_bar"] = severity
        elif kind == OIL_PRESSURE:
            severity = r.worst
            detail["min_bar"] = round(r.worst or 0.0, 2)
        elif kind == COOLANT:
            severity = r.worst
            detail["max_c"] = round(r.worst or 0.0, 1)
        return {
            "t_s": r.t0,
            "lap": r.lap,
            "dist_m": r.dist_m,
            "corner": corner_for(r.dist_m, self.corners),
            "kind": kind,
            "wheel": wheel,
            "severity": severity,
            "detail": json.dumps(detail),
        }

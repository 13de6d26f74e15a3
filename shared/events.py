"""The one event detector: lockups, wheelspin, ABS/DSC/MIL, TPMS alarms, the logger's own alarm channels
(``shared.alarms``), oil pressure lost under load, coolant over temperature. A wheel slower than the car
while ABS regulates is the ABS at work (an ``abs`` event), never a lockup.

One vocabulary (``EVENT_KINDS``), one threshold table (``EVENT_THRESHOLDS``, overridden per car by the
car profile's ``thresholds:``) and one set of predicates, used by the importer (``detect_events``), the
hot path (the safety rules and the corner watcher call the same predicates frame by frame or corner by
corner) and the paddock tools. Live and imported sessions therefore store the same event names.
"""

from __future__ import annotations

import json
import math
from collections import deque
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
ALARM = "alarm"  # a logger alarm channel (detail: its name); imports only, live frames carry wide columns
EVENT_KINDS = (LOCKUP, WHEELSPIN, ABS, DSC, MIL, TPMS_ALARM, TPMS_DROP, OIL_PRESSURE, COOLANT, ALARM)
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


TPMS_WARMING_STEP_BAR = 0.5  # a rise smaller than this is the tyre warming up: the baseline follows it


def tpms_drop(baseline: dict[str, float], wheel: str, press_bar: float) -> float | None:
    """How far ``wheel``'s pressure is below its session baseline (its first reading, raised as the tyre
    warms), updating ``baseline``; None for a reading that is not a number."""
    if not math.isfinite(press_bar):
        return None
    base = baseline.setdefault(wheel, press_bar)
    if base < press_bar < base + TPMS_WARMING_STEP_BAR:
        baseline[wheel] = base = press_bar
    return base - press_bar


def min_samples(dt_s: float, th: Mapping[str, float]) -> int:
    """The fewest consecutive samples, at ``dt_s`` apart, that make an event of at least ``event_min_s``."""
    return max(1, math.ceil(th["event_min_s"] / max(dt_s, 1e-3) - 1e-6))  # 0.15 s at 10 Hz: 2 samples


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
    ``wheel_speed_<w>_kmh`` arrays of one length, and ``abs_active`` where recorded: no lockup while it is
    on (the ABS is regulating)."""
    t = np.asarray(a["t_s"], dtype=np.float64)
    speed = a.get("speed_kmh")
    if speed is None or len(t) < 2:
        return []
    n = len(t)
    min_n = min_samples(float(np.median(np.diff(t))), th)
    spd = np.asarray(speed, dtype=np.float64)
    brake, thr = _nz(a.get("brake_bar"), n), _nz(a.get("throttle_pct"), n)
    abs_off = ~is_flag_on(_nz(a.get("abs_active"), n))
    out: list[SlipRun] = []
    with np.errstate(invalid="ignore"):
        for w in WHEELS:
            ws = a.get(f"wheel_speed_{w}_kmh")
            if ws is None or not np.isfinite(ws).any():
                continue
            slip = np.asarray(ws, dtype=np.float64) - spd
            masks = [(LOCKUP, is_lockup(ws, spd, brake, th) & abs_off)]
            if w in DRIVEN_WHEELS:
                masks.append((WHEELSPIN, is_wheelspin(ws, spd, thr, th)))
            for kind, mask in masks:
                for i0, i1 in runs(np.asarray(mask, dtype=bool)):
                    if i1 - i0 >= min_n:
                        worst = float(np.nanmax(np.abs(slip[i0:i1])))
                        out.append(SlipRun(kind, w, i0, i1, round(worst, 1)))
    out.sort(key=lambda s: (s.start, s.wheel))
    return out


def _finite_min(a: np.ndarray) -> float | None:
    f = a[np.isfinite(a)]
    return round(float(f.min()), 2) if len(f) else None


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
    wide: Wide,
    corners: list[Corner],
    thresholds: Mapping[str, float] | None = None,
    alarms: Mapping[str, np.ndarray] | None = None,
) -> list[dict[str, Any]]:
    """Every event of a session (``driver_events`` rows without ``session_id``), in time order.
    ``thresholds`` are the car profile's overrides; ``alarms`` the logger's alarm channels on the
    session's time grid, by name (``shared.alarms.alarm_signals``)."""
    th = event_thresholds(thresholds)
    t = wide["t_s"]
    if len(t) < 3:
        return []
    n = len(t)
    min_n = min_samples(float(np.median(np.diff(t))), th)
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
    for name, v in (alarms or {}).items():
        for a, b in runs(np.nan_to_num(v) > 0):
            end_lap = int(np.nan_to_num(lap[b - 1]))
            add(ALARM, a, b, None, None, channel=name, bitfield=int(np.nanmax(v[a:b])), end_lap=end_lap)
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
                    min_press_bar=None if press is None else _finite_min(press[a:b]),
                )
        if press is not None:  # the baseline is stateful: one pass, as the hot path sees it
            base: dict[str, float] = {}
            drops = np.array([tpms_drop(base, w, p) or 0.0 for p in press.tolist()])
            for a, b in runs(drops >= th["tpms_drop_bar"]):
                m = float(drops[a:b].max())
                add(TPMS_DROP, a, b, w, round(m, 2), drop_bar=round(m, 2))
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


# ---- the same detector, one frame at a time (the hot path) -------------------------------------
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

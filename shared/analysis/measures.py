"""What a lap did at one corner, read off its trace: where it lifted and braked, how long it coasted, its
minimum and exit speed, where it picked up the throttle, and slip where wheel speeds exist."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from shared.analysis.trace import WHEEL_CHANNELS, LapTrace
from shared.corners import BRAKE_LOOKBACK_M, THROTTLE_ON_PCT, brake_zone, resting_bar
from shared.event_conditions import DRIVEN_WHEELS, is_lockup, is_wheelspin, runs

NAN = float("nan")
LIFT_GAP_M = 25.0  # an off-throttle run ending this close before the brake point leads into it
BLIP_S = 0.25  # throttle on for less than this before a corner is a blip, not the drive towards it


@dataclass
class Marks:
    """One corner on one trace (distances on the trace's axis)."""

    start_m: float
    apex_m: float
    end_m: float
    min_x: float = NAN  # where the lap was slowest in the corner
    min_kmh: float = NAN
    brake_m: float = NAN
    lift_m: float = NAN
    pickup_m: float = NAN
    exit_kmh: float = NAN

    @property
    def onset_m(self) -> float:
        """Where the lap stopped driving towards the corner: the lift, else the brake point (NaN: taken
        flat)."""
        return self.lift_m if np.isfinite(self.lift_m) else self.brake_m


def marks(tr: LapTrace, start: float, apex: float, end: float, prev_x: float) -> Marks:
    """The corner [start, end] (apex ``apex``) on ``tr``; ``prev_x``: the previous corner's slowest point
    on this lap (a braking zone already on there is that corner's). The lift is ``lifts``'."""
    mk = Marks(start, apex, end)
    if start < tr.lo or end > tr.hi:
        return mk
    w = tr.window(start, end)
    spd = tr.ch["speed_kmh"][w]
    if len(spd) < 2:
        return mk
    k = int(np.argmin(spd))
    mk.min_x, mk.min_kmh = float(tr.x[w][k]), float(spd[k])
    mk.exit_kmh = float(tr.speed_at(end))
    lo = max(start - BRAKE_LOOKBACK_M, prev_x, tr.lo)
    zw = tr.window(lo, mk.min_x)
    sub = {"dist_m": tr.x[zw]} | {c: v[zw] for c, v in tr.ch.items() if c in ("brake_bar", "g_long")}
    if len(sub["dist_m"]) > 2:
        bp, _ = brake_zone(sub, lo, mk.min_x)
        # a zone already on where the window opens is the previous corner's braking, not this one's
        mk.brake_m = NAN if bp is None or bp <= float(sub["dist_m"][0]) + 1.0 else bp
    thr = tr.ch.get("throttle_pct")
    if thr is not None:
        after = tr.window(mk.min_x, tr.hi)
        up = np.where(np.nan_to_num(thr[after]) > THROTTLE_ON_PCT)[0]
        if len(up):
            mk.pickup_m = float(tr.x[after][up[0]])
    return mk


def trail(tr: LapTrace, mk: Marks, trail_bar: float) -> tuple[float, float]:
    """(the brake pressure at the corner's turn-in (its entry), where the brake came off): the pressure as
    the channel reads it; off is where, after the zone's peak, it fell to ``trail_bar`` above the sensor's
    resting reading. NaN, NaN: no brake pressure recorded, or no braking for this corner."""
    brk = tr.ch.get("brake_bar")
    if brk is None or not np.isfinite(mk.brake_m) or not np.isfinite(mk.min_x):
        return NAN, NAN
    w = tr.window(mk.brake_m, mk.end_m)
    p = brk[w]
    if len(p) < 2 or not np.isfinite(p).any():
        return NAN, NAN
    rest = resting_bar(brk[tr.window(mk.brake_m - BRAKE_LOOKBACK_M, mk.end_m)])
    level = np.nan_to_num(p, nan=rest)
    near = tr.window(mk.start_m - 20.0, mk.start_m + 20.0)  # the samples around the turn-in
    if tr.x[near].size < 2:  # a slow logger (1-5 Hz): more than 20 m between samples
        near = slice(None)
    at = float(np.interp(mk.start_m, tr.x[near], np.nan_to_num(brk[near], nan=rest)))
    peak = int(np.argmax(level))
    off = np.where(level[peak:] <= rest + trail_bar)[0]
    return at, float(tr.x[w][peak + off[0]]) if len(off) else NAN


def off_runs(tr: LapTrace, th: Mapping[str, float]) -> list[tuple[float, float]]:
    """(from, to) distances where the lap was off the throttle (a blip on it shorter than ``BLIP_S`` does
    not end a run)."""
    thr = tr.ch.get("throttle_pct")
    if thr is None:
        return []
    on = np.nan_to_num(thr, nan=100.0) >= th["coast_throttle_pct"]
    for i0, i1 in runs(on):
        if tr.t[i1 - 1] - tr.t[i0] < BLIP_S:
            on[i0:i1] = False
    return [(float(tr.x[i0]), float(tr.x[i1 - 1])) for i0, i1 in runs(~on)]


def lifts(ms: list[Marks], runs: list[tuple[float, float]]) -> None:
    """Each corner's lift: the start of the off-throttle run it is driven in (its slowest point, or its
    brake point, inside it), when that run is this corner's: the last corner it reaches is the one it
    leads into (a coast through a flat corner into the next belongs to the next). Never before the
    previous corner's slowest point when that corner was braked for."""
    for j, mk in enumerate(ms):
        at = mk.brake_m if np.isfinite(mk.brake_m) else mk.min_x
        # the run it is in, or one that ended just before it (the throttle fades as the brake comes on)
        run = (
            next((r for r in reversed(runs) if r[0] <= at <= r[1] + LIFT_GAP_M), None)
            if np.isfinite(at)
            else None
        )
        if run is None:
            continue
        nxt = ms[j + 1] if j + 1 < len(ms) else None
        if nxt is not None and np.isfinite(nxt.min_x) and run[0] <= nxt.min_x <= run[1]:
            continue  # the run goes on into the next corner: it is that one's
        if nxt is not None and not np.isfinite(mk.brake_m) and run[0] <= nxt.brake_m <= run[1] + LIFT_GAP_M:
            continue  # a coast through this corner, unbraked, into the next one's braking: the next one's
        lift = run[0]
        if j > 0 and np.isfinite(ms[j - 1].brake_m) and np.isfinite(ms[j - 1].min_x):
            lift = max(lift, ms[j - 1].min_x)
        mk.lift_m = lift


def coast_s(tr: LapTrace, a: float, b: float, th: Mapping[str, float]) -> float:
    """Seconds in [a, b] with neither pedal at speed (0 when there was no lift, ``a`` NaN; NaN without a
    throttle channel)."""
    thr = tr.ch.get("throttle_pct")
    if thr is None or not np.isfinite(a) or not b > a:
        return NAN if thr is None else 0.0
    w = tr.window(a, b)
    m = np.nan_to_num(thr[w], nan=100.0) < th["coast_throttle_pct"]
    brk = tr.ch.get("brake_bar")
    if brk is not None:
        m &= np.nan_to_num(brk[w]) < th["coast_brake_bar"]
    m &= tr.ch["speed_kmh"][w] > th["coast_speed_kmh"]
    dt = np.diff(tr.t[w], append=tr.t[w][-1:] if len(tr.t[w]) else [])
    return float(np.sum(dt[m])) if len(dt) == len(m) else 0.0


@dataclass
class Slip:
    """A trace's slip, found once: samples locking (under braking) or spinning (a driven wheel on
    throttle), the worst slip there and each sample's duration. ``None`` without wheel speeds."""

    lock: np.ndarray
    spin: np.ndarray
    worst: np.ndarray
    dt: np.ndarray


def slip_of(tr: LapTrace, th: Mapping[str, float]) -> Slip | None:
    wheels = [c for c in WHEEL_CHANNELS if c in tr.ch]
    if not wheels:
        return None
    spd, n = tr.ch["speed_kmh"], len(tr.x)
    brake = np.nan_to_num(tr.ch["brake_bar"]) if "brake_bar" in tr.ch else np.zeros(n)
    thr = np.nan_to_num(tr.ch["throttle_pct"]) if "throttle_pct" in tr.ch else np.zeros(n)
    lock, spin, worst = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n)
    with np.errstate(invalid="ignore"):
        for c in wheels:
            ws = tr.ch[c]
            lk = np.asarray(is_lockup(ws, spd, brake, th), bool)
            sp = np.zeros(n, bool)
            if c.split("_")[2] in DRIVEN_WHEELS:
                sp = np.asarray(is_wheelspin(ws, spd, thr, th), bool)
            lock |= lk
            spin |= sp
            worst = np.fmax(worst, np.where(lk | sp, np.abs(ws - spd), 0.0))
    return Slip(lock, spin, worst, np.diff(tr.t, append=tr.t[-1]))


def slip(tr: LapTrace, sl: Slip | None, a: float, min_x: float, b: float) -> tuple[float, float, float]:
    """(seconds of lockup before the slowest point, seconds of wheelspin after it, worst slip km/h) in
    [a, b]; NaN each without wheel speeds."""
    if sl is None:
        return NAN, NAN, NAN
    w = tr.window(a, b)
    before = tr.x[w] < min_x
    lock = sl.lock[w] & before
    spin = sl.spin[w] & ~before
    hit = lock | spin
    worst = float(sl.worst[w][hit].max()) if hit.any() else 0.0
    return float(sl.dt[w][lock].sum()), float(sl.dt[w][spin].sum()), worst

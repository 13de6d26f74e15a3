"""Driving mistakes on a lap's speed trace: where each corner can take one (the scenario draw's sites), and
what a late or early brake, a lockup, coasting or wheelspin does to the trace, measured on it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shared.profiles.car import CarProfile
from shared.profiles.track import TrackProfile
from shared.simulator.dynamics import BRAKE_USE, DRAG, DS, ROLLING, accel, brake_start, decel, lap_time
from shared.simulator.scenario import Event, Site
from shared.units import G

RUN_WIDE = 1.2  # a late braker runs wide: up to this much faster than the line's grip allows
MIN_COST_S = 0.1  # a late brake runs the car in at least this deep
HARD_BRAKE_KMH = 20.0  # a corner the clean lap brakes this much for can take a braking mistake
SLOW_EXIT_KMH = 120.0  # a corner slower than this at the apex has a traction-limited exit


def sites(track: TrackProfile, grid: np.ndarray, v: np.ndarray) -> list[Site]:
    """Every corner as the scenario draw sees it on the clean speed trace ``v``."""
    out = []
    n = len(v)
    for c in track.corners:
        lo, hi = int(c.start_m / DS), max(int(c.end_m / DS), int(c.start_m / DS) + 1)
        apex_i = lo + int(np.argmin(v[lo:hi]))
        b0 = brake_start(v, apex_i, n)
        drop_kmh = (float(v[b0 % n]) - float(v[apex_i])) * 3.6
        slow = float(v[apex_i]) * 3.6 < SLOW_EXIT_KMH
        run_up_s, j = 0.0, b0
        while run_up_s < 10.0 and float(v[(j - 1) % n]) <= float(v[j % n]) + 1e-9:
            run_up_s += DS / max(float(v[j % n]), 1.0)
            j -= 1
        hard = drop_kmh >= HARD_BRAKE_KMH
        run_up = (run_up_s, (b0 - j) * DS)
        out.append(Site(c.id, float(grid[b0 % n]), c.end_m, hard, slow and drop_kmh > 0, *run_up))
    return out


def _brake_from(
    v: np.ndarray, i0: int, v_low: float, car: CarProfile, grip: float, hold_to: int, use: float = BRAKE_USE
) -> int:
    """From ``i0`` brake at ``use`` of the car's limit down to ``v_low``, hold it to ``hold_to``; the
    last index written."""
    n = len(v)
    cur = float(v[i0 % n])
    i = i0
    while cur > v_low + 1e-9 and i < i0 + n // 2:
        i += 1
        cur = math.sqrt(max(cur * cur - 2 * decel(cur, car, grip, use) * DS, v_low * v_low))
        v[i % n] = cur
    while i < hold_to:
        i += 1
        v[i % n] = v_low
    return i


def _rejoin(v: np.ndarray, i: int, car: CarProfile, grip: float, clean: np.ndarray) -> int:
    """Accelerate from index ``i`` at the traction/power limit until the clean trace is rejoined; the
    last index written (``i`` when already on it)."""
    n = len(v)
    cur = float(v[i % n])
    last = i
    for j in range(i + 1, i + n // 2):
        cur = math.sqrt(max(cur * cur + 2 * max(accel(cur, car, grip), 0.0) * DS, 0.0))
        if cur >= clean[j % n]:
            break
        v[j % n] = cur
        last = j
    return last


def _late_point(
    v: np.ndarray, b0: int, off: int, apex_i: int, vlim: np.ndarray, car: CarProfile, grip: float
) -> int:
    """The latest brake point up to ``off`` steps after ``b0`` from which braking at the car's full limit
    keeps the car within what running wide allows (RUN_WIDE x the line's grip speed) up to the apex."""
    n = len(v)
    for b1 in range(min(b0 + off, apex_i - 1), b0 - 1, -1):
        cur = float(v[b0 % n])
        for _ in range(b0, b1):  # stays on the power until b1
            cur = min(math.sqrt(cur * cur + 2 * max(accel(cur, car, grip), 0.0) * DS), 245 / 3.6)
        ok = True
        for i in range(b1 + 1, apex_i + 1):
            cur = math.sqrt(max(cur * cur - 2 * decel(cur, car, grip, 1.0) * DS, 1.0))
            if cur > RUN_WIDE * vlim[i % len(vlim)] * math.sqrt(grip):
                ok = False
                break
        if ok:
            return b1
    return b0


def _at(i: int, grid: np.ndarray) -> float:
    """Lap distance of index ``i`` of a trace that may run on into the next lap."""
    return float(grid[i % len(grid)])


def apply_mistake(
    v: np.ndarray,
    grid: np.ndarray,
    ev: Event,
    track: TrackProfile,
    car: CarProfile,
    grip: float = 1.0,
    vlim: np.ndarray | None = None,
    base: np.ndarray | None = None,
) -> dict[str, Any] | None:
    """Modify one lap's speed trace for a driving mistake. Every mistake costs time: the trace is never
    faster than the clean one where the driver is within the car's limits, and a late brake (which gains
    on the straight) runs the car in deep until the loss outweighs the gain. Returns what was done,
    measured on the trace: the affected distance range, brake points, minimum speeds, time lost. The
    corner's apex and clean brake point are read off ``base`` (the lap before any mistake), so another
    mistake's slow exit before this corner does not move them."""
    c = track.find_corner(ev.corner_id or "")
    if c is None:
        return None
    n = len(v)
    clean = v.copy()
    ref = base if base is not None else clean
    lo, hi = int(c.start_m / DS), int(c.end_m / DS)
    apex_i = lo + int(np.argmin(ref[lo:hi]))
    b0 = brake_start(ref, apex_i, n)
    off = max(1, int(round(ev.offset_m / DS)))
    v_apex = float(ref[apex_i])
    rec: dict[str, Any] = {
        "clean_brake_point_m": round(_at(b0, grid), 1),
        "apex_m": float(grid[apex_i]),
    }
    if ev.kind == "late_brake":
        # brakes later and at the car's full limit, runs wide (as far as grip allows) and in deep
        b1 = _late_point(v, b0, off, apex_i, vlim if vlim is not None else v, car, grip)
        for dv_kmh in np.arange(6.0, 40.0, 2.0):
            v[:] = clean
            for i in range(b0, b1):  # stays on the power
                cur = float(v[i % n])
                v[(i + 1) % n] = min(
                    math.sqrt(cur * cur + 2 * max(accel(cur, car, grip), 0.0) * DS), 245 / 3.6
                )
            last = _brake_from(v, b1, v_apex - dv_kmh / 3.6, car, grip, apex_i, use=1.0)
            back = _rejoin(v, last, car, grip, clean)
            if lap_time(v) - lap_time(clean) >= MIN_COST_S:
                break
        rng_m = (_at(b0, grid), _at(b0, grid) + (back - b0) * DS)  # braking zone to back on the line
        rec["brake_point_m"] = round(_at(b1, grid), 1)
    elif ev.kind in ("early_brake", "lockup"):
        b1 = b0 - off if ev.kind == "early_brake" else b0
        drop = 4.0 if ev.kind == "early_brake" else 5.0  # over-slows the corner / eases off the lock
        v_low = v_apex - drop / 3.6
        last = _brake_from(v, b1, v_low, car, grip, apex_i)
        np.minimum(v, clean, out=v)
        back = _rejoin(v, last, car, grip, clean)
        rng_m = (_at(b1, grid), _at(b1, grid) + (back - b1) * DS)
        rec["brake_point_m"] = round(_at(b1, grid), 1)
    elif ev.kind == "coasting":
        # lifts early: coasts (no pedals, drag only) for duration_s, until it meets the braking curve
        k0 = b0 - int(v[b0 % n] * ev.duration_s / DS)
        cur = float(v[k0 % n])
        i = k0
        while i < b0 + n // 4:
            i += 1
            cur = math.sqrt(max(cur * cur - 2 * (ROLLING * G + DRAG * cur * cur) * DS, 1.0))
            if cur >= clean[i % n]:
                break
            v[i % n] = cur
        rng_m = (_at(k0, grid), _at(k0, grid) + (i - 1 - k0) * DS)
        rec["brake_point_m"] = round(_at(i - 1, grid), 1)
    elif ev.kind == "wheelspin":
        # power on too early: wheelspin halves the drive out of the corner for duration_s, from where
        # the clean lap is back on full power (its gain reaches the car's traction/power limit; a
        # corner whose grip still limits the exit is driven at part throttle until then)
        i = apex_i
        while i < apex_i + n // 8:
            gain = (float(clean[(i + 1) % n]) ** 2 - float(clean[i % n]) ** 2) / (2 * DS)
            if gain >= 0.8 * accel(float(clean[i % n]), car, grip):
                break
            i += 1
        else:
            i = apex_i
        spin_i = i
        cur = float(clean[i % n])
        t_spin = 0.0
        while t_spin < ev.duration_s and i < spin_i + n // 4:
            a = 0.5 * max(accel(cur, car, grip), 0.0)
            nxt = math.sqrt(cur * cur + 2 * a * DS)
            t_spin += 2 * DS / (cur + nxt)
            i += 1
            cur = min(nxt, float(clean[i % n]))
            v[i % n] = cur
        _rejoin(v, i, car, grip, clean)
        rng_m = (_at(spin_i, grid), _at(spin_i, grid) + (i - spin_i) * DS)
    else:
        return None
    lo_m, hi_m = c.start_m, c.end_m
    k = (grid >= lo_m) & (grid <= hi_m)
    rec["min_kmh"] = round(float(np.min(v[: len(grid)][k])) * 3.6, 1)
    rec["clean_min_kmh"] = round(float(np.min(clean[: len(grid)][k])) * 3.6, 1)
    rec["time_lost_s"] = round(lap_time(v) - lap_time(clean), 3)
    rec["range_m"] = (round(rng_m[0], 1), round(rng_m[1], 1))
    return rec


def corner_start(track: TrackProfile, corner_id: str | None) -> float:
    c = track.find_corner(corner_id) if corner_id else None
    return c.start_m if c is not None else 0.0

"""A whole recording's laps under the one lap rule (``shared.laps``): boundaries from the logger's beacons
or the GPS start/finish crossings (interpolated between samples), each lap's kind and validity, and the
distance along each lap. The hot path's streaming tracker is ``shared.laps_live``."""

from __future__ import annotations

import math

import numpy as np

from shared.geo import LocalProjection
from shared.laps import (
    CATCH_UP_MPS,
    MIN_LAP_S,
    MIN_MOVING_KMH,
    ON_LINE_M,
    Boundary,
    Gate,
    Lap,
    boundaries_at,
    fit_near,
    gate_for,
    judge_boundaries,
    lap_kind,
    not_full_reason,
)
from shared.profiles.track import TrackProfile
from shared.signals import MutableWide, Wide

END_TOL_S = 0.25  # a boundary this close to the last sample is the end of the recording


def derive_gate(wide: Wide) -> Gate | None:
    """Unknown track: a line across the trace where the car is fastest (usually the main straight)."""
    lat, lon, spd = wide.get("lat"), wide.get("lon"), wide.get("speed_kmh")
    if lat is None or lon is None or spd is None:
        return None
    ok = np.isfinite(lat) & np.isfinite(lon) & np.isfinite(spd)
    if ok.sum() < 20:
        return None
    idx = np.where(ok)[0]
    i = int(idx[np.argmax(spd[idx])])
    j0, j1 = max(0, i - 3), min(len(lat) - 1, i + 3)
    proj = LocalProjection(float(lat[i]), float(lon[i]))
    x0, y0 = proj.xy1(float(lat[j0]), float(lon[j0]))
    x1, y1 = proj.xy1(float(lat[j1]), float(lon[j1]))
    heading = math.degrees(math.atan2(x1 - x0, y1 - y0)) % 360
    return Gate(float(lat[i]), float(lon[i]), heading, 20.0)


def gps_crossings(wide: Wide, gate: Gate, min_lap_s: float = MIN_LAP_S) -> list[float]:
    """Times the trace crosses the gate in the direction of travel, interpolated between samples.

    Slow crossings are kept (a pit-lane crossing starts the out lap); only a car standing still
    (GPS jitter) or a GPS gap is ignored."""
    t = wide["t_s"]
    along, across = gate.along_across(wide["lat"], wide["lon"])
    spd = wide.get("speed_kmh")
    a0, a1 = along[:-1], along[1:]
    cand = np.where((a0 < 0) & (a1 >= 0) & np.isfinite(a0) & np.isfinite(a1))[0]
    # a fix repeated on later rows (a slower GPS held between faster channels) is no new position
    fresh = np.isfinite(along) & np.concatenate([[True], np.diff(along) != 0])
    out: list[float] = []
    for i in cand:
        frac = -a0[i] / (a1[i] - a0[i])
        lateral = across[i] + frac * (across[i + 1] - across[i])
        if abs(lateral) > gate.half_width_m:
            continue
        if spd is not None and np.isfinite(spd[i]) and spd[i] < MIN_MOVING_KMH:
            continue
        if t[i + 1] - t[i] > 2.0:  # a GPS gap: no honest interpolation
            continue
        tc = fit_near(t[fresh], along[fresh], float(t[i] + frac * (t[i + 1] - t[i])), t[i], t[i + 1])
        if out and tc - out[-1] < min_lap_s:
            continue
        out.append(tc)
    return out


def detect_laps(
    wide: Wide,
    track: TrackProfile | None,
    beacons_s: list[float] | None = None,
    off_line_s: list[float] | None = None,
) -> list[Lap]:
    """Laps from the logger's boundaries (``beacons_s``) or GPS crossings, under the one lap rule."""
    t = wide["t_s"]
    if len(t) == 0:
        return []
    t0, t1 = float(t[0]), float(t[-1])
    if beacons_s:
        # markers past the data (a file cut short) bound laps that were never recorded
        times = sorted({float(b) for b in beacons_s if t0 + END_TOL_S < b <= t1 + 1.0})
        gate = None
    else:
        gate = gate_for(track) if track is not None else derive_gate(wide)
        if gate is None or "lat" not in wide:
            return [Lap(0, t0, t1, t1 - t0, None, "out", False, "no GPS and no beacons: no lap crossings")]
        times = gps_crossings(wide, gate)
    # a logger marker at (or past) the last sample is the end of the recording, not a crossing
    ends_recording = bool(beacons_s) and bool(times) and times[-1] >= t1 - END_TOL_S
    crossings = times[:-1] if ends_recording else times
    bounds = boundaries_at(wide, crossings)
    judge_boundaries(bounds, frozenset(off_line_s or ()))
    edges: list[Boundary | None] = [None, *bounds]
    t_end = times[-1] if ends_recording else t1
    if not bounds or t_end - bounds[-1].t_s > END_TOL_S:
        edges.append(None)
    return _classify(wide, edges, t0, t_end, track)


def _classify(
    wide: Wide, edges: list[Boundary | None], t0: float, t_end: float, track: TrackProfile | None
) -> list[Lap]:
    t = wide["t_s"]
    spd = wide.get("speed_kmh")
    n = len(edges) - 1
    if n <= 1:
        lp = Lap(0, t0, t_end, round(t_end - t0, 3), None, "out", False, "no lap crossing in the session")
        if spd is not None:
            lp.dist_m = _integrated_distance(t, spd, t0, t_end)
        return [lp]
    laps: list[Lap] = []
    for k in range(n):
        s, e = edges[k], edges[k + 1]
        a = t0 if s is None else s.t_s
        b = t_end if e is None else e.t_s
        kind = lap_kind(s, e)
        dist = _integrated_distance(t, spd, a, b) if spd is not None else None
        laps.append(Lap(k, a, b, round(b - a, 3), dist, kind, kind == "full", not_full_reason(kind, s, e)))
    _validate(laps, wide, track)
    return laps


def _integrated_distance(t: np.ndarray, spd: np.ndarray, a: float, b: float) -> float | None:
    m = (t >= a) & (t <= b)
    if m.sum() < 2:
        return None
    v = np.nan_to_num(spd[m]) / 3.6
    return round(float(np.trapezoid(v, t[m])), 1)


def _validate(laps: list[Lap], wide: Wide, track: TrackProfile | None) -> None:
    full = [lp for lp in laps if lp.kind == "full"]
    if full:
        med = float(np.median([lp.time_s for lp in full]))
        for lp in full:
            if lp.time_s > 1.5 * med:
                lp.valid, lp.invalid_reason = False, f"lap time {lp.time_s:.1f} s is over 1.5x the median"
            elif lp.time_s < 0.8 * med:
                lp.valid, lp.invalid_reason = False, f"lap time {lp.time_s:.1f} s is under 0.8x the median"
    t = wide["t_s"]
    for lp in laps:
        if lp.kind != "full":
            lp.valid = False
            lp.invalid_reason = lp.invalid_reason or f"{lp.kind}-lap"
            continue
        if (
            track is not None
            and lp.dist_m is not None
            and abs(lp.dist_m - track.length_m) > 0.1 * track.length_m
        ):
            lp.valid, lp.invalid_reason = False, f"distance {lp.dist_m:.0f} m is >10% off the track length"
        m = (t >= lp.t_start_s) & (t <= lp.t_end_s)
        if m.sum() > 2 and float(np.max(np.diff(t[m]))) > 2.0:
            lp.valid, lp.invalid_reason = False, "GPS/log gap over 2 s"
        if "lat" in wide:
            lat = wide["lat"][m]
            if len(lat) and np.isnan(lat).mean() > 0.2:
                lp.valid, lp.invalid_reason = False, "GPS missing for over 20% of the lap"


def assign_laps(wide: MutableWide, laps: list[Lap], track: TrackProfile | None = None) -> None:
    """Add ``lap``, ``dist_m`` (distance along the lap) and ``odo_m`` to ``wide`` in place."""
    t = wide["t_s"]
    n = len(t)
    lap = np.zeros(n, dtype=np.float64)
    for lp in laps:
        lap[t >= lp.t_start_s - 1e-9] = lp.lap
    wide["lap"] = lap
    spd = wide.get("speed_kmh")
    v = np.nan_to_num(spd) / 3.6 if spd is not None else np.zeros(n)
    dt = np.diff(t, prepend=t[0])
    odo = np.cumsum(v * dt)
    wide["odo_m"] = odo
    dist = np.zeros(n)
    proj_s = None
    if track is not None and "lat" in wide and np.isfinite(wide["lat"]).mean() > 0.8:
        proj_s, off = track.project(wide["lat"], wide["lon"])
        proj_s[~(off <= ON_LINE_M)] = np.nan
    for lp in laps:
        m = np.where(lap == lp.lap)[0]
        if not len(m):
            continue
        # odometer-based distance from the crossing (interpolated start)
        start_odo = float(np.interp(lp.t_start_s, t, odo))
        d_int = odo[m] - start_odo
        if proj_s is not None and lp.kind == "full":
            d = _unwrap_projection(proj_s[m], d_int, odo[m], t[m], track.length_m if track else 0.0)
        else:
            d = d_int
            if lp.kind == "full" and lp.dist_m and track is not None:
                d = d * (track.length_m / lp.dist_m)
        dist[m] = np.maximum.accumulate(np.clip(np.nan_to_num(d, nan=0.0), 0.0, None))
    wide["dist_m"] = dist


def _unwrap_projection(
    s: np.ndarray, d_int: np.ndarray, odo: np.ndarray, t: np.ndarray, length: float
) -> np.ndarray:
    """Track projection made continuous within one lap, under the live tracker's rule: samples off
    the line (NaN) follow the odometer between the samples on it either side (carried on from the
    one on it before or after at the ends; the odometer when none is), and distance moves at most
    ``CATCH_UP_MPS`` faster or slower than the odometer."""
    s = s.copy()
    q1, q3 = length / 4, 3 * length / 4
    s[(s > q3) & (d_int < q1)] -= length  # just after the line, projection says ~length
    s[(s < q1) & (d_int > q3)] += length  # just before the next crossing
    good = np.isfinite(s)
    if not good.any():
        return d_int.copy()
    if not good.all():
        gi = np.where(good)[0]
        inside = np.interp(odo, odo[gi], s[gi])
        before = s[gi[0]] + (odo - odo[gi[0]])
        after = s[gi[-1]] + (odo - odo[gi[-1]])
        idx = np.arange(len(s))
        s = np.where(good, s, np.where(idx < gi[0], before, np.where(idx > gi[-1], after, inside)))
    out = s.tolist()
    do, dt = np.diff(odo).tolist(), np.diff(t).tolist()
    for i in range(1, len(out)):
        slack = CATCH_UP_MPS * dt[i - 1]
        out[i] = min(max(out[i], out[i - 1] + do[i - 1] - slack), out[i - 1] + do[i - 1] + slack)
    return np.asarray(out)

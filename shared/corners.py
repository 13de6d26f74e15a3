"""Per-corner results for each lap, and corner detection for tracks Pitwall has no profile for."""

from __future__ import annotations

import numpy as np

from shared.geo import LocalProjection
from shared.laps import Lap
from shared.profiles.track import Corner
from shared.signals import Wide

BRAKE_ON_BAR = 5.0
BRAKE_MIN_PEAK_BAR = 15.0  # a zone that never reaches this is a brush of the pedal, not a brake point
BRAKE_ON_G = -0.3
BRAKE_ONSET_BAR = 1.0  # above the resting reading: the pressure has started to rise
BRAKE_ONSET_G = -0.1
THROTTLE_ON_PCT = 20.0
BRAKE_LOOKBACK_M = 300.0


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[first, last] index pairs of the true runs in ``mask``."""
    m = np.concatenate([[False], mask, [False]]).astype(np.int8)
    d = np.diff(m)
    return list(zip(np.where(d == 1)[0].tolist(), (np.where(d == -1)[0] - 1).tolist(), strict=True))


def _lap_arrays(wide: Wide, lap: int) -> dict[str, np.ndarray] | None:
    m = wide["lap"] == lap
    if m.sum() < 5:
        return None
    out = {k: v[m] for k, v in wide.items() if isinstance(v, np.ndarray) and len(v) == len(m)}
    d = out["dist_m"]
    # distances are non-decreasing within a lap; make them strictly increasing for interpolation
    out["dist_m"] = d + np.arange(len(d)) * 1e-6
    return out


def _interp(d: np.ndarray, v: np.ndarray | None, at: float) -> float | None:
    if v is None:
        return None
    ok = np.isfinite(v)
    if ok.sum() < 2 or at < d[0] or at > d[-1]:
        return None
    return float(np.interp(at, d[ok], v[ok]))


def resting_bar(pressure: np.ndarray) -> float:
    """The brake pressure sensor's resting reading (its offset) over a stretch: the 10th percentile of its
    finite samples."""
    return float(np.nanpercentile(pressure, 10))


def brake_zone(a: dict[str, np.ndarray], zone_start: float, apex: float) -> tuple[float | None, float | None]:
    """(brake point, peak pressure) of the braking zone that belongs to the corner: the last substantial
    zone before the apex (an earlier zone belongs to a bend before, or is a dab), its start where the
    pressure first rises above the sensor's resting level. Without a pressure channel, deceleration."""
    d = a["dist_m"]
    win = (d >= zone_start) & (d <= apex)
    brake, glong = a.get("brake_bar"), a.get("g_long")
    pressure = brake is not None and bool(np.isfinite(brake[win]).any())
    if brake is not None and pressure:
        level = np.nan_to_num(brake, nan=0.0)
        rest = resting_bar(brake[win])
        on, onset, need = rest + BRAKE_ON_BAR, rest + BRAKE_ONSET_BAR, rest + BRAKE_MIN_PEAK_BAR
    elif glong is not None and np.isfinite(glong[win]).any():
        level = -np.nan_to_num(glong, nan=0.0)
        on, onset, need = -BRAKE_ON_G, -BRAKE_ONSET_G, -BRAKE_ON_G
    else:
        return None, None
    runs = [r for r in _runs(win & (level > on)) if float(np.max(level[r[0] : r[1] + 1])) >= need]
    if not runs:
        return None, None
    first, last = runs[-1]
    # merge an earlier run that ends less than 15 m before this one (a brief release)
    for r0, r1 in reversed(runs[:-1]):
        if d[first] - d[r1] < 15:
            first = r0
        else:
            break
    lo = int(np.argmax(win))
    while first > lo and level[first - 1] > onset and level[first - 1] <= level[first] + 1e-9:
        first -= 1  # back to where the pressure first rose
    peak = float(np.nanmax(brake[first : last + 1])) if brake is not None and pressure else None
    return float(d[first]), peak


def corner_metrics(
    a: dict[str, np.ndarray], c: Corner, prev_end_m: float | None = None
) -> dict[str, float | None] | None:
    """Entry/min/exit speed, apex, brake point, peak brake, throttle pickup and time for one corner."""
    d = a["dist_m"]
    spd = a.get("speed_kmh")
    if spd is None or d[-1] < c.end_m or d[0] > c.start_m:
        return None
    inside = (d >= c.start_m) & (d <= c.end_m) & np.isfinite(spd)
    if inside.sum() < 2:
        return None
    idx = np.where(inside)[0]
    k_min = int(idx[np.argmin(spd[idx])])
    apex = float(d[k_min])
    zone_start = c.start_m - BRAKE_LOOKBACK_M
    if prev_end_m is not None and prev_end_m < c.start_m:
        zone_start = max(zone_start, prev_end_m)
    brake_point, brake_peak = brake_zone(a, zone_start, apex)
    thr = a.get("throttle_pct")
    pickup = None
    if thr is not None:
        after = np.where((d >= apex) & (np.nan_to_num(thr) > THROTTLE_ON_PCT))[0]
        if len(after):
            pickup = float(d[after[0]])
    t = a["t_s"]
    t_in, t_out = _interp(d, t, c.start_m), _interp(d, t, c.end_m)
    glat = a.get("g_lat")
    entry, exit_ = _interp(d, spd, c.start_m), _interp(d, spd, c.end_m)
    # the minimum of the speed trace over [start, end], its ends included: entry and exit are read
    # between samples, so the slowest sample inside alone can be faster than the car at the entry line
    low = min(v for v in (float(spd[k_min]), entry, exit_) if v is not None)
    return {
        "entry_kmh": entry,
        "min_kmh": low,
        "exit_kmh": exit_,
        "apex_m": apex,
        "brake_point_m": brake_point,
        "brake_peak_bar": brake_peak,
        "throttle_pickup_m": pickup,
        "time_s": (t_out - t_in) if t_in is not None and t_out is not None else None,
        "max_g_lat": float(np.nanmax(np.abs(glat[inside])))
        if glat is not None and np.isfinite(glat[inside]).any()
        else None,
    }


def corner_results(wide: Wide, laps: list[Lap], corners: list[Corner]) -> list[dict[str, object]]:
    """One row per (lap, corner) for the ``corner_results`` table."""
    rows: list[dict[str, object]] = []
    for lp in laps:
        a = _lap_arrays(wide, lp.lap)
        if a is None:
            continue
        prev_end: float | None = None
        for c in sorted(corners, key=lambda c: c.start_m):
            m = corner_metrics(a, c, prev_end)
            prev_end = c.end_m
            if m is None:
                continue
            rows.append(corner_result_row(lp.lap, c, m))
    return rows


def corner_result_row(lap: int, c: Corner, metrics: dict[str, float | None]) -> dict[str, object]:
    """One ``corner_results`` row (without ``session_id``): the corner's identity plus its metrics on
    ``lap``; the importer and the hot path both store this shape."""
    return {
        "lap": lap,
        "corner_id": c.id,
        "corner_name": c.name,
        "seq": c.seq,
        "direction": c.direction,
        "start_m": c.start_m,
        "end_m": c.end_m,
        **metrics,
    }


# corners of a track Pitwall has no profile for, from the driven line
CURVE_STEP_M = 2.0  # resampling step of the reference lap
CURVE_SMOOTH_M = 30.0  # heading smoothing window (GPS noise, steering corrections)
CURVE_ON_RAD_M = 1 / 300.0  # curvature that makes a bend (radius under ~300 m)
CORNER_MIN_TURN_DEG = 25.0  # a bend turning less than this in total is a kink, not a corner
CORNER_MERGE_M = 25.0  # same-direction bends closer than this are one corner (a double apex)
CORNER_PAD_M = 30.0  # a corner zone reaches this far before and after its bend (the entry and the exit)


def reference_lap(laps: list[Lap]) -> Lap | None:
    """The lap the driven line is read from: the fastest valid full lap, else any full lap, else the
    longest segment (a run with no lap crossing)."""
    full = [lp for lp in laps if lp.kind == "full"]
    good = [lp for lp in full if lp.valid] or full
    if good:
        return min(good, key=lambda lp: lp.time_s)
    return max(laps, key=lambda lp: lp.time_s) if laps else None


def _line_on_grid(wide: Wide, lap: Lap) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(lap distance, x, y, speed) of one lap on a regular distance grid; None without GPS."""
    a = _lap_arrays(wide, lap.lap)
    if a is None or "lat" not in a or "lon" not in a:
        return None
    ok = np.isfinite(a["lat"]) & np.isfinite(a["lon"])
    if ok.sum() < 20:
        return None
    d = a["dist_m"][ok]
    proj = LocalProjection(float(np.median(a["lat"][ok])), float(np.median(a["lon"][ok])))
    x, y = proj.xy(a["lat"][ok], a["lon"][ok])
    grid = np.arange(float(d[0]), float(d[-1]), CURVE_STEP_M)
    if len(grid) < 20:
        return None
    spd = a.get("speed_kmh")
    v = np.full(len(grid), np.nan)
    if spd is not None and np.isfinite(spd).sum() >= 2:
        okv = np.isfinite(spd)
        v = np.interp(grid, a["dist_m"][okv], spd[okv])
    return grid, np.interp(grid, d, x), np.interp(grid, d, y), v


def _smooth(v: np.ndarray, n: int) -> np.ndarray:
    if n <= 1 or len(v) < n:
        return v
    pad = np.concatenate([np.full(n, v[0]), v, np.full(n, v[-1])])
    return np.convolve(pad, np.ones(n) / n, mode="same")[n:-n]


def curvature(x: np.ndarray, y: np.ndarray, step_m: float = CURVE_STEP_M) -> np.ndarray:
    """Signed curvature (rad/m) of a line sampled every ``step_m``: positive turning right
    (compass heading increasing), from the smoothed heading."""
    n = max(1, int(round(CURVE_SMOOTH_M / step_m)))
    xs, ys = _smooth(x, n), _smooth(y, n)
    heading = np.unwrap(np.arctan2(np.gradient(xs), np.gradient(ys)))  # compass: from north, clockwise
    return _smooth(np.gradient(heading) / step_m, n)


def bends(kappa: np.ndarray, step_m: float = CURVE_STEP_M) -> list[tuple[int, int, int]]:
    """(first, last, sign) index runs where the line curves one way enough to be a corner:
    runs over ``CURVE_ON_RAD_M``, same-direction runs merged across short straights, and only those
    turning ``CORNER_MIN_TURN_DEG`` in total kept."""
    runs: list[tuple[int, int, int]] = []
    for sign in (1, -1):
        for a, b in _runs(sign * kappa > CURVE_ON_RAD_M):
            runs.append((a, b, sign))
    runs.sort()
    merged: list[tuple[int, int, int]] = []
    for a, b, sign in runs:
        if merged and merged[-1][2] == sign and (a - merged[-1][1]) * step_m <= CORNER_MERGE_M:
            merged[-1] = (merged[-1][0], b, sign)
        else:
            merged.append((a, b, sign))
    min_turn = np.radians(CORNER_MIN_TURN_DEG)
    return [(a, b, s) for a, b, s in merged if abs(float(np.sum(kappa[a : b + 1])) * step_m) >= min_turn]


def auto_corners(wide: Wide, laps: list[Lap]) -> list[Corner]:
    """Corners of a track without a profile, from the driven line of the reference lap: heading
    change and curvature, merged and split by direction, each with its slowest point as the apex
    (the point of greatest curvature without speed) and its direction, named C1..Cn in driving
    order from the start/finish line."""
    ref = reference_lap(laps)
    if ref is None:
        return []
    line = _line_on_grid(wide, ref)
    if line is None:
        return []
    grid, x, y, v = line
    kappa = curvature(x, y)
    found = bends(kappa)
    corners: list[Corner] = []
    total = len(found)
    for n, (a, b, sign) in enumerate(found, start=1):
        # the apex: the slowest point of the bend's core (where it curves at least half its tightest),
        # so braking for the next corner at the end of a long bend does not pull the apex there
        bend = np.abs(kappa[a : b + 1])
        core = a + np.where(bend >= 0.5 * bend.max())[0]
        slow = np.isfinite(v[core]).any()
        k = int(core[int(np.nanargmin(v[core]))]) if slow else a + int(np.argmax(bend))
        prev_end = corners[-1].end_m if corners else float(grid[0])
        next_start = float(grid[found[n][0]]) if n < total else float(grid[-1])
        start = max(float(grid[a]) - CORNER_PAD_M, prev_end, float(grid[0]))
        end = min(float(grid[b]) + CORNER_PAD_M, (float(grid[b]) + next_start) / 2, float(grid[-1]))
        corners.append(
            Corner(
                id=f"c{n}",
                name=f"Corner {n}",
                short=f"C{n}",
                seq=n,
                start_m=round(start, 1),
                apex_m=round(float(grid[k]), 1),
                end_m=round(max(end, float(grid[k])), 1),
                direction="right" if sign > 0 else "left",
                leverage=round(1.0 / max(1, total), 3),
            )
        )
    return corners

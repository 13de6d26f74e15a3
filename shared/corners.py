"""Per-corner results for each lap, and corner detection for tracks Pitwall has no profile for."""

from __future__ import annotations

import numpy as np

from shared.laps import Lap
from shared.profiles.track import Corner

Wide = dict[str, np.ndarray]

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


def _brake_zone(
    a: dict[str, np.ndarray], zone_start: float, apex: float
) -> tuple[float | None, float | None]:
    """(brake point, peak pressure) of the braking zone that belongs to the corner: the last substantial
    zone before the apex (an earlier zone belongs to a bend before, or is a dab), its start where the
    pressure first rises above the sensor's resting level. Without a pressure channel, deceleration."""
    d = a["dist_m"]
    win = (d >= zone_start) & (d <= apex)
    brake, glong = a.get("brake_bar"), a.get("g_long")
    pressure = brake is not None and bool(np.isfinite(brake[win]).any())
    if brake is not None and pressure:
        level = np.nan_to_num(brake, nan=0.0)
        rest = float(np.nanpercentile(brake[win], 10))  # the resting reading (sensor offset)
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
    brake_point, brake_peak = _brake_zone(a, zone_start, apex)
    thr = a.get("throttle_pct")
    pickup = None
    if thr is not None:
        after = np.where((d >= apex) & (np.nan_to_num(thr) > THROTTLE_ON_PCT))[0]
        if len(after):
            pickup = float(d[after[0]])
    t = a["t_s"]
    t_in, t_out = _interp(d, t, c.start_m), _interp(d, t, c.end_m)
    glat = a.get("g_lat")
    return {
        "entry_kmh": _interp(d, spd, c.start_m),
        "min_kmh": float(spd[k_min]),
        "exit_kmh": _interp(d, spd, c.end_m),
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
            rows.append(
                {
                    "lap": lp.lap,
                    "corner_id": c.id,
                    "corner_name": c.name,
                    "seq": c.seq,
                    "direction": c.direction,
                    "start_m": c.start_m,
                    "end_m": c.end_m,
                    **m,
                }
            )
    return rows


def auto_corners(
    wide: Wide, laps: list[Lap], min_drop_kmh: float = 8.0, merge_m: float = 50.0
) -> list[Corner]:
    """Corners of an unknown track: speed minima (with a real slow-down) on the fastest valid lap."""
    cands = [lp for lp in laps if lp.kind == "full" and lp.valid] or [lp for lp in laps if lp.kind == "full"]
    if not cands:
        return []
    ref = min(cands, key=lambda lp: lp.time_s)
    a = _lap_arrays(wide, ref.lap)
    if a is None or "speed_kmh" not in a:
        return []
    d = a["dist_m"]
    grid = np.arange(0.0, float(d[-1]), 5.0)
    ok = np.isfinite(a["speed_kmh"])
    v = np.interp(grid, d[ok], a["speed_kmh"][ok])
    v = np.convolve(v, np.ones(5) / 5, mode="same")
    w = 40  # 200 m either side
    minima: list[int] = []
    for i in range(1, len(v) - 1):
        lo, hi = max(0, i - w), min(len(v), i + w + 1)
        if (
            v[i] == v[lo:hi].min()
            and (v[lo:i].max(initial=v[i]) - v[i] >= min_drop_kmh)
            and (v[i:hi].max(initial=v[i]) - v[i] >= min_drop_kmh)
        ):
            if minima and grid[i] - grid[minima[-1]] < merge_m:
                continue
            minima.append(i)
    glat = a.get("g_lat")
    corners: list[Corner] = []
    for n, i in enumerate(minima, start=1):
        apex = float(grid[i])
        prev_apex = float(grid[minima[n - 2]]) if n > 1 else -1e9
        next_apex = float(grid[minima[n]]) if n < len(minima) else 1e9
        start = max(apex - 80.0, (prev_apex + apex) / 2, 0.0)
        end = min(apex + 80.0, (apex + next_apex) / 2, float(d[-1]))
        direction = None
        if glat is not None:
            k = int(np.argmin(np.abs(d - apex)))
            g = glat[max(0, k - 3) : k + 4]
            if np.isfinite(g).any():
                direction = "right" if np.nanmean(g) > 0 else "left"
        corners.append(
            Corner(
                id=f"c{n}",
                name=f"Corner {n}",
                short=f"C{n}",
                seq=n,
                start_m=round(start, 1),
                apex_m=round(apex, 1),
                end_m=round(end, 1),
                direction=direction,  # type: ignore[arg-type]
                leverage=round(1.0 / max(1, len(minima)), 3),
            )
        )
    return corners

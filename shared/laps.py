"""The one lap rule, shared by a recording's laps (``shared.laps_recorded``) and the hot path's streaming
tracker (``shared.laps_live``): the start/finish gate, a crossing fitted to the GPS fixes, each boundary judged
on-track or not, and the lap kind it makes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from shared.geo import LocalProjection
from shared.profiles.track import TrackProfile
from shared.signals import Wide

MIN_LAP_S = 20.0
MIN_CROSS_KMH = 30.0  # the live tracker ignores slower gate crossings
MIN_MOVING_KMH = 5.0  # below this a "crossing" is GPS jitter of a car standing still
PIT_SPEED_RATIO = 0.6  # a crossing below this share of the typical crossing speed is in the pit lane
OFF_LINE_M = 12.0  # a crossing further than this from the racing line's crossing point is beside it
AWAY_M = 50.0  # a boundary further than this along the track from the line is no crossing of it
SPEED_FIT_S = 1.5  # with the speed giving the path's shape, the fixes this long either side are fitted
FIT_S = 0.3  # a line crossing is fitted to the GPS fixes this long either side of it (noise averages out)
ON_LINE_M = 20.0  # GPS further than this from the track's line is not projected onto it: distance
# is carried on from the last point on the line by the speed (a GPS glitch, a wrong line, a run-off)
NEAR_M = 30.0  # live: the line is searched this far either side of the last distance, plus a fifth of
# the distance carried on by speed since the last point on the line (everywhere after LOST_M of it)
LOST_M = 400.0
CATCH_UP_MPS = 8.0  # live distance moves at most this much faster or slower than the speed says, so
# a projection that disagrees with the speed (back on the line after an excursion) is caught up smoothly


@dataclass
class Lap:
    lap: int
    t_start_s: float
    t_end_s: float
    time_s: float
    dist_m: float | None
    kind: str  # out | full | in
    valid: bool
    invalid_reason: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class Gate:
    """A start/finish line: a point, the direction of travel across it, and a half width."""

    lat: float
    lon: float
    heading_deg: float
    half_width_m: float = 25.0

    def __post_init__(self) -> None:
        self.proj = LocalProjection(self.lat, self.lon)
        h = math.radians(self.heading_deg)
        self.hx, self.hy = math.sin(h), math.cos(h)  # unit vector along travel (x east, y north)

    def along_across(self, lat: np.ndarray, lon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = self.proj.xy(lat, lon)
        return x * self.hx + y * self.hy, -x * self.hy + y * self.hx


def gate_for(track: TrackProfile) -> Gate:
    sf = track.start_finish
    return Gate(sf.lat, sf.lon, sf.heading_deg, sf.half_width_m)


def fit_crossing(ts: Sequence[float], along: Sequence[float], lo: float, hi: float) -> float | None:
    """When ``along`` (metres past the line) reaches 0: a straight line fitted to the fixes (least
    squares, so GPS noise averages out over several fixes instead of deciding the crossing from two),
    kept within ``lo``..``hi``; None with under three fixes or no forward motion."""
    n = len(ts)
    if n >= 3:
        mt = sum(ts) / n
        ma = sum(along) / n
        sxx = sum((t - mt) ** 2 for t in ts)
        sxy = sum((t - mt) * (a - ma) for t, a in zip(ts, along, strict=True))
        if sxx > 0 and sxy > 0:
            return min(hi, max(lo, mt - ma * sxx / sxy))
    return None


def fit_near(
    ts: np.ndarray, along: np.ndarray, t_near: float, t0: float, t1: float, odo: np.ndarray | None = None
) -> float:
    """The crossing first put at ``t_near`` between the fixes at ``t0`` and ``t1``, fitted to the fixes
    (``ts``, ``along``: fresh fixes only) within ``FIT_S`` of it and kept near those two (``FIT_S / 3``).
    The one fit of a line crossing: lap boundaries (import and live) and the achievable lap's gates.
    ``odo`` (metres driven at each fix, from the speed): the path's shape is the speed's, only where it
    is along the line is fitted, over ``SPEED_FIT_S`` (more fixes, so less of their noise)."""
    lo, hi = float(t0) - FIT_S / 3, float(t1) + FIT_S / 3
    if odo is not None:
        near = (np.abs(ts - t_near) <= SPEED_FIT_S) & np.isfinite(odo)
        o, a, tt = odo[near], along[near], ts[near]
        if len(o) >= 3 and bool((np.diff(o) > 0).all()):
            return min(hi, max(lo, float(np.interp(float(np.mean(o - a)), o, tt))))
    near = np.abs(ts - t_near) <= FIT_S
    got = fit_crossing(ts[near].tolist(), along[near].tolist(), lo, hi)
    return float(t_near) if got is None else float(got)


def fitted_crossing(fixes: Sequence[tuple[float, float, float]], t_near: float) -> float:
    """A crossing near ``t_near`` fitted to the fixes ``(t, along, across)`` within ``FIT_S`` of it."""
    near = [f for f in fixes if abs(f[0] - t_near) <= FIT_S]
    before = [f for f in near if f[0] <= t_near]
    after = [f for f in near if f[0] > t_near]
    if not before or not after:
        return t_near
    ts = np.array([f[0] for f in near])
    return fit_near(ts, np.array([f[1] for f in near]), t_near, before[-1][0], after[0][0])


@dataclass
class Boundary:
    """A lap boundary (a logger beacon or a GPS crossing) and where and how fast the car crossed it."""

    t_s: float
    speed_kmh: float | None = None
    xy: tuple[float, float] | None = None  # crossing point, local metres (x east, y north)
    travel: tuple[float, float] | None = None  # unit direction of travel there
    on_track: bool = True
    reason: str | None = None


def _at(t: np.ndarray, v: np.ndarray | None, at: float) -> float | None:
    """``v`` interpolated at time ``at`` from its finite samples, or None (no reading within 2 s)."""
    if v is None:
        return None
    ok = np.isfinite(v)
    if ok.sum() < 2:
        return None
    tt = t[ok]
    k = int(np.searchsorted(tt, at))
    near = min(abs(tt[min(k, len(tt) - 1)] - at), abs(tt[max(k - 1, 0)] - at))
    if near > 2.0:
        return None
    return float(np.interp(at, tt, v[ok]))


def boundaries_at(wide: Wide, times: list[float]) -> list[Boundary]:
    """Speed and GPS position of the car at each boundary time."""
    t = wide["t_s"]
    lat, lon, spd = wide.get("lat"), wide.get("lon"), wide.get("speed_kmh")
    proj = None
    if lat is not None and lon is not None and np.isfinite(lat).any() and np.isfinite(lon).any():
        proj = LocalProjection(float(np.nanmedian(lat)), float(np.nanmedian(lon)))
    out = []
    for tb in times:
        b = Boundary(float(tb), _at(t, spd, tb))
        la, lo = _at(t, lat, tb), _at(t, lon, tb)
        if proj is not None and la is not None and lo is not None:
            b.xy = proj.xy1(la, lo)
            a0, o0, a1, o1 = (
                _at(t, lat, tb - 0.5),
                _at(t, lon, tb - 0.5),
                _at(t, lat, tb + 0.5),
                _at(t, lon, tb + 0.5),
            )
            if a0 is not None and o0 is not None and a1 is not None and o1 is not None:
                (x0, y0), (x1, y1) = proj.xy1(a0, o0), proj.xy1(a1, o1)
                n = math.hypot(x1 - x0, y1 - y0)
                if n > 0.5:  # moving: a direction worth having
                    b.travel = ((x1 - x0) / n, (y1 - y0) / n)
        out.append(b)
    return out


def judge_boundaries(bounds: list[Boundary], off_line: frozenset[float] = frozenset()) -> None:
    """Mark each boundary on-track or not, in place: the one lap rule's test of a crossing.

    A crossing is in the pit lane (or not a crossing at all) when it is well below the session's
    typical crossing speed (``PIT_SPEED_RATIO`` of the upper-quartile crossing speed) or more than
    ``OFF_LINE_M`` from the point where the racing line crosses the line (the median crossing point
    of the fast crossings). ``off_line`` holds times the logger itself placed away from the line."""
    speeds = [b.speed_kmh for b in bounds if b.speed_kmh is not None]
    typical = float(np.percentile(speeds, 75)) if speeds else None
    for b in bounds:
        if any(abs(b.t_s - x) < 0.002 for x in off_line):
            b.on_track, b.reason = False, "the logger places this lap end away from the line"
        elif typical is not None and b.speed_kmh is not None and b.speed_kmh < PIT_SPEED_RATIO * typical:
            b.on_track = False
            b.reason = f"crossed at {b.speed_kmh:.0f} km/h, typical {typical:.0f} km/h: pit lane"
    fast = [b for b in bounds if b.on_track and b.xy is not None]
    if not fast:
        return
    cx, cy = np.median(np.array([b.xy for b in fast]), axis=0)
    dirs = [b.travel for b in fast if b.travel is not None]
    hx, hy = np.median(np.array(dirs), axis=0) if dirs else (0.0, 0.0)
    norm = math.hypot(hx, hy)
    for b in bounds:
        if not b.on_track or b.xy is None:
            continue
        dx, dy = b.xy[0] - cx, b.xy[1] - cy
        # beside: across the direction of travel; away: along it (a lap end short of the line)
        across, along = (
            (abs(dx * hy - dy * hx) / norm, abs(dx * hx + dy * hy) / norm)
            if norm
            else (math.hypot(dx, dy), 0.0)
        )
        if across > OFF_LINE_M:
            b.on_track, b.reason = False, f"crossed {across:.0f} m beside the racing line"
        elif along > AWAY_M:
            b.on_track, b.reason = False, f"{along:.0f} m from the start/finish line"


def lap_kind(start: Boundary | None, end: Boundary | None) -> str:
    """``full`` only between two on-track crossings; a pit-lane start or the start of the recording
    makes the ``out`` lap; an end away from the line or at the end of the recording makes ``in``
    (the end of the recording wins: the last segment is the in lap even after a pit-lane crossing)."""
    if end is None:
        return "in"
    if start is None or not start.on_track:
        return "out"
    if not end.on_track:
        return "in"
    return "full"


def not_full_reason(kind: str, start: Boundary | None, end: Boundary | None) -> str | None:
    """Why a lap is not ``full``: its kind and the crossing that made it so (None for a full lap)."""
    if kind == "full":
        return None
    edge = start if kind == "out" else end
    why = edge.reason if edge is not None else None
    return f"{kind}-lap" + (f": {why}" if why else "")

"""The hot path's streaming lap tracker: one call per frame (``feed``) or per run of frames (``feed_many``),
line crossings fitted as the import fits them, lap distance from GPS projected onto the track's line."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.crossing_judge import CrossingJudge
from shared.laps import (
    CATCH_UP_MPS,
    FIT_S,
    LOST_M,
    MIN_LAP_S,
    MIN_MOVING_KMH,
    NEAR_M,
    ON_LINE_M,
    Boundary,
    Lap,
    fitted_crossing,
    gate_for,
    lap_kind,
    not_full_reason,
)
from shared.laps_live_near import NearBands
from shared.profiles.track import Corner, TrackProfile


@dataclass
class LiveLapState:
    lap: int
    dist_m: float
    crossed: Lap | None  # the lap that just closed, on the frame that closed it
    corner: Corner | None
    next_corner: Corner | None
    dist_to_next_corner_m: float
    # "track": GPS projected onto the track's line; "speed": carried on by the speed from the last
    # point on the line (GPS missing or over ON_LINE_M off it); "odometer": no track profile
    dist_source: str = "track"


class LiveLapTracker:
    """Streaming lap tracker: one call per frame, scalar math only, no I/O."""

    def __init__(self, track: TrackProfile | None, min_lap_s: float = MIN_LAP_S) -> None:
        self.track = track
        self.gate = gate_for(track) if track is not None else None
        self._length_m = track.length_m if track is not None else 0.0
        self._line_len = track.line.length if track is not None else 0.0
        self.min_lap_s = min_lap_s
        self.lap = 0
        self.lap_start_t: float | None = None
        self.last_t: float | None = None
        self._fixes: deque[tuple[float, float, float]] = deque()  # (t, along, across) of recent GPS fixes
        self._fix_ll: tuple[float | None, float | None] = (None, None)
        self._pending: tuple[float, float, float] | None = None  # a crossing seen: (time, speed, lateral)
        self.odo = 0.0
        self.lap_odo0 = 0.0
        self.s_hint: float | None = None
        self.dist = 0.0
        self._since_fix = 0.0  # metres carried on by speed since the last GPS point on the line
        self._odo_at_dist: float | None = None  # odometer when self.dist was last set
        self.last_cross_t = -math.inf
        self.best_lap_s: float | None = None
        self.start_edge: Boundary | None = None  # the crossing that started the current lap
        self.crossings = CrossingJudge()  # each crossing judged against the on-track ones so far
        self.off_m = 0.0  # the last fix's distance from the track's line
        # lap -> session time it left the track's line at pit-lane speed: the pit lane, so an in-lap
        self.pit_at: dict[int, float] = {}

    def feed(self, t_s: float, lat: float | None, lon: float | None, speed_kmh: float | None) -> LiveLapState:
        have_gps = lat is not None and lon is not None and math.isfinite(lat) and math.isfinite(lon)
        # a fix repeated on later frames (a slower GPS held between frames) is no new position
        new_fix = have_gps and (lat, lon) != self._fix_ll
        along = across = x = y = 0.0
        if new_fix:
            if self.gate is not None:
                g = self.gate
                gx, gy = g.proj.xy1(lat, lon)  # type: ignore[arg-type]
                along = gx * g.hx + gy * g.hy
                across = -gx * g.hy + gy * g.hx
            if self.track is not None:
                x, y = self.track.proj.xy1(lat, lon)  # type: ignore[arg-type]
        crossed, source = self._step(
            t_s, lat, lon, speed_kmh, have_gps, new_fix, along, across, x, y, self._near
        )
        corner = nxt = None
        to_next = math.inf
        if self.track is not None:
            corner = self.track.corner_at(self.dist)
            nxt, to_next = self.track.next_corner(self.dist)
        return LiveLapState(self.lap, self.dist, crossed, corner, nxt, to_next, source)

    def feed_many(
        self, t: np.ndarray, lat: np.ndarray | None, lon: np.ndarray | None, speed: list[float | None]
    ) -> tuple[list[int], list[float], dict[int, Lap], str]:
        """``feed`` over a run of frames (the same state, step by step): each frame's lap and distance,
        the laps closed (by frame index) and the last frame's distance source. ``lat``/``lon``: the
        frames' fixes as float arrays (NaN: none; None: no GPS at all). Where corners are is left to the
        caller (``corner_at``/``next_corner`` on the distances). The gate and track projections of all
        fixes are computed at once; the search near the last distance reads them from a ``NearBand``."""
        n = len(t)
        ts = t.tolist()
        px = py = None
        if lat is None or lon is None:
            lats: list[float | None] = [None] * n
            lons: list[float | None] = [None] * n
            ok = [False] * n
            along = across = xs = ys = [0.0] * n
        else:
            lats, lons = lat.tolist(), lon.tolist()
            ok = (np.isfinite(lat) & np.isfinite(lon)).tolist()
            along = across = [0.0] * n
            if self.gate is not None:
                g = self.gate
                gx, gy = g.proj.xy(lat, lon)
                along = (gx * g.hx + gy * g.hy).tolist()
                across = ((-gx) * g.hy + gy * g.hx).tolist()
            xs = ys = [0.0] * n
            if self.track is not None:
                px, py = self.track.proj.xy(lat, lon)
                xs, ys = px.tolist(), py.tolist()
        band = (
            NearBands(self.track, px, py, t, speed)
            if self.track is not None and px is not None and py is not None
            else None
        )
        near = band.near if band is not None else self._near
        laps: list[int] = [0] * n
        dists: list[float] = [0.0] * n
        crossed_at: dict[int, Lap] = {}
        source = "track"
        step = self._step
        for i in range(n):
            la, lo = lats[i], lons[i]
            have = ok[i]
            new_fix = have and (la, lo) != self._fix_ll
            if band is not None:
                band.i = i
            crossed, source = step(
                ts[i], la, lo, speed[i], have, new_fix, along[i], across[i], xs[i], ys[i], near
            )
            if crossed is not None:
                crossed_at[i] = crossed
            laps[i] = self.lap
            dists[i] = self.dist
        return laps, dists, crossed_at, source

    def _near(self, x: float, y: float, s_hint: float, window_m: float) -> tuple[float, float]:
        assert self.track is not None
        return self.track.line.project_near(x, y, s_hint, window_m=window_m, widen=False)

    def _step(
        self,
        t_s: float,
        lat: float | None,
        lon: float | None,
        speed_kmh: float | None,
        have_gps: bool,
        new_fix: bool,
        along: float,
        across: float,
        x: float,
        y: float,
        near: Any,
    ) -> tuple[Lap | None, str]:
        """One frame: the odometer, the gate (``along``/``across`` of a new fix), a pending crossing, the
        distance (``x``/``y``: the new fix on the track's projection; ``near``: project_near)."""
        crossed: Lap | None = None
        if self.lap_start_t is None:
            self.lap_start_t = t_s
        dt = 0.0 if self.last_t is None else t_s - self.last_t
        dt = dt if dt > 0.0 else 0.0  # max(0.0, dt)
        v = (speed_kmh or 0.0) / 3.6
        self.odo += v * dt
        if new_fix and self.gate is not None:
            g = self.gate
            fixes = self._fixes
            if self._pending is None and fixes and fixes[-1][1] < 0 <= along:
                t0, a0, c0 = fixes[-1]
                frac = -a0 / (along - a0) if along != a0 else 0.0
                lateral = c0 + frac * (across - c0)
                tc = t0 + frac * (t_s - t0)
                moving = (speed_kmh or 0.0) >= MIN_MOVING_KMH
                if (
                    abs(lateral) <= g.half_width_m
                    and moving
                    and tc - self.last_cross_t >= self.min_lap_s
                    and t_s - t0 <= 2.0
                ):
                    self._pending = (tc, speed_kmh or 0.0, lateral)
            fixes.append((t_s, along, across))
            while fixes[0][0] < t_s - 2 * FIT_S:
                fixes.popleft()
        pend = self._pending
        if pend is not None and (t_s >= pend[0] + FIT_S or not have_gps):
            # the crossing is fitted to the fixes either side of it, so the lap closes FIT_S after the line
            self._pending = None
            tc = fitted_crossing(self._fixes, pend[0])
            crossed = self._close(tc, t_s, v, self.crossings.judge(tc, pend[1], pend[2]))
        self.last_t = t_s
        # a fix held on later frames (a slower GPS) is no new position: distance moves on by the speed
        self.dist, source = self._distance(
            x, y, new_fix, v * dt if speed_kmh is not None else None, dt, self.odo - self.lap_odo0, near
        )
        if new_fix:
            self._fix_ll = (lat, lon)
            off = self.off_m > ON_LINE_M and self.lap not in self.pit_at
            if off and speed_kmh is not None and speed_kmh < self.crossings.pit_kmh():
                self.pit_at[self.lap] = t_s
        return crossed, source

    def _close(self, tc: float, t_now: float, v: float, edge: Boundary) -> Lap:
        start = self.lap_start_t if self.lap_start_t is not None else tc
        self.crossings.rejudge_first(self.start_edge, edge)
        kind = lap_kind(self.start_edge, edge)
        odo_tc = self.odo - v * (t_now - tc)  # the lap closes FIT_S after the line: back to it
        lap = Lap(
            self.lap,
            start,
            tc,
            round(tc - start, 3),
            round(odo_tc - self.lap_odo0, 1),
            kind,
            kind == "full",
            not_full_reason(kind, self.start_edge, edge),
        )
        self.start_edge = edge
        if kind == "full":
            self.best_lap_s = lap.time_s if self.best_lap_s is None else min(self.best_lap_s, lap.time_s)
        self.lap += 1
        self.lap_start_t = tc
        self.last_cross_t = tc
        self.lap_odo0 = odo_tc
        # the lap closes FIT_S after the line: the car is already this far into the next one
        self.dist = max(0.0, self.odo - odo_tc)
        self._odo_at_dist = self.odo
        self.s_hint = (
            self.dist * self.track.line.length / self.track.length_m if self.track is not None else 0.0
        )
        return lap

    def _distance(
        self, x: float, y: float, on_fix: bool, moved: float | None, dt: float, d_int: float, near: Any
    ) -> tuple[float, str]:
        """Lap distance now: a new GPS fix projected onto the track's line when it lies within
        ``ON_LINE_M`` of it, moving at most ``CATCH_UP_MPS`` faster or slower than the speed says
        (``moved``: metres the speed covered since the last frame, None without a speed); otherwise
        (no fix, a held fix, a fix off the line) the last distance carried on by the speed. Never a jump
        to some other part of the line, never a stall while the car moves."""
        # (max/min written as comparisons: the same values, and this runs on every frame)
        d_int = d_int if d_int > 0.0 else 0.0
        if self.track is None:
            return d_int, "odometer"
        length, line_len = self._length_m, self._line_len
        if on_fix:
            hint_known = self.s_hint is not None and self._since_fix < LOST_M
            if self.s_hint is None or not hint_known:
                s_arr, off_arr = self.track.line.project(np.array([x]), np.array([y]))
                s, off = float(s_arr[0]), float(off_arr[0])
            else:
                window = NEAR_M + 0.2 * self._since_fix
                s, off = near(x, y, self.s_hint, window)
            self.off_m = off
            if off <= ON_LINE_M:
                self._since_fix = 0.0
                self._odo_at_dist = self.odo
                d = s * length / line_len
                if d > length / 2 and d_int < length / 4:
                    d -= length  # just after the line
                elif d < length / 4 and d_int > 3 * length / 4:
                    d += length  # past the line, before the lap closes (FIT_S after it)
                if moved is not None and dt > 0 and hint_known:
                    slack = CATCH_UP_MPS * dt
                    lo, hi = self.dist + moved - slack, self.dist + moved + slack
                    d = lo if lo > d else d  # max(d, lo)
                    d = hi if hi < d else d  # min(d, hi)
                d = d if d > 0.0 else 0.0
                self.s_hint = (d * line_len / length) % line_len
                return d, "track"
        if self._odo_at_dist is None:  # nothing on the line yet this session
            return d_int, "speed"
        step = self.odo - self._odo_at_dist
        step = step if step > 0.0 else 0.0
        d = self.dist + step * length / line_len
        self._odo_at_dist = self.odo
        self._since_fix += step
        if self.s_hint is not None:
            self.s_hint = (d * line_len / length) % line_len
        return d, "speed"

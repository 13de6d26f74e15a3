"""Per-corner observations built live, frame by frame, from each corner's approach to its exit."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from shared.corners import corner_metrics
from shared.events import slip_runs
from shared.profiles.track import Corner, TrackProfile

APPROACH_M = 300.0
_CH = (
    "t_s",
    "dist_m",
    "speed_kmh",
    "brake_bar",
    "throttle_pct",
    "steer_deg",
    "g_lat",
    "wheel_speed_fl_kmh",
    "wheel_speed_fr_kmh",
    "wheel_speed_rl_kmh",
    "wheel_speed_rr_kmh",
    "abs_active",  # a wheel the ABS holds is no lockup (shared.events.slip_runs)
)


@dataclass
class SlipEvent:
    kind: str  # lockup | wheelspin
    wheel: str
    dist_m: float
    lap: int


@dataclass
class CornerObservation:
    lap: int
    corner: Corner
    metrics: dict[str, float | None]
    coast_s: float = 0.0
    overlap_s: float = 0.0
    brake_at_turn_in_bar: float | None = None
    ramp_s: float | None = None
    throttle_drop_pct: float = 0.0
    steer_reversals: int = 0
    approach_kmh: float | None = None  # top speed between the previous corner and this one
    lifted: bool = False  # throttle went below 20 % in the corner (there is a pickup to judge)
    slips: list[SlipEvent] = field(default_factory=list)
    clean: bool = True


def _windows(track: TrackProfile) -> list[tuple[float, float, Corner]]:
    out = []
    prev_end = -1e9
    for c in sorted(track.corners, key=lambda c: c.start_m):
        start = max(c.start_m - APPROACH_M, prev_end, 0.0)
        out.append((start, c.end_m, c))
        prev_end = c.end_m
    return out


class CornerWatcher:
    """Feeds one frame at a time; returns an observation when a corner's exit is passed."""

    def __init__(self, track: TrackProfile, th: dict[str, float]) -> None:
        self.track = track
        self.th = th
        self.windows = _windows(track)
        self._lo = np.array([w[0] for w in self.windows])  # the windows as arrays, for feed_run
        self._hi = np.array([w[1] for w in self.windows])
        self.active: int | None = None
        self.lap = -1
        self.rows: list[dict[str, float]] = []  # the frames inside the active corner window

    def _reset(self) -> None:
        self.rows = []

    def feed(self, lap: int, row: dict[str, float]) -> CornerObservation | None:
        d = row.get("dist_m", 0.0)
        done: CornerObservation | None = None
        if self.active is not None and (lap != self.lap or d > self.windows[self.active][1]):
            if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                self._append(row)
                done = self._finish()
            self.active = None
            self._reset()
        if self.active is None:
            for i, (a, b, _c) in enumerate(self.windows):
                if a <= d <= b:
                    self.active = i
                    self.lap = lap
                    break
        if self.active is not None:
            self._append(row)
        return done

    def feed_run(
        self, laps: list[int], dists: list[float], cols: dict[str, np.ndarray]
    ) -> list[tuple[int, CornerObservation]]:
        """``feed`` over a run of frames given as columns (``cols``: each channel the watcher reads, as a
        float array over the run, NaN where a frame has none; ``dists`` the same as ``cols["dist_m"]``):
        the observations finished, each with the index of the frame that finished it. The frames kept
        are column slices, not rows."""
        n = len(dists)
        d = cols["dist_m"]
        lo, hi = self._lo, self._hi
        inside = (lo <= d[:, None]) & (d[:, None] <= hi)
        first = np.where(inside.any(axis=1), inside.argmax(axis=1), -1).tolist() if len(lo) else [-1] * n
        ends = hi.tolist()
        out: list[tuple[int, CornerObservation]] = []
        seg = 0
        for i in range(n):
            lap, di = laps[i], dists[i]
            if self.active is not None and (lap != self.lap or di > ends[self.active]):
                if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                    self.rows.append(_Slice(cols, seg, i + 1))  # type: ignore[arg-type]
                    obs = self._finish()
                    if obs is not None:
                        out.append((i, obs))
                self.active = None
                self._reset()
            if self.active is None and first[i] >= 0:
                self.active = first[i]
                self.lap = lap
                seg = i
        if self.active is not None:
            self.rows.append(_Slice(cols, seg, n))  # type: ignore[arg-type]
        return out

    def _append(self, row: dict[str, float]) -> None:
        # keep the frame itself (callers pass a row they no longer mutate); columns are built at the exit
        self.rows.append(row)

    def _finish(self) -> CornerObservation | None:
        assert self.active is not None
        _a, _b, c = self.windows[self.active]
        arr = _columns(self.rows)
        if len(arr["t_s"]) < 5 or np.nanmax(arr["dist_m"]) < c.end_m - 20:
            return None
        arr["dist_m"] = np.maximum.accumulate(arr["dist_m"]) + np.arange(len(arr["dist_m"])) * 1e-6
        m = corner_metrics(arr, c)
        if m is None:
            return None
        th = self.th
        t, d = arr["t_s"], arr["dist_m"]
        thr, brk, spd = (np.nan_to_num(arr[k]) for k in ("throttle_pct", "brake_bar", "speed_kmh"))
        coast = (
            (thr < th["coast_throttle_pct"]) & (brk < th["coast_brake_bar"]) & (spd > th["coast_speed_kmh"])
        )
        coast_s = _longest_run_s(coast, t)
        overlap = (thr > th["overlap_throttle_pct"]) & (brk > th["overlap_brake_bar"])
        overlap_s = _longest_run_s(overlap, t)
        obs = CornerObservation(self.lap, c, m, coast_s=coast_s, overlap_s=overlap_s)
        if np.isfinite(arr["brake_bar"]).any():
            obs.brake_at_turn_in_bar = float(np.interp(c.start_m, d, brk))
            bp = m.get("brake_point_m")
            peak = m.get("brake_peak_bar")
            if bp is not None and peak:
                k0 = int(np.searchsorted(d, bp))
                above = np.where(brk[k0:] >= 0.8 * peak)[0]
                if len(above):
                    obs.ramp_s = float(t[k0 + above[0]] - t[k0])
        obs.approach_kmh = float(np.nanmax(arr["speed_kmh"])) if np.isfinite(arr["speed_kmh"]).any() else None
        in_corner = (d >= c.start_m) & (d <= c.end_m)
        obs.lifted = bool(in_corner.any() and np.min(thr[in_corner]) < 20)
        pick = m.get("throttle_pickup_m")
        if pick is not None:
            after = (d >= pick) & (d <= c.end_m)
            if after.sum() > 2:
                obs.throttle_drop_pct = _dip(thr[after])
        apex = m.get("apex_m") or c.apex_m
        ex = (d >= apex) & (d <= c.end_m)
        st, ts = arr["steer_deg"][ex], t[ex]
        ok = np.isfinite(st)
        if ok.sum() > 6:
            st, ts = st[ok], ts[ok]
            k = max(1, int(round(0.25 / max(float(np.median(np.diff(ts))), 1e-3))))
            sm = np.convolve(
                st, np.ones(k) / k, mode="valid"
            )  # 0.25 s average: sensor noise is not a correction
            rate = np.diff(sm) / max(float(np.median(np.diff(ts))), 1e-3)
            sig = np.sign(rate[np.abs(rate) > 30.0])  # deliberate hand movement, deg/s
            obs.steer_reversals = int(np.sum(sig[1:] != sig[:-1])) if len(sig) > 1 else 0
        for sr in slip_runs(arr, th):  # the one event detector, on this corner's frames
            obs.slips.append(SlipEvent(sr.kind, sr.wheel, float(d[sr.start]), self.lap))
        obs.clean = not obs.slips
        return obs


_GET_CH = operator.itemgetter(*_CH)


class _Slice:
    """Frames ``a``..``b`` of a run fed as columns (``feed_run``): kept in place of their rows."""

    __slots__ = ("cols", "a", "b")

    def __init__(self, cols: dict[str, np.ndarray], a: int, b: int) -> None:
        self.cols, self.a, self.b = cols, a, b


def _columns(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """The window's frames as one float array per channel of ``_CH`` (NaN where a frame has none);
    frames kept as column slices (``feed_run``) are taken as they are."""
    if not any(type(r) is _Slice for r in rows):
        return _row_columns(rows)
    parts: list[dict[str, np.ndarray]] = []
    run: list[dict[str, float]] = []
    for r in rows:
        if type(r) is _Slice:
            if run:
                parts.append(_row_columns(run))
                run = []
            parts.append({k: r.cols[k][r.a : r.b] for k in _CH})
        else:
            run.append(r)
    if run:
        parts.append(_row_columns(run))
    return {k: np.concatenate([p[k] for p in parts]).astype(np.float64, copy=False) for k in _CH}


def _row_columns(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    n = len(rows)
    try:
        flat = chain.from_iterable(map(_GET_CH, rows))
        table = np.fromiter(flat, np.float64, count=n * len(_CH)).reshape(n, len(_CH))
    except (KeyError, TypeError, ValueError):  # a channel this car does not send (or not yet): NaN there
        nan = float("nan")
        return {k: np.asarray([r.get(k, nan) for r in rows], dtype=np.float64) for k in _CH}
    return {k: table[:, j].copy() for j, k in enumerate(_CH)}


def _dip(seg: np.ndarray) -> float:
    """The largest throttle fall after pickup that is followed by a recovery (a hesitation, not a lift
    for the next corner)."""
    best = 0.0
    peak = seg[0]
    for i in range(1, len(seg)):
        peak = max(peak, seg[i])
        drop = peak - seg[i]
        if drop > best and np.max(seg[i:]) >= seg[i] + 0.5 * drop:
            best = float(drop)
    return best


def _longest_run_s(mask: np.ndarray, t: np.ndarray) -> float:
    best = 0.0
    start = None
    for i, on in enumerate(mask):
        if on and start is None:
            start = i
        elif not on and start is not None:
            best = max(best, float(t[i - 1] - t[start]))
            start = None
    if start is not None:
        best = max(best, float(t[-1] - t[start]))
    return best

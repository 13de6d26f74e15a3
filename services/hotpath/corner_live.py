"""Per-corner observations built live, frame by frame, from each corner's approach to its exit.

A corner's frames start at the previous corner's apex (or ``APPROACH_M`` before its entry, when that
is later): corners back to back (a kart track, a chicane) share the frames between them, so each has
its entry. What the corner owns starts at its own approach (``from_m``: the previous corner's exit, or
``APPROACH_M`` before the entry): its top speed, the speed it was handed (``carried_kmh``), slips and
pedal overlap. A coast belongs to the corner it leads into: the longest coast that ends inside this
corner's frames after its approach began, or runs through it from before its entry (one that began in
the corner and is still going at the exit leads into the next corner)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.ma  # np.nanpercentile imports it on first use: 12-15 ms in the first exit's frame

from services.hotpath.corner_frames import Slice, columns, tail
from shared.corners import corner_metrics
from shared.event_conditions import runs
from shared.event_detect import slip_runs
from shared.profiles.track import Corner, TrackProfile

APPROACH_M = 300.0
BLOCK_ROWS = 128  # rows kept as dicts before they become one column slice (``CornerWatcher._append``)
MERGE_BLOCKS = 8  # column slices of such blocks kept before they are joined into one


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
    carried_kmh: float | None = None  # speed where this corner's approach begins (the previous one's exit)
    coast_out: bool = False  # a coast begun in the corner is still going at its exit: it leads on
    lifted: bool = False  # throttle went below 20 % in the corner (there is a pickup to judge)
    slips: list[SlipEvent] = field(default_factory=list)
    clean: bool = True


@dataclass(frozen=True)
class _Window:
    lo: float  # the first frame kept: the previous corner's apex, or APPROACH_M before the entry
    hi: float  # the exit
    corner: Corner
    from_m: float  # where the corner's own approach begins: the previous exit, or APPROACH_M before
    prev_end_m: float | None  # the previous corner's exit (its brake zone starts after it)


def _windows(track: TrackProfile) -> list[_Window]:
    out = []
    prev: Corner | None = None
    for c in sorted(track.corners, key=lambda c: c.start_m):
        lead = max(c.start_m - APPROACH_M, 0.0)
        lo = min(max(lead, prev.apex_m if prev is not None else 0.0), c.start_m)
        own = max(lead, prev.end_m if prev is not None else 0.0)
        out.append(_Window(lo, c.end_m, c, own, prev.end_m if prev is not None else None))
        prev = c
    return out


class CornerWatcher:
    """Feeds one frame at a time; returns an observation when a corner's exit is passed."""

    def __init__(self, track: TrackProfile, th: dict[str, float]) -> None:
        self.track = track
        self.th = th
        self.windows = _windows(track)
        self._lo = np.array([w.lo for w in self.windows])  # the windows as arrays, for feed_run
        self._hi = np.array([w.hi for w in self.windows])
        self.active: int | None = None
        self.lap = -1
        self.rows: list[Any] = []  # the frames inside the active corner window: rows, column slices
        self._loose = 0  # rows at the end of ``rows`` not yet in a column slice
        self._blocks = 0  # column slices just before them

    def _reset(self) -> None:
        self.rows = []
        self._loose = self._blocks = 0

    def _first(self, d: float) -> int | None:
        for i, w in enumerate(self.windows):
            if w.lo <= d <= w.hi:
                return i
        return None

    def feed(self, lap: int, row: dict[str, float]) -> CornerObservation | None:
        d = row.get("dist_m", 0.0)
        done: CornerObservation | None = None
        if self.active is not None and (lap != self.lap or d > self.windows[self.active].hi):
            carry: list[dict[str, float]] = []
            if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                nxt = self._first(d)
                if nxt is not None:  # the next corner's frames began before this exit: they go on
                    carry = tail(self.rows, self.windows[nxt].lo)
                self._append(row)
                done = self._finish()
            self.active = None
            self.rows = carry
            self._loose, self._blocks = _tail_counts(carry)
        if self.active is None:
            self.active = self._first(d)
            if self.active is None:
                self._reset()
            else:
                self.lap = lap
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
        starts = lo.tolist()
        out: list[tuple[int, CornerObservation]] = []
        seg = 0
        for i in range(n):
            lap, di = laps[i], dists[i]
            if self.active is not None and (lap != self.lap or di > ends[self.active]):
                carry: list[Any] = []
                if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                    self.rows.append(Slice(cols, seg, i))  # type: ignore[arg-type]
                    if first[i] >= 0:  # the next corner's frames began before this exit: they go on
                        carry = tail(self.rows, starts[first[i]])
                    self.rows.append(Slice(cols, i, i + 1))  # type: ignore[arg-type]
                    obs = self._finish()
                    if obs is not None:
                        out.append((i, obs))
                self.active = None
                self.rows = carry
                self._loose, self._blocks = _tail_counts(carry)
            if self.active is None:
                if first[i] >= 0:
                    self.active = first[i]
                    self.lap = lap
                    seg = i
                else:
                    self._reset()
        if self.active is not None:
            self.rows.append(Slice(cols, seg, n))  # type: ignore[arg-type]
            self._loose = self._blocks = 0
        return out

    def _append(self, row: dict[str, float]) -> None:
        """Keep the frame itself (callers pass a row they no longer mutate); every ``BLOCK_ROWS`` rows
        become one column slice, so a corner's exit turns at most that many rows into columns, however
        long its window (at 1 kHz ten thousand frames: 10-25 ms in one frame if left to the exit)."""
        rows = self.rows
        rows.append(row)
        self._loose += 1
        if self._loose >= BLOCK_ROWS:
            self._fold(self._loose)
            self._loose = 0
            self._blocks += 1
            if self._blocks >= MERGE_BLOCKS:  # a few large slices at the exit, not one per block
                self._fold(self._blocks)
                self._blocks = 1

    def _fold(self, k: int) -> None:
        """The last ``k`` kept frames (rows or slices) become one column slice, in place."""
        part = self.rows[-k:]
        del self.rows[-k:]
        cols = columns(part)
        self.rows.append(Slice(cols, 0, len(cols["t_s"])))

    def _finish(self) -> CornerObservation | None:
        assert self.active is not None
        w = self.windows[self.active]
        c = w.corner
        arr = columns(self.rows)
        if len(arr["t_s"]) < 5 or np.nanmax(arr["dist_m"]) < c.end_m - 20:
            return None
        arr["dist_m"] = np.maximum.accumulate(arr["dist_m"]) + np.arange(len(arr["dist_m"])) * 1e-6
        m = corner_metrics(arr, c, w.prev_end_m)
        if m is None:
            return None
        th = self.th
        t, d = arr["t_s"], arr["dist_m"]
        thr, brk, spd = (np.nan_to_num(arr[k]) for k in ("throttle_pct", "brake_bar", "speed_kmh"))
        own = d >= w.from_m
        coast = (
            (thr < th["coast_throttle_pct"]) & (brk < th["coast_brake_bar"]) & (spd > th["coast_speed_kmh"])
        )
        coast_s, coast_out = _coast_into(coast, t, own, d <= c.start_m)
        overlap = (thr > th["overlap_throttle_pct"]) & (brk > th["overlap_brake_bar"])
        overlap_s = _longest_run_s(overlap[own], t[own])
        obs = CornerObservation(self.lap, c, m, coast_s=coast_s, overlap_s=overlap_s, coast_out=coast_out)
        if np.isfinite(arr["brake_bar"]).any():
            obs.brake_at_turn_in_bar = float(np.interp(c.start_m, d, brk))
            bp = m.get("brake_point_m")
            peak = m.get("brake_peak_bar")
            if bp is not None and peak:
                k0 = int(np.searchsorted(d, bp))
                above = np.where(brk[k0:] >= 0.8 * peak)[0]
                if len(above):
                    obs.ramp_s = float(t[k0 + above[0]] - t[k0])
        v_own = arr["speed_kmh"][own]
        obs.approach_kmh = float(np.nanmax(v_own)) if np.isfinite(v_own).any() else None
        ok = np.isfinite(arr["speed_kmh"])
        if d[0] <= w.from_m + 5.0 and ok.sum() > 1:
            obs.carried_kmh = float(np.interp(w.from_m, d[ok], arr["speed_kmh"][ok]))
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
        k_own = int(np.argmax(own)) if own.any() else len(d)
        mine = {k: v[k_own:] for k, v in arr.items()}
        for sr in slip_runs(mine, th):  # the one event detector, on the frames this corner owns
            obs.slips.append(SlipEvent(sr.kind, sr.wheel, float(d[k_own + sr.start]), self.lap))
        obs.clean = not obs.slips
        return obs


def _dip(seg: np.ndarray) -> float:
    """The largest throttle fall after pickup that is followed by a recovery (a hesitation, not a lift
    for the next corner): the fall below the running peak at a frame, counted when the throttle later
    comes back by at least half of it."""
    peak = np.maximum.accumulate(seg)
    drop = peak - seg
    later = np.maximum.accumulate(seg[::-1])[::-1]  # the highest throttle from each frame on
    ok = later[1:] >= seg[1:] + 0.5 * drop[1:]
    return float(drop[1:][ok].max()) if ok.any() else 0.0


def _tail_counts(rows: list[Any]) -> tuple[int, int]:
    """At the end of ``rows``: how many frames are rows, and how many column slices come just before."""
    loose = blocks = 0
    for r in reversed(rows):
        if type(r) is Slice:
            blocks += 1
        elif blocks:
            break
        else:
            loose += 1
    return loose, blocks


def _coast_into(
    mask: np.ndarray, t: np.ndarray, own: np.ndarray, before_entry: np.ndarray
) -> tuple[float, bool]:
    """The longest coast that leads into this corner: it ends after the corner's approach began, or
    it began before the entry and runs through the corner; and whether one that began in the corner is
    still going at the exit (it leads into the next corner, which names it)."""
    best = 0.0
    for a, b in runs(mask):
        if b == len(mask):  # still going at the last frame: the last run
            if before_entry[a]:
                return max(best, float(t[-1] - t[a])), False
            return best, True
        if own[b - 1]:
            best = max(best, float(t[b - 1] - t[a]))
    return best, False


def _longest_run_s(mask: np.ndarray, t: np.ndarray) -> float:
    return max((float(t[b - 1] - t[a]) for a, b in runs(mask)), default=0.0)

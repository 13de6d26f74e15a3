"""Per-corner observations built live, frame by frame, from each corner's approach to its exit.

A corner's frames start at the previous corner's apex (or ``APPROACH_M`` before its entry, when that
is later): corners back to back (a kart track, a chicane) share the frames between them, so each has
its entry. What the corner owns starts at its own approach (``from_m``: the previous corner's exit, or
``APPROACH_M`` before the entry): its top speed, the speed it was handed (``carried_kmh``), slips and
pedal overlap. A coast belongs to the corner it leads into: the longest coast that ends inside this
corner's frames after its approach began, or runs through it from before its entry (one that began in
the corner and is still going at the exit leads into the next corner)."""

from __future__ import annotations

from collections import deque

import numpy as np

from services.hotpath.corner_frames import Kept
from services.hotpath.corner_summary import CornerObservation, SlipEvent, Summary, Window, summary
from shared.profiles.track import Corner, TrackProfile

__all__ = ["APPROACH_M", "CornerObservation", "CornerWatcher", "SlipEvent"]

APPROACH_M = 300.0


def _windows(track: TrackProfile) -> list[Window]:
    out = []
    prev: Corner | None = None
    for c in sorted(track.corners, key=lambda c: c.start_m):
        lead = max(c.start_m - APPROACH_M, 0.0)
        lo = min(max(lead, prev.apex_m if prev is not None else 0.0), c.start_m)
        own = max(lead, prev.end_m if prev is not None else 0.0)
        out.append(Window(lo, c.end_m, c, own, prev.end_m if prev is not None else None))
        prev = c
    return out


class CornerWatcher:
    """Feeds one frame at a time; returns an observation when a corner's exit is passed: in the exit's
    frame for a short window, two frames later for a long one (``corner_summary.SPLIT_ROWS``), its
    summary spread over those frames. At most one observation a frame (a second waits for the next).

    The active window's frames are in ``kept``; at an exit its summary reads that store's columns over
    its stages, while the next window fills another store from the pool (a store goes back when its
    summary ends), so no exit allocates or joins the window's columns."""

    def __init__(self, track: TrackProfile, th: dict[str, float]) -> None:
        self.track = track
        self.th = th
        self.windows = _windows(track)
        self._lo = np.array([w.lo for w in self.windows])  # the windows as arrays, for feed_run
        self._hi = np.array([w.hi for w in self.windows])
        self.active: int | None = None
        self.lap = -1
        self.kept = Kept()  # the frames inside the active corner window
        self._free: list[Kept] = [Kept()]  # stores no summary reads
        self._jobs: list[tuple[Summary, Kept]] = []  # exits whose summary is under way, a stage a frame
        self._done: deque[CornerObservation] = deque()  # observations finished, not yet returned

    def _first(self, d: float) -> int | None:
        for i, w in enumerate(self.windows):
            if w.lo <= d <= w.hi:
                return i
        return None

    def stores(self) -> list[Kept]:
        """Every column store the watcher holds: the window being fed, the free ones, those summaries read."""
        return [self.kept, *self._free, *(k for _j, k in self._jobs)]

    def _next_store(self, lo: float | None) -> Kept:
        """A store for the next window: a free one (or a new one), with this window's frames from ``lo``
        on when the next corner's frames began before this exit."""
        carry = self._free.pop() if self._free else Kept(self.kept.buf.shape[1])
        carry.clear()
        if lo is not None:
            self.kept.tail_into(carry, lo)
        return carry

    def feed(self, lap: int, row: dict[str, float]) -> CornerObservation | None:
        d = row.get("dist_m", 0.0)
        if self._jobs:
            self._step()
        if self.active is not None and (lap != self.lap or d > self.windows[self.active].hi):
            if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                nxt = self._first(d)
                carry = self._next_store(None if nxt is None else self.windows[nxt].lo)
                self.kept.add_row(row)
                self._begin(carry)
            else:  # a new lap: the window is dropped, its store kept
                self.kept.clear()
            self.active = None
        if self.active is None:
            self.active = self._first(d)
            if self.active is None:
                self.kept.clear()
            else:
                self.lap = lap
        if self.active is not None:
            self.kept.add_row(row)
        return self._done.popleft() if self._done else None

    def feed_run(
        self, laps: list[int], dists: list[float], cols: dict[str, np.ndarray]
    ) -> list[tuple[int, CornerObservation]]:
        """``feed`` over a run of frames given as columns (``cols``: each channel the watcher reads, as a
        float array over the run, NaN where a frame has none; ``dists`` the same as ``cols["dist_m"]``):
        the observations returned, each with the index of the frame ``feed`` would return it on."""
        n = len(dists)
        d = cols["dist_m"]
        lo, hi = self._lo, self._hi
        inside = (lo <= d[:, None]) & (d[:, None] <= hi)
        first = np.where(inside.any(axis=1), inside.argmax(axis=1), -1).tolist() if len(lo) else [-1] * n
        ends = hi.tolist()
        starts = lo.tolist()
        out: list[tuple[int, CornerObservation]] = []
        seg = 0
        jobs, done = self._jobs, self._done
        for i in range(n):
            if jobs:
                self._step()
            lap, di = laps[i], dists[i]
            if self.active is not None and (lap != self.lap or di > ends[self.active]):
                if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                    self.kept.add_cols(cols, seg, i)
                    carry = self._next_store(starts[first[i]] if first[i] >= 0 else None)
                    self.kept.add_cols(cols, i, i + 1)
                    self._begin(carry)
                else:  # a new lap: the window is dropped, its store kept
                    self.kept.clear()
                self.active = None
            if self.active is None:
                if first[i] >= 0:
                    self.active = first[i]
                    self.lap = lap
                    seg = i
                else:
                    self.kept.clear()
            if done:
                out.append((i, done.popleft()))
        if self.active is not None:
            self.kept.add_cols(cols, seg, n)
        return out

    def _begin(self, carry: Kept) -> None:
        """The active corner's exit: its summary's first stage now (it reads the kept frames' columns),
        the rest one stage a frame from the next frame on (``_step``); the store is the summary's until
        it ends, and the next window fills ``carry``."""
        assert self.active is not None
        job = summary(self.kept.columns(), self.windows[self.active], self.lap, self.th)
        if _stage(job, self._done):
            self._free.append(self.kept)
        else:
            self._jobs.append((job, self.kept))
        self.kept = carry

    def _step(self) -> None:
        """The next stage of each summary under way."""
        going = []
        for job, store in self._jobs:
            if _stage(job, self._done):
                self._free.append(store)
            else:
                going.append((job, store))
        self._jobs[:] = going

    def drain(self) -> list[CornerObservation]:
        """Every summary under way finished now (the session ends): the observations not yet returned."""
        while self._jobs:
            self._step()
        out = list(self._done)
        self._done.clear()
        return out


def _stage(job: Summary, done: deque[CornerObservation]) -> bool:
    """One stage of ``job``; True when it has finished (its observation, if any, put in ``done``)."""
    try:
        next(job)
    except StopIteration as end:
        if end.value is not None:
            done.append(end.value)
        return True
    return False

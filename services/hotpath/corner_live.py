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
from typing import Any

import numpy as np

from services.hotpath.corner_frames import Slice, columns, tail
from services.hotpath.corner_summary import CornerObservation, SlipEvent, Summary, Window, summary
from shared.profiles.track import Corner, TrackProfile

__all__ = ["APPROACH_M", "CornerObservation", "CornerWatcher", "SlipEvent"]

APPROACH_M = 300.0
BLOCK_ROWS = 128  # rows kept as dicts before they become one column slice (``CornerWatcher._append``)
MERGE_BLOCKS = 8  # column slices of such blocks kept before they are joined into one (once: 1,024 frames)


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
    summary spread over those frames. At most one observation a frame (a second waits for the next)."""

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
        self._jobs: list[Summary] = []  # exits whose summary is under way, a stage a frame
        self._done: deque[CornerObservation] = deque()  # observations finished, not yet returned

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
        if self._jobs:
            self._step()
        if self.active is not None and (lap != self.lap or d > self.windows[self.active].hi):
            carry: list[dict[str, float]] = []
            if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                nxt = self._first(d)
                if nxt is not None:  # the next corner's frames began before this exit: they go on
                    carry = tail(self.rows, self.windows[nxt].lo)
                self._append(row)
                self._begin()
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
        return self._done.popleft() if self._done else None

    def feed_run(
        self, laps: list[int], dists: list[float], cols: dict[str, np.ndarray]
    ) -> list[tuple[int, CornerObservation]]:
        """``feed`` over a run of frames given as columns (``cols``: each channel the watcher reads, as a
        float array over the run, NaN where a frame has none; ``dists`` the same as ``cols["dist_m"]``):
        the observations returned, each with the index of the frame ``feed`` would return it on. The
        frames kept are column slices, not rows."""
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
                carry: list[Any] = []
                if lap == self.lap:  # include the first sample past the exit so exit values interpolate
                    self.rows.append(Slice(cols, seg, i))  # type: ignore[arg-type]
                    if first[i] >= 0:  # the next corner's frames began before this exit: they go on
                        carry = tail(self.rows, starts[first[i]])
                    self.rows.append(Slice(cols, i, i + 1))  # type: ignore[arg-type]
                    self._begin()
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
            if done:
                out.append((i, done.popleft()))
        if self.active is not None:
            self.rows.append(Slice(cols, seg, n))  # type: ignore[arg-type]
            self._loose = self._blocks = 0
        return out

    def _begin(self) -> None:
        """The active corner's exit: its summary's first stage now (it reads the kept frames), the rest
        one stage a frame from the next frame on (``_step``)."""
        assert self.active is not None
        job = summary(self.rows, self.windows[self.active], self.lap, self.th)
        if not _stage(job, self._done):
            self._jobs.append(job)

    def _step(self) -> None:
        """The next stage of each summary under way."""
        self._jobs[:] = [j for j in self._jobs if not _stage(j, self._done)]

    def drain(self) -> list[CornerObservation]:
        """Every summary under way finished now (the session ends): the observations not yet returned."""
        while self._jobs:
            self._step()
        out = list(self._done)
        self._done.clear()
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
            if self._blocks >= MERGE_BLOCKS:  # fewer slices at the exit, not one per block
                self._fold(self._blocks)
                self._blocks = 0  # a joined slice is never joined again: no copy grows with the stretch kept

    def _fold(self, k: int) -> None:
        """The last ``k`` kept frames (rows or slices) become one column slice, in place."""
        part = self.rows[-k:]
        del self.rows[-k:]
        cols = columns(part)
        self.rows.append(Slice(cols, 0, len(cols["t_s"])))


def _stage(job: Summary, done: deque[CornerObservation]) -> bool:
    """One stage of ``job``; True when it has finished (its observation, if any, put in ``done``)."""
    try:
        next(job)
    except StopIteration as end:
        if end.value is not None:
            done.append(end.value)
        return True
    return False


def _tail_counts(rows: list[Any]) -> tuple[int, int]:
    """At the end of ``rows``: how many frames are rows, and how many column slices come just before."""
    loose = blocks = 0
    for r in reversed(rows):
        if type(r) is Slice:
            if r.b - r.a > BLOCK_ROWS:
                break  # a joined slice (or a run's): never joined again
            blocks += 1
        elif blocks:
            break
        else:
            loose += 1
    return loose, blocks

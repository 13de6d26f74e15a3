"""The lap in progress as the delta and the PB-pace check read it: distance and elapsed time frame by frame,
and the best lap's pair kept for PB pace. Typed arrays, not lists: a lap close hands them over without a
pass over them, and dropping a 1 kHz lap's is one free, not 200,000 (5-7 ms on the frame path)."""

from __future__ import annotations

from array import array

import numpy as np

from services.hotpath.delta import elapsed_at


class LapTrace:
    """``dist``: the lap's distance as its running maximum (GPS jitter never steps back); ``elapsed``: time
    from the lap's start. A lap started at the line starts at (0 m, 0 s); the session's first lap (the
    out-lap, not timed from a line) starts empty."""

    def __init__(self) -> None:
        self.start_t: float | None = None  # t_s the lap in progress started (None before the first frame)
        self.timed = False  # a lap line has been crossed: the lap in progress is timed
        self.dist: array[float] = array("d")
        self.elapsed: array[float] = array("d")
        self.best: tuple[array[float], array[float]] | None = None  # the best lap's pair, for PB pace

    def restart(self, t: float, at_line: bool) -> None:
        """A new lap from ``t``: at a line crossing, or the session's first frame."""
        self.start_t = t
        self.dist, self.elapsed = (
            (array("d", [0.0]), array("d", [0.0])) if at_line else (array("d"), array("d"))
        )
        self.timed = self.timed or at_line

    def since_start(self, t: float) -> float:
        return t - (self.start_t or t)

    def add(self, dist: float, t: float) -> None:
        """One frame of the lap in progress."""
        d = self.dist
        d.append(dist if not d or dist > d[-1] else d[-1])
        self.elapsed.append(t - (self.start_t or t))

    def add_block(self, dist: np.ndarray, t: np.ndarray) -> None:
        """Frames of the lap in progress at once (``process_many``), the same values as ``add`` one by one."""
        if not len(dist):
            return
        top = np.maximum.accumulate(dist)
        if self.dist:
            np.maximum(top, self.dist[-1], out=top)
        self.dist.frombytes(top.tobytes())
        st = self.start_t
        self.elapsed.frombytes((t - (st if st else t)).tobytes())

    def keep_as_best(self) -> None:
        """The lap just closed is the session's best: its pair (handed over, not copied) is PB pace's."""
        if self.dist:
            self.best = (self.dist, self.elapsed)

    def on_pb_pace(self, dist: float, t: float) -> bool:
        """Is the lap in progress ahead of the best lap at this distance? (bisect: no numpy per frame)"""
        if self.best is None or self.start_t is None:
            return False
        d, e = self.best
        if dist <= d[0]:
            return False
        ref = elapsed_at(d, e, dist)
        return ref is not None and (t - self.start_t) <= ref

"""Session time to wall-clock time, for deadlines the browser in the car can check (``speak_by``).

Frames carry the logger's own clock (``t_s``). Live, it runs at wall-clock speed; a replay runs it at N x
real time, so a deadline in session time is converted with the ratio observed over the last few seconds.
A step of more than ``GAP_S`` between two frames is a gap in the recording (the logger paused, its clock
set), not pace: the ratio is observed afresh from the frame after it. Read as pace, a 25 s step made a
safety cue's 2 s read as ~40 ms of wall time for the next 3 s, and the drive screen dropped it as late.
"""

from __future__ import annotations

from collections import deque

import numpy as np

SAMPLE_EVERY_S = 0.2  # wall seconds between samples
WINDOW = 15  # samples kept: about 3 s of wall time
GAP_S = 5.0  # session seconds between two frames that are a gap, not pace (a logger sends >= 1 Hz)


class SessionClock:
    def __init__(self) -> None:
        self._samples: deque[tuple[float, float]] = deque(maxlen=WINDOW)  # (wall_s, t_s)
        self._last_t: float | None = None

    def observe(self, t_s: float, wall_s: float) -> None:
        s = self._samples
        if self._last_t is not None and abs(t_s - self._last_t) > GAP_S:
            s.clear()
        self._last_t = t_s
        if not s or wall_s - s[-1][0] >= SAMPLE_EVERY_S:
            s.append((wall_s, t_s))

    def observe_run(self, ts: np.ndarray, wall_s: float) -> None:
        """A run of frames' times, read at one wall-clock instant: as ``observe`` on each of them."""
        gaps = np.flatnonzero(np.abs(np.diff(ts)) > GAP_S)
        k = int(gaps[-1]) + 1 if len(gaps) else 0  # the frame after the run's last gap, if it has one
        self.observe(float(ts[k]), wall_s)  # a gap before the run's first frame is seen here
        self._last_t = float(ts[-1])

    @property
    def ratio(self) -> float:
        """Session seconds per wall-clock second (1.0 until there is a window to measure)."""
        s = self._samples
        if len(s) < 2:
            return 1.0
        (w0, t0), (w1, t1) = s[0], s[-1]
        if w1 - w0 < SAMPLE_EVERY_S or t1 <= t0:
            return 1.0
        return min(max((t1 - t0) / (w1 - w0), 0.05), 1000.0)

    def to_epoch_ms(self, t_s: float, now_t_s: float, now_wall_s: float) -> int:
        """The wall-clock instant (epoch ms) at which the session clock will read ``t_s``."""
        return int(round((now_wall_s + (t_s - now_t_s) / self.ratio) * 1000))

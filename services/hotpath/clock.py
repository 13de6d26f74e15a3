"""Session time to wall-clock time, for deadlines the browser in the car can check (``speak_by``).

Frames carry the logger's own clock (``t_s``). Live, it runs at wall-clock speed; a replay runs it at N x
real time, so a deadline in session time is converted with the ratio observed over the last few seconds.
"""

from __future__ import annotations

from collections import deque

SAMPLE_EVERY_S = 0.2  # wall seconds between samples
WINDOW = 15  # samples kept: about 3 s of wall time


class SessionClock:
    def __init__(self) -> None:
        self._samples: deque[tuple[float, float]] = deque(maxlen=WINDOW)  # (wall_s, t_s)

    def observe(self, t_s: float, wall_s: float) -> None:
        s = self._samples
        if not s or wall_s - s[-1][0] >= SAMPLE_EVERY_S:
            s.append((wall_s, t_s))

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

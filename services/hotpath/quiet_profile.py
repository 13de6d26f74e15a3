"""The arbiter's quiet profile (``QuietProfile``): per 5 m of lap distance, whether the driver was busy there
(braking or cornering hard, as the arbiter judges it) and how fast, the last time through; and the cue window
it gives a corner: the last quiet stretch before the entry long enough to say a phrase."""

from __future__ import annotations

import numpy as np

BIN_M = 5.0  # resolution of the quiet-stretch profile
MAX_SEARCH_M = 1000.0  # how far before a corner its cue may be spoken
WINDOW_SLACK_S = 3.0  # a window is the phrase's time plus this much (room for the gap between cues)


class QuietProfile:
    """Per 5 m of lap distance: was the driver busy there, and how fast, the last time through."""

    def __init__(self, length_m: float) -> None:
        self.length_m = length_m
        # whole bins only: a sliver of a bin past the last whole one (a 0.3 m bin at 3,975.3 m) is
        # never driven through, and the search for a window across the line would stop at it
        self.n = max(1, int(round(length_m / BIN_M)))
        self.busy = [True] * self.n
        self.speed = [0.0] * self.n  # m/s
        self.seen = [False] * self.n
        self._cur = -1

    def observe(self, dist_m: float, busy: bool, v_ms: float) -> None:
        i = int(dist_m // BIN_M) % self.n
        if i != self._cur:
            self.busy[i], self.speed[i], self.seen[i] = busy, v_ms, True
            self._cur = i
        else:
            self.busy[i] = self.busy[i] or busy
            self.speed[i] = min(self.speed[i], v_ms)

    def observe_many(self, dist_m: np.ndarray, busy: np.ndarray, v_ms: np.ndarray) -> None:
        """``observe`` for each frame of a run in turn (finite speeds: a NaN would compare otherwise)."""
        if not len(dist_m):
            return
        bins = (dist_m // BIN_M).astype(np.int64) % self.n
        starts = np.flatnonzero(np.concatenate([[True], bins[1:] != bins[:-1]]))
        any_busy = np.logical_or.reduceat(busy, starts).tolist()
        slowest = np.minimum.reduceat(v_ms, starts).tolist()
        b_list, s_list, seen = self.busy, self.speed, self.seen
        for i, b, v in zip(bins[starts].tolist(), any_busy, slowest, strict=True):
            if i != self._cur:
                b_list[i], s_list[i], seen[i] = b, v, True
                self._cur = i
            else:
                b_list[i] = b_list[i] or b
                s_list[i] = min(s_list[i], v)

    def window(self, entry_m: float, need_s: float) -> tuple[float, float] | str | None:
        """The last quiet stretch before ``entry_m`` that takes at least ``need_s`` to drive (its last
        ``need_s + WINDOW_SLACK_S`` at most), as (start, end) distances before the entry; a reason when
        there is none; None while the approach has not been driven yet."""
        e = int(entry_m // BIN_M)
        run_t = 0.0
        run_end: int | None = None  # bins back from the entry where the current quiet run ends
        start = 0  # bins back from the entry where the window starts
        steps = int(min(MAX_SEARCH_M, self.length_m - BIN_M) // BIN_M)
        for k in range(1, steps + 1):
            i = (e - k) % self.n
            if not self.seen[i]:
                return None
            if self.busy[i]:
                if run_end is not None and run_t >= need_s:
                    break
                run_t, run_end = 0.0, None
                continue
            if run_end is None:
                run_end = k - 1
            run_t += BIN_M / max(self.speed[i], 1.0)
            start = k
            if run_t >= need_s + WINDOW_SLACK_S:
                break
        if run_end is not None and run_t >= need_s:
            return (start * BIN_M, run_end * BIN_M)
        return f"no quiet stretch of {need_s:.1f} s within {steps * BIN_M:.0f} m before the entry"

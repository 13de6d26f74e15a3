"""The frames a corner watcher keeps (``services.hotpath.corner_live``): one ``Kept`` store a window, its
channels as columns in memory allocated once and reused window after window, so a corner's exit reads
views of it (no join, no fresh pages: joining the window's columns at the exit made 60-670 minor page
faults in that frame at 1 kHz)."""

from __future__ import annotations

import operator
from itertools import chain
from typing import Any

import numpy as np

CHANNELS = (
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
    "abs_active",  # a wheel the ABS holds is no lockup (shared.event_detect.slip_runs)
)
_GET_CH = operator.itemgetter(*CHANNELS)
_DIST = CHANNELS.index("dist_m")
BLOCK_ROWS = 128  # rows kept as dicts before they are written into the store as columns, together
FIRST_CAPACITY = 2048  # frames a store holds before it first grows (doubling: at 1 kHz in the first lap)


class Kept:
    """A corner window's frames: the first ``n`` columns of ``buf`` (one row per channel of ``CHANNELS``,
    NaN where a frame has none) and up to ``BLOCK_ROWS`` rows fed since (``loose``), written in together.
    ``clear`` keeps the memory, so the next window fills pages already touched."""

    __slots__ = ("buf", "n", "loose")

    def __init__(self, capacity: int = FIRST_CAPACITY) -> None:
        self.buf = np.full((len(CHANNELS), capacity), np.nan)  # filled: every page touched now
        self.n = 0
        self.loose: list[dict[str, float]] = []

    def __len__(self) -> int:
        return self.n + len(self.loose)

    def clear(self) -> None:
        self.n = 0
        self.loose = []

    def add_row(self, row: dict[str, float]) -> None:
        """One frame (a row its caller no longer mutates); every ``BLOCK_ROWS`` rows go in as columns, so
        the exit writes at most that many, however long the window."""
        self.loose.append(row)
        if len(self.loose) >= BLOCK_ROWS:
            self._settle()

    def add_cols(self, cols: dict[str, np.ndarray], a: int, b: int) -> None:
        """Frames ``a``..``b`` of a run given as columns (every channel of ``CHANNELS``, as floats)."""
        self._settle()
        end = self._room(b - a)
        for j, k in enumerate(CHANNELS):
            self.buf[j, self.n : end] = cols[k][a:b]
        self.n = end

    def columns(self) -> dict[str, np.ndarray]:
        """The frames kept, one float array per channel: views of the store, valid until it is cleared
        or written again."""
        self._settle()
        return {k: self.buf[j, : self.n] for j, k in enumerate(CHANNELS)}

    def tail_into(self, other: Kept, lo: float) -> None:
        """The frames from the first one at or past ``lo`` on, copied into ``other`` (cleared first)."""
        self._settle()
        other.clear()
        past = np.flatnonzero(self.buf[_DIST, : self.n] >= lo)
        if len(past):
            i = int(past[0])
            end = other._room(self.n - i)
            other.buf[:, :end] = self.buf[:, i : self.n]
            other.n = end

    def _room(self, k: int) -> int:
        """Where ``k`` more frames end; the store doubles first when they do not fit."""
        end = self.n + k
        cap = self.buf.shape[1]
        if end > cap:
            grown = np.full((len(CHANNELS), max(end, 2 * cap)), np.nan)
            grown[:, : self.n] = self.buf[:, : self.n]
            self.buf = grown
        return end

    def _settle(self) -> None:
        rows = self.loose
        if not rows:
            return
        self.loose = []
        k = len(rows)
        end = self._room(k)
        try:
            flat = chain.from_iterable(map(_GET_CH, rows))
            table = np.fromiter(flat, np.float64, count=k * len(CHANNELS)).reshape(k, len(CHANNELS))
            self.buf[:, self.n : end] = table.T
        except (KeyError, TypeError, ValueError):  # a channel this car does not send (or not yet): NaN there
            nan = float("nan")
            for j, ch in enumerate(CHANNELS):
                self.buf[j, self.n : end] = [_float(r.get(ch, nan)) for r in rows]
        self.n = end


def _float(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")

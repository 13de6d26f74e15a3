"""The frames a corner watcher keeps (``services.hotpath.corner_live``): rows (``feed``) or column slices of
a run (``feed_run``), turned into one float array per channel at the corner's exit."""

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


class Slice:
    """Frames ``a``..``b`` of a run fed as columns (``feed_run``): kept in place of their rows."""

    __slots__ = ("cols", "a", "b")

    def __init__(self, cols: dict[str, np.ndarray], a: int, b: int) -> None:
        self.cols, self.a, self.b = cols, a, b


def columns(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """The window's frames as one float array per channel of ``CHANNELS`` (NaN where a frame has none);
    frames kept as column slices (``feed_run``) are taken as they are."""
    if not any(type(r) is Slice for r in rows):
        return _row_columns(rows)
    parts: list[dict[str, np.ndarray]] = []
    run: list[dict[str, float]] = []
    for r in rows:
        if type(r) is Slice:
            if run:
                parts.append(_row_columns(run))
                run = []
            parts.append({k: r.cols[k][r.a : r.b] for k in CHANNELS})
        else:
            run.append(r)
    if run:
        parts.append(_row_columns(run))
    return {k: np.concatenate([p[k] for p in parts]).astype(np.float64, copy=False) for k in CHANNELS}


def _row_columns(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    n = len(rows)
    try:
        flat = chain.from_iterable(map(_GET_CH, rows))
        table = np.fromiter(flat, np.float64, count=n * len(CHANNELS)).reshape(n, len(CHANNELS))
    except (KeyError, TypeError, ValueError):  # a channel this car does not send (or not yet): NaN there
        nan = float("nan")
        return {k: np.asarray([r.get(k, nan) for r in rows], dtype=np.float64) for k in CHANNELS}
    return {k: table[:, j].copy() for j, k in enumerate(CHANNELS)}


def tail(rows: list[Any], lo: float) -> list[Any]:
    """The kept frames from the first one at or past ``lo`` on (rows or column slices)."""
    for j, r in enumerate(rows):
        if type(r) is Slice:
            past = np.flatnonzero(r.cols["dist_m"][r.a : r.b] >= lo)
            if len(past):
                return [Slice(r.cols, r.a + int(past[0]), r.b), *rows[j + 1 :]]
        elif r.get("dist_m", 0.0) >= lo:
            return rows[j:]
    return []

"""Consistency per corner: the spread of a measure (brake point, minimum speed) over a session's valid
laps, and whether it tightened from one session to the next.

The brake point is the one ``shared.corners`` measures: where the brake pressure first rises, or, on a
logger without brake pressure, where the longitudinal deceleration does (its rule, not a new one). With
neither recorded the brake point is "not recorded", never zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

MIN_LAPS = 3  # a spread of fewer laps says nothing
# a spread that changed by less than this share (and less than the floor below) is unchanged: lap-to-lap
# noise in a brake point is a few metres, in a minimum speed a few tenths of a km/h
TREND_RATIO = 0.2
TREND_FLOOR = {"brake_point_m": 2.0, "min_kmh": 0.5}

BRAKE_BY_PRESSURE = "brake pressure (where it first rises)"
BRAKE_BY_DECEL = "longitudinal deceleration (no brake pressure recorded; where braking g first builds)"


def brake_source(pressure: bool, decel: bool) -> str | None:
    """How this session's brake points were found, or None when they cannot be (not recorded)."""
    return BRAKE_BY_PRESSURE if pressure else BRAKE_BY_DECEL if decel else None


def spread(values: Iterable[float | None]) -> dict[str, float | int | None]:
    """``laps`` (finite values), ``median``, ``iqr`` (75th minus 25th percentile), ``sd`` (sample) and
    ``range``; the spreads are None with fewer than ``MIN_LAPS`` values."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    out: dict[str, float | int | None] = {
        "laps": len(v),
        "median": float(np.median(v)) if len(v) else None,
        "iqr": None,
        "sd": None,
        "range": None,
    }
    if len(v) >= MIN_LAPS:
        q1, q3 = np.percentile(v, [25, 75])
        out.update(iqr=float(q3 - q1), sd=float(np.std(v, ddof=1)), range=float(v.max() - v.min()))
    return out


def trend(iqrs: Sequence[float | None], measure: str) -> str | None:
    """``tighter``, ``wider`` or ``unchanged``: this session's spread (last) against the median spread of
    the earlier sessions that have one; None when there is nothing to compare."""
    if not iqrs or iqrs[-1] is None:
        return None
    before = [x for x in iqrs[:-1] if x is not None]
    if not before:
        return None
    ref, now = float(np.median(before)), float(iqrs[-1])
    change = now - ref
    if abs(change) <= max(TREND_RATIO * ref, TREND_FLOOR[measure]):
        return "unchanged"
    return "tighter" if change < 0 else "wider"

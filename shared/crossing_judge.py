"""The live lap tracker's judgement of each start/finish crossing on what is known so far (the batch rule
is ``shared.laps.judge_boundaries``): on track, the pit lane (slow against the on-track crossings), or
beside the racing line; and the pit-lane speed those crossings set."""

from __future__ import annotations

import numpy as np

from shared.laps import MIN_CROSS_KMH, OFF_LINE_M, PIT_SPEED_RATIO, Boundary


class CrossingJudge:
    """The on-track crossings seen so far in a live session, and each new crossing judged against them."""

    def __init__(self) -> None:
        self._speeds: list[float] = []  # speeds and lateral offsets of the on-track crossings so far
        self._laterals: list[float] = []
        self._first_off: float | None = None  # lateral of a fast off-centre crossing before any on-track one
        self._first_on: Boundary | None = None  # the first crossing judged on track, with nothing to compare

    def typical_kmh(self) -> float:
        """The on-track crossings' upper-quartile speed (before any: what makes ``MIN_CROSS_KMH`` the pit's)."""
        return float(np.percentile(self._speeds, 75)) if self._speeds else MIN_CROSS_KMH / PIT_SPEED_RATIO

    def pit_kmh(self) -> float:
        return PIT_SPEED_RATIO * self.typical_kmh()

    def judge(self, tc: float, speed_kmh: float, lateral: float) -> Boundary:
        """The batch rule on what is known so far: slow against the on-track crossings seen (or under
        ``MIN_CROSS_KMH`` before any), or beside their line (the gate centre before any), is pit lane.
        Two fast crossings in a row on one line away from the gate centre, before any on-track one,
        are the racing line (a profile whose start/finish point is off it), not the pit lane twice."""
        b = Boundary(tc, speed_kmh)
        typical = self.typical_kmh()
        ref = float(np.median(self._laterals)) if self._laterals else 0.0
        again = self._first_off is not None and abs(lateral - self._first_off) <= OFF_LINE_M
        if speed_kmh < PIT_SPEED_RATIO * typical:
            b.on_track, b.reason = False, f"crossed at {speed_kmh:.0f} km/h: pit lane"
        elif abs(lateral - ref) > OFF_LINE_M and not (not self._laterals and again):
            b.on_track, b.reason = False, f"crossed {abs(lateral - ref):.0f} m beside the racing line"
            if not self._laterals:
                self._first_off = lateral
        else:
            if not self._speeds:
                self._first_on = b
            self._speeds.append(speed_kmh)
            self._laterals.append(lateral)
        return b

    def rejudge_first(self, start: Boundary | None, edge: Boundary) -> None:
        """A lap from ``start`` closed at ``edge``. When ``start`` was the first crossing judged on track, it
        had nothing to be compared with (only ``MIN_CROSS_KMH``): once the next on-track one is known, a
        first one slow against it was the pit lane, as the import judges it, so the lap it started is the
        out-lap (a session started in the pits)."""
        if self._first_on is None or self._first_on is not start:
            return
        first, self._first_on = self._first_on, None
        if first is edge or not edge.on_track or first.speed_kmh is None:
            return
        if edge.speed_kmh is not None and first.speed_kmh < PIT_SPEED_RATIO * edge.speed_kmh:
            first.on_track, first.reason = False, f"crossed at {first.speed_kmh:.0f} km/h: pit lane"
            self._speeds.pop(0)
            self._laterals.pop(0)

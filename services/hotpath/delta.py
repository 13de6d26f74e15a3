"""Predictive lap delta: the lap in progress against a reference lap, compared by distance.

The reference is the driver's gold lap for the track when one is saved, else the session's best full
lap so far. At each distance the reference's elapsed time is interpolated (bisect on plain lists, no
numpy per frame); ``delta_s`` = elapsed now - reference elapsed at the same distance (negative = ahead),
and the predicted lap = reference lap time + delta. Updates are throttled on the wall clock, so a driver
sees ``rate_hz`` updates a second however fast frames arrive (a replay at 20x, a 1 kHz logger).

Only a lap timed from the line and on the track is compared: on a lap that began in the pit lane or
beside the line (an out-lap) an update carries ``lap_kind`` "out", and from where a lap leaves the track's
line at pit-lane speed (an in-lap: ``LiveLapTracker.pit_at``) "in", both with no delta or predicted time;
``last_lap`` is only ever a full lap (the stub from the start of the recording to the line is no lap).
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)
DEFAULT_RATE_HZ = 10.0


def elapsed_at(dist: Sequence[float], elapsed: Sequence[float], d: float) -> float | None:
    """The reference's elapsed time at distance ``d`` (linear between samples); None outside the trace."""
    if len(dist) < 2 or d < dist[0] or d > dist[-1]:
        return None
    i = bisect.bisect_left(dist, d)
    if i == 0:
        return float(elapsed[0])
    d0, d1, e0, e1 = dist[i - 1], dist[i], elapsed[i - 1], elapsed[i]
    return float(e0 + (e1 - e0) * (d - d0) / (d1 - d0)) if d1 > d0 else float(e1)


def monotone(dist: Sequence[float], elapsed: Sequence[float]) -> tuple[list[float], list[float]]:
    """A (distance, elapsed) trace with distance made non-decreasing (GPS jitter) and NaN rows dropped."""
    out_d: list[float] = []
    out_e: list[float] = []
    top = float("-inf")
    for d, e in zip(dist, elapsed, strict=True):
        if d != d or e != e:  # NaN
            continue
        top = max(top, float(d))
        out_d.append(top)
        out_e.append(float(e))
    return out_d, out_e


@dataclass
class Reference:
    source: str  # "gold" | "achievable" | "chosen" (any stored lap, chosen at start) | "last_lap" | "session_best"
    # (a session best is replaced by a faster lap, a last lap by the next valid one; the rest hold)
    lap: int | None
    time_s: float
    dist: Sequence[float]  # a list, or the frame path's own array of the lap
    elapsed: Sequence[float]

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "lap": self.lap, "time_s": round(self.time_s, 3)}


class PredictiveDelta:
    """Fed every frame by the frame path; returns a ``delta`` event when one is due."""

    def __init__(self, session_id: str, rate_hz: float = DEFAULT_RATE_HZ) -> None:
        self.session_id = session_id
        self.period_s = 1.0 / rate_hz
        self.reference: Reference | None = None
        self.last_lap: dict[str, Any] | None = None
        self._last_emit = float("-inf")
        self._crossed = False
        self._flash = False  # the line just closed a full lap: the next update says so (``crossed``)
        self.timed = True  # the lap in progress began at an on-track crossing of the line
        self.emitted = 0

    def set_reference(
        self, source: str, lap: int | None, time_s: float, dist: Sequence[float], elapsed: Sequence[float]
    ) -> None:
        self.use_trace(source, lap, time_s, *monotone(dist, elapsed))

    def use_trace(
        self, source: str, lap: int | None, time_s: float, dist: Sequence[float], elapsed: Sequence[float]
    ) -> None:
        """``set_reference`` for a trace already non-decreasing in distance and free of NaN (the frame
        path's own lap, kept so as it was driven): kept as it is, not copied, so a lap close costs the
        same whatever the lap's length. The caller never changes it afterwards."""
        if len(dist) >= 2 and time_s > 0:
            self.reference = Reference(source, lap, float(time_s), dist, elapsed)

    def lap_closed(self, lap: int, time_s: float, kind: str, valid: bool, next_timed: bool) -> None:
        """At the line: the next update is sent at once; a full lap becomes its ``last_lap``.
        ``next_timed``: the crossing that closed it was on track, so the next lap is timed from the line."""
        ref = self.reference
        if kind == "full":
            self.last_lap = {
                "lap": lap,
                "time_s": round(time_s, 3),
                "kind": kind,
                "valid": valid,
                "delta_s": round(time_s - ref.time_s, 3) if ref is not None else None,
            }
        self._flash = kind == "full"
        self.timed = next_timed
        self._crossed = True

    def due(self, wall_s: float) -> bool:
        """Would ``update`` give an event now (a lap just closed, or the period has passed)?"""
        return self._crossed or wall_s - self._last_emit >= self.period_s

    def update(
        self, wall_s: float, lap: int, dist_m: float, elapsed_s: float, in_pit: bool = False
    ) -> dict[str, Any] | None:
        if not self._crossed and wall_s - self._last_emit < self.period_s:
            return None
        self._last_emit = wall_s
        self._crossed = False
        crossed, self._flash = self._flash, False
        ref = self.reference
        kind = "out" if not self.timed else "in" if in_pit else "full"
        ref_e = elapsed_at(ref.dist, ref.elapsed, dist_m) if ref is not None and kind == "full" else None
        delta = None if ref_e is None else elapsed_s - ref_e
        self.emitted += 1
        return {
            "session_id": self.session_id,
            "lap": lap,
            "dist_m": round(dist_m, 1),
            "lap_time_s": round(elapsed_s, 3),
            "lap_kind": kind,
            "delta_s": None if delta is None else round(delta, 3),
            "predicted_s": None if delta is None or ref is None else round(ref.time_s + delta, 3),
            "reference": ref.as_dict() if ref is not None else None,
            "last_lap": self.last_lap,
            "crossed": crossed,
        }

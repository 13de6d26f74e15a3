"""A live session started without a track finds it from its own GPS fixes.

No silent default: until the fixes show which known track (shipped, or stored under the data
directory) the car is driving, the session has no lap timing and no corner cues, and says so. The
search runs on the frame path only every ``TRY_EVERY`` new fixes, once the car has covered
``MIN_SPREAD_M`` (a car waiting in the pit lane beside the circuit is not yet on it), and stops after
``GIVE_UP_FIXES``: a track Pitwall does not know stays unknown rather than guessed.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from shared.profiles.track import TrackProfile
from shared.profiles.track_detect import detect_track

TRY_EVERY = 100  # new fixes between two searches (a search projects <= 400 fixes: a few ms)
MIN_FIXES = 50
MIN_SPREAD_M = 300.0  # the fixes kept span at least this (bounding-box diagonal) before a search
KEEP_FIXES = 2000
GIVE_UP_FIXES = 20_000  # about 30 min of 10 Hz GPS on no known track: stop searching


class LiveTrackFinder:
    def __init__(self, candidates: list[TrackProfile]) -> None:
        self.candidates = candidates
        self._lat: deque[float] = deque(maxlen=KEEP_FIXES)
        self._lon: deque[float] = deque(maxlen=KEEP_FIXES)
        self.fixes = 0
        self.searches = 0
        self.done = not candidates

    def feed(self, lat: float, lon: float) -> TrackProfile | None:
        """One new GPS fix; the track when this fix settles it, else None."""
        if self.done or not (math.isfinite(lat) and math.isfinite(lon)):
            return None
        self._lat.append(lat)
        self._lon.append(lon)
        self.fixes += 1
        if self.fixes >= GIVE_UP_FIXES:
            self.done = True
            return None
        if self.fixes < MIN_FIXES or self.fixes % TRY_EVERY or self._spread_m() < MIN_SPREAD_M:
            return None
        self.searches += 1
        found = detect_track(
            np.fromiter(self._lat, float), np.fromiter(self._lon, float), candidates=self.candidates
        )
        if found is not None:
            self.done = True
        return found

    def _spread_m(self) -> float:
        la0, la1, lo0, lo1 = min(self._lat), max(self._lat), min(self._lon), max(self._lon)
        dy = (la1 - la0) * 111_320.0
        dx = (lo1 - lo0) * 111_320.0 * math.cos(math.radians((la0 + la1) / 2))
        return math.hypot(dx, dy)

"""The live lap tracker's search near the last distance over a run of frames (``NearBands``): the fixes
projected onto the stretch of the track's line they can reach, answers bit for bit ``project_near``'s."""

from __future__ import annotations

import numpy as np

from shared.geo import NearBand
from shared.laps import CATCH_UP_MPS
from shared.profiles.track import TrackProfile


class NearBands:
    """``LiveLapTracker.feed_many``'s search near the last distance: the fixes of up to ``BLOCK`` frames
    projected at once onto the stretch of line they can reach (``NearBand``, built when first needed, from
    the hint then and the distance the speed can cover), else ``project_near`` itself. Same answers."""

    BLOCK = 100
    MARGIN_M = 20.0

    def __init__(
        self,
        track: TrackProfile,
        px: np.ndarray,
        py: np.ndarray,
        t: np.ndarray,
        speed: list[float | None],
    ) -> None:
        self.line = track.line
        self.scale = self.line.length / track.length_m
        self.px, self.py, self.t = px, py, t
        self.v = np.fromiter((0.0 if s is None else s for s in speed), np.float64, len(speed)) / 3.6
        self.n = len(t)
        self.i = 0
        self.band: NearBand | None = None
        self.b0 = self.b1 = 0

    def _build(self, i: int, s_hint: float, window_m: float) -> NearBand:
        j = min(self.n, i + self.BLOCK)
        # the hint moves at most as far as the speed and the catch-up allow (a lap closing or a lost car
        # moves it elsewhere: then project_near, or a new stretch from there)
        dt = np.abs(np.diff(self.t[i:j]))
        reach = float(np.nansum(np.abs(self.v[i + 1 : j]) * dt) + CATCH_UP_MPS * dt.sum())
        ahead = reach * self.scale + window_m + self.MARGIN_M
        lo = s_hint - window_m - self.MARGIN_M
        self.band = NearBand(self.line, self.px[i:j], self.py[i:j], lo, s_hint + ahead)
        self.b0, self.b1 = i, j
        return self.band

    def near(self, x: float, y: float, s_hint: float, window_m: float) -> tuple[float, float]:
        i = self.i
        band = self.band
        if band is None or not self.b0 <= i < self.b1:
            band = self._build(i, s_hint, window_m)
        got = band.lookup(i - self.b0, s_hint, window_m) if band.ok else 1
        if got == 1 and self.b0 != i:  # the car left the stretch: a new one from here
            band = self._build(i, s_hint, window_m)
            got = band.lookup(0, s_hint, window_m) if band.ok else 1
        if isinstance(got, tuple):
            return got
        return self.line.project_near(x, y, s_hint, window_m=window_m, widen=False)

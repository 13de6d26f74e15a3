"""Small, vectorised geometry on a local flat-earth projection (fine at race-track scale)."""

from __future__ import annotations

import math
from bisect import bisect_right

import numpy as np

EARTH_R_M = 6_371_008.8


class LocalProjection:
    """Equirectangular projection around a reference point: metres east (x) and north (y)."""

    def __init__(self, lat0: float, lon0: float) -> None:
        self.lat0 = lat0
        self.lon0 = lon0
        self.kx = math.radians(1.0) * EARTH_R_M * math.cos(math.radians(lat0))
        self.ky = math.radians(1.0) * EARTH_R_M

    def xy(self, lat: np.ndarray | float, lon: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        return (np.asarray(lon) - self.lon0) * self.kx, (np.asarray(lat) - self.lat0) * self.ky

    def xy1(self, lat: float, lon: float) -> tuple[float, float]:
        return (lon - self.lon0) * self.kx, (lat - self.lat0) * self.ky

    def latlon(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(y) / self.ky + self.lat0, np.asarray(x) / self.kx + self.lon0


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R_M * math.asin(min(1.0, math.sqrt(a)))


class Polyline:
    """A closed centreline in local metres with cumulative distance; projects points onto it."""

    def __init__(self, x: np.ndarray, y: np.ndarray, closed: bool = True) -> None:
        if closed and (x[0] != x[-1] or y[0] != y[-1]):
            x = np.append(x, x[0])
            y = np.append(y, y[0])
        self.x = np.asarray(x, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        seg = np.hypot(np.diff(self.x), np.diff(self.y))
        self.s = np.concatenate([[0.0], np.cumsum(seg)])
        self.length = float(self.s[-1])
        self._dx = np.diff(self.x)
        self._dy = np.diff(self.y)
        self._l2 = np.maximum(self._dx**2 + self._dy**2, 1e-12)
        self._segs: list[tuple[float, float, float, float, float]] | None = None
        # per segment as arrays (x, y, dx, dy, squared length, length), for NearBand
        self._seg_arrays = (self.x[:-1], self.y[:-1], self._dx, self._dy, self._l2, np.sqrt(self._l2))
        self._ls: list[float] = []
        self._lsqrt: list[float] = []
        self._seg_len = 0.0

    def project(self, px: np.ndarray, py: np.ndarray, chunk: int = 4096) -> tuple[np.ndarray, np.ndarray]:
        """(distance along the line, perpendicular offset) of each point; nearest segment wins."""
        px = np.atleast_1d(np.asarray(px, dtype=np.float64))
        py = np.atleast_1d(np.asarray(py, dtype=np.float64))
        s_out = np.full(px.shape, np.nan)
        d_out = np.full(px.shape, np.nan)
        x0, y0 = self.x[:-1], self.y[:-1]
        for a in range(0, len(px), chunk):
            qx = px[a : a + chunk, None]
            qy = py[a : a + chunk, None]
            t = np.clip(((qx - x0) * self._dx + (qy - y0) * self._dy) / self._l2, 0.0, 1.0)
            cx = x0 + t * self._dx
            cy = y0 + t * self._dy
            d2 = (qx - cx) ** 2 + (qy - cy) ** 2
            k = np.argmin(d2, axis=1)
            rows = np.arange(len(k))
            s_out[a : a + chunk] = self.s[k] + t[rows, k] * np.sqrt(self._l2[k])
            d_out[a : a + chunk] = np.sqrt(d2[rows, k])
        bad = ~(np.isfinite(px) & np.isfinite(py))
        s_out[bad] = np.nan
        d_out[bad] = np.nan
        return s_out, d_out

    def project_near(
        self, px: float, py: float, s_hint: float, window_m: float = 12.0, widen: bool = True
    ) -> tuple[float, float]:
        """Scalar projection searching only segments within ``window_m`` of ``s_hint`` (live feeds:
        O(1) per frame).

        With ``widen``, searches 400 m when the nearest segment in the window is far (lost track of
        the car).
        """
        segs = self._segments()
        n = len(segs)
        if 2 * window_m >= self.length:  # a short line: every segment
            a, b = 0, n
        else:  # the segments whose span meets [s - window, s + window], found by distance: any spacing
            a, b = self._seg_index(s_hint - window_m) - 1, self._seg_index(s_hint + window_m) + 2
        # the segments in order, wrapping at the line (a repeated one never wins twice)
        ks: range | list[int] = range(a, b) if a >= 0 and b <= n else [j % n for j in range(a, b)]
        best_d2, best_k, best_t = math.inf, -1, 0.0
        for k in ks:
            x, y, dx, dy, l2 = segs[k]
            t = ((px - x) * dx + (py - y) * dy) / l2
            t = 0.0 if t < 0 else (1.0 if t > 1 else t)
            ex, ey = x + t * dx - px, y + t * dy - py
            d2 = ex * ex + ey * ey
            if d2 < best_d2:
                best_d2, best_k, best_t = d2, k, t
        best_s = 0.0 if best_k < 0 else self._ls[best_k] + best_t * self._lsqrt[best_k]
        if widen and best_d2 > 15.0**2 and window_m < 200:
            return self.project_near(px, py, s_hint, window_m=400.0)
        return best_s, math.sqrt(best_d2)

    def _seg_index(self, s: float) -> int:
        """The segment holding distance ``s``, counted on from segment 0 of the first lap of the line (a
        distance before 0 or past the end gives an index below 0 or from ``n`` on)."""
        laps, r = divmod(s, self.length)
        return bisect_right(self._ls, r) - 1 + int(laps) * (len(self._ls) - 1)

    def _segments(self) -> list[tuple[float, float, float, float, float]]:
        """Per segment (x, y, dx, dy, squared length) as plain floats, built once: scalar code reads them."""
        if self._segs is None:
            self._segs = list(
                zip(
                    self.x[:-1].tolist(),
                    self.y[:-1].tolist(),
                    self._dx.tolist(),
                    self._dy.tolist(),
                    self._l2.tolist(),
                    strict=True,
                )
            )
            self._ls = self.s.tolist()
            self._lsqrt = [math.sqrt(v) for v in self._l2.tolist()]
            self._seg_len = self.length / len(self._segs)
        return self._segs

    def heading_at(self, s: float) -> float:
        """Direction of travel at distance ``s``, degrees clockwise from north."""
        k = int(np.clip(np.searchsorted(self.s, s % self.length) - 1, 0, len(self._dx) - 1))
        return math.degrees(math.atan2(self._dx[k], self._dy[k])) % 360.0

    def point_at(self, s: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        s = np.asarray(s, dtype=np.float64) % self.length
        return np.interp(s, self.s, self.x), np.interp(s, self.s, self.y)


class NearBand:
    """``Polyline.project_near`` (``widen=False``) for many points at once: each point projected onto one
    stretch of the line's segments (from the one holding ``s_lo`` to the one holding ``s_hi``, one more
    either side, in line order), the nearest kept (the first of equals, as project_near keeps it), with
    the same float operations, so an answer is project_near's bit for bit.

    ``lookup`` gives point ``i``'s answer for a hint and window when that window lies inside the stretch
    and holds the stretch's nearest segment (then nothing outside it can be nearer, and nothing before
    it in the window is as near); otherwise a reason (1: the window leaves the stretch, 2: the nearest
    segment of the stretch is outside the window) and the caller runs project_near."""

    EPS_M = 1e-6  # window edges are compared this conservatively (divmod on the line vs unwrapped sums)

    def __init__(self, line: Polyline, px: np.ndarray, py: np.ndarray, s_lo: float, s_hi: float) -> None:
        line._segments()
        n = len(line._dx)
        self.length = line.length
        self.a = line._seg_index(s_lo) - 1
        self.b = line._seg_index(s_hi) + 2
        self.ok = 0 < self.b - self.a <= n and len(px) > 0
        if not self.ok:
            return
        idx = np.arange(self.a, self.b) % n
        sx, sy, sdx, sdy, sl2, slsqrt = line._seg_arrays
        x0, y0, dx, dy, l2 = sx[idx], sy[idx], sdx[idx], sdy[idx], sl2[idx]
        qx, qy = px[:, None], py[:, None]
        with np.errstate(invalid="ignore"):
            t = ((qx - x0) * dx + (qy - y0) * dy) / l2
            t = np.where(t < 0, 0.0, np.where(t > 1, 1.0, t))
            ex = x0 + t * dx - qx
            ey = y0 + t * dy - qy
            d2 = ex * ex + ey * ey
        k = np.argmin(d2, axis=1)
        rows = np.arange(len(px))
        kk = idx[k]
        self.s = (line.s[kk] + t[rows, k] * slsqrt[kk]).tolist()
        self.off = np.sqrt(d2[rows, k]).tolist()
        self.k = (k + self.a).tolist()
        j = np.arange(self.a - 1, self.b + 3)  # unwrapped segment start distances, a-1 .. b+2
        self.starts = (line.s[j % n] + (j // n) * line.length).tolist()

    def lookup(self, i: int, s_hint: float, window_m: float) -> tuple[float, float] | int:
        if 2 * window_m >= self.length:
            return 1
        st, k, eps = self.starts, self.k[i], self.EPS_M
        o = self.a - 1  # st[j - o] is where segment j starts, unwrapped
        reason = 1
        for s in (s_hint, s_hint + self.length, s_hint - self.length):
            lo, hi = s - window_m, s + window_m
            # project_near's window: segments idx(lo) - 1 .. idx(hi) + 1, idx(v) the one holding v; inside
            # the stretch when idx(lo) > a and idx(hi) < b - 2; holding k when idx(lo) <= k + 1 <= idx(hi) + 2
            if not (st[self.a + 1 - o] <= lo - eps and hi + eps < st[self.b - 1 - o]):
                continue
            if st[k + 2 - o] > lo + eps and st[k - 1 - o] <= hi - eps:
                return self.s[i], self.off[i]
            reason = 2
        return reason

"""The live scalar projection (``Polyline.project_near``) agrees with the vectorised ``project`` on points
near the line, on a real track and on a synthetic one with a hairpin whose legs run 40 m apart, across the
wrap at the start/finish line, and on a line spaced as raw map nodes are (1 m in the bends, 60 m on the
straights). Its window must scan the segments either side of the hint, in order, found by distance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shared.geo import Polyline
from shared.profiles.track import load_track


def _hairpin() -> Polyline:
    # out along a straight, a tight hairpin (radius 20 m) and back 40 m beside it, closed
    xs = list(np.linspace(0.0, 400.0, 41))
    ys = [0.0] * 41
    for a in np.linspace(-math.pi / 2, math.pi / 2, 25)[1:-1]:
        xs.append(400.0 + 20.0 * math.cos(a))
        ys.append(20.0 + 20.0 * math.sin(a))
    xs += list(np.linspace(400.0, 0.0, 41))
    ys += [40.0] * 41
    for a in np.linspace(math.pi / 2, 3 * math.pi / 2, 25)[1:-1]:
        xs.append(20.0 * math.cos(a))
        ys.append(20.0 + 20.0 * math.sin(a))
    raw = Polyline(np.array(xs), np.array(ys), closed=True)
    # resampled every ~5 m like a track's centreline: the window is found by segment count
    x, y = raw.point_at(np.linspace(0.0, raw.length, int(raw.length / 5.0), endpoint=False))
    return Polyline(x, y, closed=True)


def _irregular() -> Polyline:
    """The hairpin as raw map nodes are: 1 m apart in the bends, 60 m apart on the straights."""
    raw = _hairpin()
    st = np.concatenate(
        [np.arange(0.0, 400.0, 60.0), np.arange(400.0, 470.0, 1.0), np.arange(470.0, 870.0, 60.0)]
    )
    st = np.concatenate([st, np.arange(870.0, raw.length, 1.0)])
    x, y = raw.point_at(st)
    return Polyline(x, y, closed=True)


def _circular(a: float, b: float, length: float) -> float:
    d = abs(a - b) % length
    return min(d, length - d)


@pytest.mark.parametrize("which", ["sonoma", "hairpin", "irregular"])
def test_project_near_matches_project_near_the_line(which: str) -> None:
    line = {"sonoma": load_track("sonoma").line, "hairpin": _hairpin(), "irregular": _irregular()}[which]
    rng = np.random.default_rng(7)
    n = 3000
    s = np.concatenate([rng.uniform(0, line.length, n - 200), rng.uniform(-15, 15, 200) % line.length])
    cx, cy = line.point_at(s)
    ang = rng.uniform(0, 2 * math.pi, n)
    off = rng.uniform(0, 6.0, n)  # well inside half the hairpin's 40 m gap: the nearest leg is this one
    px, py = cx + off * np.cos(ang), cy + off * np.sin(ang)
    want_s, want_d = line.project(px, py)
    checked_wrap = 0
    for i in range(n):
        hint = float(s[i] + rng.uniform(-8, 8)) % line.length  # the live hint is near, not exact
        got_s, got_d = line.project_near(float(px[i]), float(py[i]), hint, window_m=30.0, widen=False)
        assert got_d == pytest.approx(float(want_d[i]), abs=1e-9), (i, hint)
        assert _circular(got_s, float(want_s[i]), line.length) < 1e-6, (i, got_s, want_s[i])
        checked_wrap += hint < 30.0 or hint > line.length - 30.0
    assert checked_wrap > 100  # the window wrapped at the line many times


def test_project_near_widens_when_lost() -> None:
    line = _hairpin()
    x, y = line.point_at(200.0)  # the hint is 300 m away: the 12 m window misses, widening finds it
    s, d = line.project_near(float(x), float(y), 500.0)
    assert d == pytest.approx(0.0, abs=1e-9)
    assert s == pytest.approx(200.0, abs=1e-6)

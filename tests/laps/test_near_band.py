"""``NearBand``: many points projected at once onto a stretch of the line; every answer it gives is
``Polyline.project_near``'s (``widen=False``) bit for bit, and it answers the usual case (a window inside
the stretch), including stretches and windows across the start of the line."""

from __future__ import annotations

import numpy as np

from shared.geo import NearBand
from shared.profiles.track import load_track


def test_near_band_answers_are_project_near_answers() -> None:
    line = load_track("sonoma").line
    rng = np.random.default_rng(7)
    answered = asked = 0
    for _ in range(300):
        s0 = float(rng.uniform(-50, line.length + 50))
        ahead = float(rng.uniform(20, 400))
        n = 40
        s = (s0 + np.sort(rng.uniform(0, ahead, n))) % line.length
        x, y = line.point_at(s)
        px = x + rng.normal(0, 15, n)
        py = y + rng.normal(0, 15, n)
        px[rng.random(n) < 0.05] += rng.uniform(-300, 300)  # a few far off (a glitch)
        band = NearBand(line, px, py, s0 - 40, s0 + ahead + 40)
        assert band.ok
        for i in range(n):
            hint = float((s[i] + rng.normal(0, 10)) % line.length)
            window = float(rng.choice([5.0, 30.0, 45.0, float(rng.uniform(1, 120))]))
            got = band.lookup(i, hint, window)
            asked += 1
            if isinstance(got, tuple):
                answered += 1
                assert got == line.project_near(
                    float(px[i]), float(py[i]), hint, window_m=window, widen=False
                )
    assert answered > 0.6 * asked  # the rest: windows leaving the stretch (project_near then)


def test_a_window_outside_the_stretch_is_not_answered() -> None:
    line = load_track("sonoma").line
    x, y = line.point_at(np.array([1000.0, 2000.0]))
    band = NearBand(line, x, y, 950.0, 1100.0)
    assert isinstance(band.lookup(0, 1000.0, 30.0), tuple)
    assert band.lookup(1, 2000.0, 30.0) == 1  # far outside: project_near's job
    assert band.lookup(0, 1000.0, line.length) == 1  # a window over the whole line

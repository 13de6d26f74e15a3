"""The one lap rule on synthetic sessions where the truth is known by construction: a circular
track of radius 200 m, the start/finish line at its north point, 10 Hz GPS."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shared.geo import LocalProjection
from shared.laps import (
    Boundary,
    LiveLapTracker,
    detect_laps,
    judge_boundaries,
    lap_kind,
)
from shared.profiles.track import StartFinish, TrackProfile

R = 200.0
LAT0, LON0 = 45.0, 7.0
PROJ = LocalProjection(LAT0, LON0)
LAP_M = 2 * math.pi * R


def _track() -> TrackProfile:
    th = np.linspace(0, 2 * math.pi, 200, endpoint=False)
    lat, lon = PROJ.latlon(R * np.sin(th), R * np.cos(th))
    sf_lat, sf_lon = PROJ.latlon(np.array([0.0]), np.array([R]))
    return TrackProfile(
        id="ring",
        name="Ring",
        length_m=LAP_M,
        centreline=list(zip(lat.tolist(), lon.tolist(), strict=True)),
        start_finish=StartFinish(
            lat=float(sf_lat[0]), lon=float(sf_lon[0]), heading_deg=90.0, half_width_m=40
        ),
    )


def _session(parts: list[tuple[float, float, float]], start_deg: float = -30.0) -> dict[str, np.ndarray]:
    """``parts``: (laps to drive, speed km/h, offset from the racing line in m, + outside)."""
    dt = 0.1
    th = math.radians(start_deg)
    ts, xs, ys, vs = [], [], [], []
    t = 0.0
    for laps, v, off in parts:
        end = th + laps * 2 * math.pi
        while th < end:
            r = R + off
            ts.append(t)
            xs.append(r * math.sin(th))
            ys.append(r * math.cos(th))
            vs.append(v)
            th += v / 3.6 * dt / r
            t += dt
    lat, lon = PROJ.latlon(np.array(xs), np.array(ys))
    return {"t_s": np.array(ts), "lat": lat, "lon": lon, "speed_kmh": np.array(vs)}


def _kinds(wide: dict[str, np.ndarray], **kw: object) -> list[str]:
    return [lp.kind for lp in detect_laps(wide, _track(), **kw)]  # type: ignore[arg-type]


def test_pit_lane_start_beside_the_line_makes_the_out_lap() -> None:
    # out of the pit lane 25 m outside the racing line, slowly; then flying laps; stops mid-lap
    w = _session([(0.2, 60, 25), (0.8, 120, 0), (4, 150, 0), (0.5, 150, 0)])
    laps = detect_laps(w, _track())
    assert [lp.kind for lp in laps] == ["out", "out", "full", "full", "full", "full", "in"]
    full = [lp for lp in laps if lp.kind == "full"]
    assert all(abs(lp.time_s - LAP_M / (150 / 3.6)) < 0.05 for lp in full)
    assert "pit lane" in (laps[1].invalid_reason or "") or "beside" in (laps[1].invalid_reason or "")


def test_fast_crossing_beside_the_racing_line_is_not_on_track() -> None:
    w = _session([(0.2, 150, 20), (0.8, 150, 0), (3, 150, 0), (0.3, 150, 0)])
    assert _kinds(w) == ["out", "out", "full", "full", "full", "in"]


def test_slow_crossing_on_the_racing_line_is_a_pit_lane_crossing() -> None:
    w = _session([(0.2, 50, 0), (0.8, 120, 0), (3, 150, 0), (0.3, 150, 0)])
    assert _kinds(w) == ["out", "out", "full", "full", "full", "in"]


def test_a_lap_ending_in_the_pit_lane_is_the_in_lap_and_the_next_starts_out() -> None:
    # three flying laps, then the last bend of lap 4 and the line in the pit lane, then out again
    w = _session([(3.8, 150, 0), (0.4, 50, 25), (0.8, 120, 0), (2, 150, 0), (0.2, 150, 0)], start_deg=-10)
    assert _kinds(w) == ["out", "full", "full", "full", "in", "out", "full", "full", "in"]


def test_crossing_at_typical_speed_on_the_line_is_full_even_when_the_lap_starts_at_recording() -> None:
    w = _session([(0.9, 150, 0), (2, 150, 0), (0.1, 150, 0)])
    assert _kinds(w) == ["out", "full", "full", "in"]


def test_no_crossing_is_one_untrusted_out_segment() -> None:
    w = _session([(0.5, 150, 0)], start_deg=20)
    laps = detect_laps(w, _track())
    assert len(laps) == 1 and laps[0].kind == "out" and not laps[0].valid


def test_logger_beacons_are_judged_against_gps_and_the_end_of_the_recording() -> None:
    w = _session([(0.2, 50, 25), (0.8, 120, 0), (3, 150, 0), (0.5, 150, 0)])
    gps = detect_laps(w, _track())
    beacons = [lp.t_end_s for lp in gps[:-1]] + [float(w["t_s"][-1])]  # the logger ends at the last sample
    laps = detect_laps(w, None, beacons)
    assert [lp.kind for lp in laps] == [lp.kind for lp in gps]
    assert [round(lp.time_s, 3) for lp in laps] == [round(lp.time_s, 3) for lp in gps]
    # markers beyond the data (a file cut short) bound no laps
    cut = detect_laps(w, None, [*beacons[:-1], float(w["t_s"][-1]) + 50.0, float(w["t_s"][-1]) + 120.0])
    assert [lp.kind for lp in cut] == [lp.kind for lp in gps]
    # a lap the logger places away from the line ends the session as the in lap
    off = detect_laps(w, None, beacons, off_line_s=[beacons[-2]])
    assert [lp.kind for lp in off][-2:] == ["in", "in"]


def test_judge_boundaries_thresholds() -> None:
    def b(v: float, x: float = 0.0) -> Boundary:
        return Boundary(0.0, v, x, 0.0)

    bs = [b(100), b(100), b(100), b(100), b(60.0), b(59.9), b(100, 12.0), b(100, 12.1)]
    judge_boundaries(bs)
    assert [x.on_track for x in bs] == [True, True, True, True, True, False, True, False]
    # no GPS: speed alone; no speed: position alone
    nog = [Boundary(0.0, 100), Boundary(0.0, 50)]
    judge_boundaries(nog)
    assert [x.on_track for x in nog] == [True, False]
    nospd = [Boundary(0.0, None, 0.0, 0.0), Boundary(0.0, None, 0.0, 1.0), Boundary(0.0, None, 0.0, 30.0)]
    judge_boundaries(nospd)
    assert [x.on_track for x in nospd] == [True, True, False]
    logged = [Boundary(10.0, 100), Boundary(20.0, 100)]
    judge_boundaries(logged, frozenset({20.001}))
    assert [x.on_track for x in logged] == [True, False]


@pytest.mark.parametrize(
    ("start", "end", "kind"),
    [
        (None, True, "out"),
        (False, True, "out"),
        (True, True, "full"),
        (True, False, "in"),
        (True, None, "in"),
        (False, None, "in"),
        (None, None, "in"),
        (False, False, "out"),
    ],
)
def test_lap_kind_truth_table(start: bool | None, end: bool | None, kind: str) -> None:
    s = None if start is None else Boundary(0.0, on_track=start)
    e = None if end is None else Boundary(1.0, on_track=end)
    assert lap_kind(s, e) == kind


def test_live_tracker_applies_the_same_rule() -> None:
    w = _session([(0.2, 60, 25), (0.8, 120, 0), (3, 150, 0), (0.3, 40, 0), (0.7, 150, 0), (1, 150, 0)])
    tr = LiveLapTracker(_track())
    kinds = []
    for t, la, lo, v in zip(w["t_s"], w["lat"], w["lon"], w["speed_kmh"], strict=True):
        st = tr.feed(float(t), float(la), float(lo), float(v))
        if st.crossed is not None:
            kinds.append(st.crossed.kind)
    assert kinds == ["out", "out", "full", "full", "in", "out"]
    assert tr.best_lap_s is not None and abs(tr.best_lap_s - LAP_M / (150 / 3.6)) < 0.05

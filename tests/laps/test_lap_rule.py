"""The one lap rule on synthetic sessions where the truth is known by construction: a circular
track of radius 200 m, the start/finish line at its north point, 10 Hz GPS."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shared.geo import LocalProjection
from shared.laps import Boundary, judge_boundaries, lap_kind
from shared.laps_live import LiveLapTracker
from shared.laps_recorded import detect_laps
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
    assert off[-2].invalid_reason == "in-lap: the logger places this lap end away from the line"
    # the logger's time must match the boundary (to its ms rounding), not merely be near it
    near = detect_laps(w, None, beacons, off_line_s=[beacons[-2] + 0.5])
    assert [lp.kind for lp in near] == [lp.kind for lp in gps]


def test_judge_boundaries_thresholds() -> None:
    def b(v: float, x: float = 0.0) -> Boundary:
        return Boundary(0.0, v, (x, 0.0))

    bs = [b(100), b(100), b(100), b(100), b(60.0), b(59.9), b(100, 12.0), b(100, 12.1)]
    judge_boundaries(bs)
    assert [x.on_track for x in bs] == [True, True, True, True, True, False, True, False]
    # no GPS: speed alone; no speed: position alone
    nog = [Boundary(0.0, 100), Boundary(0.0, 50)]
    judge_boundaries(nog)
    assert [x.on_track for x in nog] == [True, False]
    nospd = [
        Boundary(0.0, None, (0.0, 0.0)),
        Boundary(0.0, None, (0.0, 1.0)),
        Boundary(0.0, None, (0.0, 30.0)),
    ]
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
    live = []
    for t, la, lo, v in zip(w["t_s"], w["lat"], w["lon"], w["speed_kmh"], strict=True):
        st = tr.feed(float(t), float(la), float(lo), float(v))
        if st.crossed is not None:
            live.append(st.crossed)
            assert st.lap == st.crossed.lap + 1 and st.dist_m < 30.0  # the new lap starts at the line
    assert [lp.kind for lp in live] == ["out", "out", "full", "full", "in", "out"]
    batch = detect_laps(w, _track())
    assert [lp.kind for lp in batch[: len(live)]] == [lp.kind for lp in live]
    for a, b in zip(live, batch, strict=False):
        assert a.lap == b.lap and a.valid == b.valid  # reasons differ: live knows only the crossings so far
        assert a.t_start_s == pytest.approx(b.t_start_s, abs=0.02) and a.t_end_s == pytest.approx(
            b.t_end_s, abs=0.02
        )
        assert a.time_s == round(a.t_end_s - a.t_start_s, 3)
        assert a.dist_m == pytest.approx(b.dist_m, abs=10.0)
    assert live[1].invalid_reason == "out-lap: crossed 25 m beside the racing line"
    assert live[4].invalid_reason == "in-lap: crossed at 40 km/h: pit lane"
    best = min(lp.time_s for lp in live if lp.kind == "full")
    assert tr.best_lap_s == best and abs(best - LAP_M / (150 / 3.6)) < 0.05


def _consistent(laps: list, w: dict[str, np.ndarray]) -> None:
    """Laps tile the recording: numbered in order, each starting where the last ended, times and
    distances from their own ends and the speed trace."""
    t = w["t_s"]
    assert laps[0].t_start_s == float(t[0])
    for k, lp in enumerate(laps):
        assert lp.lap == k
        assert lp.time_s == round(lp.t_end_s - lp.t_start_s, 3)
        if k:
            assert lp.t_start_s == laps[k - 1].t_end_s
        m = (t >= lp.t_start_s) & (t <= lp.t_end_s)
        if m.sum() >= 2:
            want = float(np.trapezoid(w["speed_kmh"][m] / 3.6, t[m]))
            assert lp.dist_m == pytest.approx(want, abs=0.06)
        assert lp.valid == (lp.kind == "full")
        assert (lp.invalid_reason is None) == lp.valid


def test_laps_tile_the_recording_and_say_why_they_are_not_full() -> None:
    w = _session([(0.2, 60, 25), (0.8, 120, 0), (3, 150, 0), (0.5, 150, 0)])
    laps = detect_laps(w, _track())
    _consistent(laps, w)
    assert laps[-1].t_end_s == float(w["t_s"][-1])
    assert laps[0].invalid_reason == "out-lap"
    assert laps[1].invalid_reason == "out-lap: crossed at 60 km/h, typical 150 km/h: pit lane"
    assert laps[-1].invalid_reason == "in-lap"
    beside = detect_laps(_session([(0.2, 150, 20), (0.8, 150, 0), (3, 150, 0), (0.3, 150, 0)]), _track())
    assert beside[1].invalid_reason == "out-lap: crossed 20 m beside the racing line"
    pit_in = detect_laps(_session([(2.8, 150, 0), (0.4, 50, 25), (0.9, 150, 0)], start_deg=-10), _track())
    _consistent(pit_in, _session([(2.8, 150, 0), (0.4, 50, 25), (0.9, 150, 0)], start_deg=-10))
    assert [lp.kind for lp in pit_in][-3:] == ["in", "out", "in"]
    assert pit_in[-3].invalid_reason == ("in-lap: crossed at 50 km/h, typical 150 km/h: pit lane")


def test_without_gps_or_beacons_there_is_one_untrusted_segment() -> None:
    w = _session([(2.5, 150, 0)])
    no_gps = {"t_s": w["t_s"], "speed_kmh": w["speed_kmh"]}
    laps = detect_laps(no_gps, None)
    assert len(laps) == 1
    lp = laps[0]
    assert (lp.lap, lp.t_start_s, lp.t_end_s, lp.kind, lp.valid) == (
        0,
        0.0,
        float(w["t_s"][-1]),
        "out",
        False,
    )
    assert lp.time_s == pytest.approx(float(w["t_s"][-1]))
    assert lp.invalid_reason == "no GPS and no beacons: no lap crossings"
    # GPS but never across the line: one segment with its distance
    one = _session([(0.5, 150, 0)], start_deg=20)
    seg = detect_laps(one, _track())[0]
    assert (seg.lap, seg.t_start_s, seg.kind, seg.valid) == (0, 0.0, "out", False)
    assert seg.t_end_s == float(one["t_s"][-1]) and seg.time_s == round(seg.t_end_s, 3)
    assert seg.invalid_reason == "no lap crossing in the session"
    assert seg.dist_m == pytest.approx(float(np.trapezoid(one["speed_kmh"] / 3.6, one["t_s"])), abs=0.06)
    assert detect_laps({"t_s": np.zeros(0)}, None) == []


def test_beacons_at_the_edges_of_the_recording() -> None:
    w = _session([(0.9, 150, 0), (2, 150, 0), (0.5, 150, 0)])
    gps = [lp.t_end_s for lp in detect_laps(w, _track())[:-1]]
    t1 = float(w["t_s"][-1])
    # a marker at the first sample is no crossing; one just past the last sample is the recording's end
    laps = detect_laps(w, None, [0.2, *gps, t1 + 0.5])
    assert [lp.kind for lp in laps] == ["out", "full", "full", "full", "in"]
    assert laps[-1].t_end_s == t1 + 0.5
    _consistent(laps[:-1], w)
    # a marker more than 1 s past the data is dropped: the data's end closes the in lap
    late = detect_laps(w, None, [*gps, t1 + 1.5])
    assert late[-1].t_end_s == t1 and late[-1].kind == "in"
    # the logger's last marker a moment before the last sample still ends the recording
    near_end = detect_laps(w, None, [*gps, t1 - 0.2])
    assert len(near_end) == 5 and near_end[-1].t_end_s == t1 - 0.2
    beyond = detect_laps(w, None, [*gps, t1 - 0.3])
    assert len(beyond) == 6 and beyond[-1].t_end_s == t1


def test_gps_crossing_edge_cases() -> None:
    tr = _track()
    # within the line's half width (40 m) it counts, beyond it does not
    inside = _session([(0.2, 150, 39), (0.8, 150, 0), (2, 150, 0), (0.3, 150, 0)])
    outside = _session([(0.2, 150, 41), (0.8, 150, 0), (2, 150, 0), (0.3, 150, 0)])
    assert len(detect_laps(inside, tr)) == len(detect_laps(outside, tr)) + 1
    # a car crawling across (under 5 km/h) is GPS jitter, not a crossing; at 6 km/h it crosses
    crawl = _session([(0.01, 4, 0), (0.8, 150, 0), (2, 150, 0), (0.3, 150, 0)], start_deg=-0.1)
    walk = _session([(0.01, 6, 0), (0.8, 150, 0), (2, 150, 0), (0.3, 150, 0)], start_deg=-0.1)
    assert len(detect_laps(walk, tr)) == len(detect_laps(crawl, tr)) + 1
    # a GPS gap over 2 s across the line: no honest crossing time
    w = _session([(0.9, 150, 0), (2, 150, 0), (0.3, 150, 0)])
    ok = detect_laps(w, tr)
    cross = ok[1].t_end_s
    gap = (w["t_s"] < cross - 1.3) | (w["t_s"] > cross + 1.0)
    holed = {k: v[gap] for k, v in w.items()}
    assert len(detect_laps(holed, tr)) == len(ok) - 1
    short = (w["t_s"] < cross - 0.8) | (w["t_s"] > cross + 0.8)
    assert len(detect_laps({k: v[short] for k, v in w.items()}, tr)) == len(ok)


def test_crossings_closer_than_the_minimum_lap_are_one() -> None:
    from shared.laps import gate_for
    from shared.laps_recorded import gps_crossings

    w = _session([(0.9, 150, 0), (3, 150, 0)])
    lap_s = LAP_M / (150 / 3.6)
    got = gps_crossings(w, gate_for(_track()), min_lap_s=lap_s + 0.5)
    assert len(got) == 2 and got[1] - got[0] == pytest.approx(2 * lap_s, abs=0.05)
    assert len(gps_crossings(w, gate_for(_track()), min_lap_s=lap_s - 0.5)) == 4


def test_beside_and_away_on_a_line_at_an_angle_and_off_the_origin() -> None:
    d = (0.6, 0.8)  # travel north-north-east
    n = (0.8, -0.6)  # across it
    c = (100.0, 50.0)

    def at(along: float, across: float) -> Boundary:
        xy = (c[0] + along * d[0] + across * n[0], c[1] + along * d[1] + across * n[1])
        return Boundary(0.0, 150.0, xy, d)

    bs = [at(0, 0), at(0, 0), at(0, 0), at(40, 0), at(-40, 11), at(0, 13), at(0, -13), at(55, 0), at(-55, 0)]
    judge_boundaries(bs)
    assert [b.on_track for b in bs] == [True, True, True, True, True, False, False, False, False]
    assert (
        bs[6].reason == "crossed 13 m beside the racing line"
        and bs[8].reason == "55 m from the start/finish line"
    )


def test_beside_is_across_the_direction_of_travel_and_away_is_along_it() -> None:
    east = (1.0, 0.0)  # driving east: x along the track, y across it

    def b(x: float, y: float) -> Boundary:
        return Boundary(0.0, 150.0, (x, y), east)

    bs = [b(0, 0), b(0, 0), b(1, 0), b(20, 3), b(-49, 0), b(0, 12.5), b(51, 0), b(-60, 1)]
    judge_boundaries(bs)
    assert [x.on_track for x in bs] == [True, True, True, True, True, False, False, False]
    assert bs[5].reason == "crossed 12 m beside the racing line"
    assert bs[6].reason == "51 m from the start/finish line"
    # the median direction of travel, not the first one, orients the line
    north = [Boundary(0.0, 150.0, (0.0, 0.0), (0.0, 1.0)) for _ in range(3)]
    odd = Boundary(0.0, 150.0, (13.0, 0.0), (1.0, 0.0))
    judge_boundaries([odd, *north])
    assert not odd.on_track and odd.reason == "crossed 13 m beside the racing line"


def test_logger_markers_with_timing_jitter_stay_on_the_line() -> None:
    """A logger's beacon times are a few tenths off the GPS: along the track that is 10-15 m at speed,
    which must not read as 'beside the racing line'."""
    w = _session([(0.2, 60, 25), (0.8, 120, 0), (4, 150, 0), (0.5, 150, 0)])
    gps = detect_laps(w, _track())
    ends = [lp.t_end_s for lp in gps[:-1]]
    jittered = [t + (0.35 if k % 2 else -0.35) for k, t in enumerate(ends)]
    laps = detect_laps(w, None, [*jittered, float(w["t_s"][-1])])
    assert [lp.kind for lp in laps] == [lp.kind for lp in gps]


def test_a_recording_that_stops_on_the_line_ends_with_a_full_lap() -> None:
    w = _session([(0.9, 150, 0), (3, 150, 0)])
    laps = detect_laps(w, _track())
    cut = laps[-2].t_end_s + 0.1  # stop 0.1 s after the third crossing
    short = {k: v[w["t_s"] <= cut] for k, v in w.items()}
    got = detect_laps(short, _track())
    assert [lp.kind for lp in got] == ["out", "full", "full", "full"]
    assert got[-1].t_end_s == pytest.approx(laps[-2].t_end_s, abs=0.005)  # fewer fixes after the line


def test_gps_is_required_for_gate_crossings_even_with_a_track() -> None:
    w = _session([(2.5, 150, 0)])
    later = {"t_s": w["t_s"] + 100.0, "speed_kmh": w["speed_kmh"]}  # no lat/lon; the log starts at 100 s
    lp = detect_laps(later, _track())[0]
    assert (lp.t_start_s, lp.kind) == (100.0, "out") and lp.time_s == pytest.approx(float(w["t_s"][-1]))


def test_live_tracker_learns_a_racing_line_away_from_the_profiles_line_centre() -> None:
    """A profile whose start/finish point lies 20 m off the racing line: the first fast crossing there
    looks like the pit lane, the second on the same line shows it is the racing line."""
    tr = _track()
    off = tr.model_copy(
        update={
            "start_finish": tr.start_finish.model_copy(update={"lat": tr.start_finish.lat + 20 / 111_195})
        }
    )
    w = _session([(0.9, 150, 0), (4, 150, 0), (0.2, 150, 0)])
    tracker = LiveLapTracker(off)
    kinds = []
    for t, la, lo, v in zip(w["t_s"], w["lat"], w["lon"], w["speed_kmh"], strict=True):
        st = tracker.feed(float(t), float(la), float(lo), float(v))
        if st.crossed is not None:
            kinds.append(st.crossed.kind)
    assert kinds[:2] == ["out", "out"] and len(kinds) >= 4 and set(kinds[2:]) == {"full"}

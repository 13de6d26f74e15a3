"""Brake points come from the braking zone that belongs to the corner: the last substantial zone before
the apex, starting where the pressure first rises above the sensor's resting reading."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared.corners import corner_metrics
from shared.profiles.track import Corner


def _lap(brake: np.ndarray, d: np.ndarray, speed: np.ndarray | None = None) -> dict[str, np.ndarray]:
    return {
        "t_s": d / 30.0,
        "dist_m": d,
        "speed_kmh": speed if speed is not None else 200.0 - 100.0 * np.exp(-(((d - 950.0) / 60.0) ** 2)),
        "brake_bar": brake,
        "throttle_pct": np.where(brake > 1, 0.0, 100.0),
    }


C = Corner(id="c", name="C", short="C", seq=1, start_m=900.0, apex_m=950.0, end_m=1000.0)
D = np.arange(500.0, 1100.0, 1.0)


def test_the_last_zone_before_the_apex_even_when_an_earlier_one_is_harder() -> None:
    brake = np.zeros(len(D))
    brake[(D >= 640) & (D < 700)] = 110.0  # a hard stop for a bend before (or a brake test)
    brake[(D >= 820) & (D < 950)] = 45.0  # this corner's own, lighter zone
    m = corner_metrics(_lap(brake, D), C)
    assert m is not None and m["brake_point_m"] == 820.0 and m["brake_peak_bar"] == 45.0


def test_a_dab_is_not_a_brake_point_and_a_brief_release_does_not_split_a_zone() -> None:
    brake = np.zeros(len(D))
    brake[(D >= 800) & (D < 880)] = 60.0
    brake[(D >= 890) & (D < 940)] = 30.0  # released for 10 m: one zone
    brake[(D >= 930) & (D < 945)] = 8.0  # a dab into the apex, below 15 bar
    brake[(D >= 930) & (D < 940)] = 30.0
    m = corner_metrics(_lap(brake, D), C)
    assert m is not None and m["brake_point_m"] == 800.0 and m["brake_peak_bar"] == 60.0
    dab = np.zeros(len(D))
    dab[(D >= 900) & (D < 920)] = 12.0
    m = corner_metrics(_lap(dab, D), C)
    assert m is not None and m["brake_point_m"] is None and m["brake_peak_bar"] is None


def test_the_zone_starts_where_the_pressure_first_rises_above_the_resting_reading() -> None:
    rest = 2.0  # a sensor that reads 2 bar with the foot off
    brake = np.full(len(D), rest)
    ramp = (D >= 850) & (D < 870)
    brake[ramp] = rest + np.linspace(0.5, 80.0, int(ramp.sum()))  # 20 m squeeze
    brake[(D >= 870) & (D < 950)] = 82.0
    m = corner_metrics(_lap(brake, D), C)
    assert m is not None and m["brake_point_m"] == pytest.approx(851.0, abs=1.0)


def test_without_pressure_the_deceleration_says_where_braking_started() -> None:
    a = _lap(np.full(len(D), np.nan), D)
    del a["brake_bar"]
    g = np.zeros(len(D))
    g[(D >= 840) & (D < 945)] = -0.9
    g[(D >= 835) & (D < 840)] = -0.2
    a["g_long"] = g
    m = corner_metrics(a, C)
    assert m is not None and m["brake_point_m"] == 835.0 and m["brake_peak_bar"] is None


def test_real_sonoma_session_brake_points_sit_by_the_markers(shared_dir: Path) -> None:
    from shared.importers import read_log
    from shared.profiles.car import load_car
    from shared.profiles.track import load_track
    from shared.session_build import analyse

    log = read_log(shared_dir / "data" / "vbox" / "sonoma_vbox0240.csv")
    car = load_car("generic")
    wide, _ = car.to_wide(log)
    track = load_track("sonoma")
    a = analyse(wide, car, track, log.beacons_s)
    full = {lp.lap for lp in a.laps if lp.kind == "full"}
    for cid, lo, hi in (("t2", 320.0, 390.0), ("t4", 870.0, 945.0)):
        bps = [r["brake_point_m"] for r in a.corners if r["corner_id"] == cid and r["lap"] in full]
        got = [b for b in bps if b is not None]
        assert len(got) >= 0.7 * len(bps) and got, (cid, bps)
        assert all(lo <= b <= hi for b in got), (cid, [round(b) for b in got])
    for r in a.corners:
        if r["brake_point_m"] is not None:
            assert r["brake_point_m"] < r["apex_m"]

"""Cars with full data systems: every channel a coach reads is mapped by what the file says it is (XRK
channel function, then name families, then the unit), with the right unit; the car's IMU beats GPS-derived
g and yaw; the driver's pedal beats the throttle body; alarms are named; coverage counts no-reading
markers and frozen stretches as missing. Truth comes from tests/support/team_logs.py's physics."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np
import pytest

from shared.channel_user import parse_user_map
from shared.importers import read_log
from shared.importers.base import RawChannel, RawLog
from shared.ingest import import_file
from shared.profiles.car import load_car
from shared.quality import capabilities
from shared.settings import settings_for
from shared.store.publisher import lake_reader_views
from tests.support.team_logs import (
    ABS_SETS,
    ALARM_S,
    RATE,
    SECONDS,
    TC_SETS,
    audi_columns,
    drive,
    tcr_xrk_log,
    write_aim_csv,
)

TCR_MAPPED = {
    "GPS Speed": "speed_kmh",
    "GPS Latitude": "lat",
    "GPS Longitude": "lon",
    "GPS Altitude": "alt_m",
    "External Voltage": "battery_v",
    "nMot": "rpm",
    "rPedal": "throttle_pct",
    "Gang": "gear",
    "LW": "steer_deg",
    "ay ABS": "g_lat",
    "ax ABS": "g_long",
    "dPsi ABS": "yaw_rate_dps",
    "pFuel": "fuel_press_bar",
    "pBrakeF": "brake_bar",
    "pBrakeR": "brake_rear_bar",
    "B ABS": "abs_active",
    "B TC": "dsc_active",
    "TWater": "water_temp_c",
    "TOil": "oil_temp_c",
    "pOil": "oil_press_bar",
    "vWheelFL": "wheel_speed_fl_kmh",
    "vWheelFR": "wheel_speed_fr_kmh",
    "vWheelRL": "wheel_speed_rl_kmh",
    "vWheelRR": "wheel_speed_rr_kmh",
}
AUDI_MAPPED = {
    "GPS Speed": "speed_kmh",
    "GPS Heading": "heading_deg",
    "GPS Altitude": "alt_m",
    "GPS Latitude": "lat",
    "GPS Longitude": "lon",
    "External Voltage": "battery_v",
    "Engine RPM": "rpm",
    "Accelerator Pedal": "throttle_pct",
    "Percentage Throttle Load": "throttle_body_pct",
    "Gear": "gear",
    "Steering Angle": "steer_deg",
    "Yaw Rate": "yaw_rate_dps",
    "Lateral Acceleration": "g_lat",
    "Longitudinal Acceleration": "g_long",
    "Vertical Acceleration": "g_vert",
    "Fuel Pressure": "fuel_press_bar",
    "Brake Pressure Front": "brake_bar",
    "Brake Pressure Rear": "brake_rear_bar",
    "ABS Active": "abs_active",
    "ESP Intervention": "dsc_active",
    "Water Temp": "water_temp_c",
    "Oil Temp": "oil_temp_c",
    "Oil Pressure": "oil_press_bar",
    "Fuel Level": "fuel_level_l",
    **{f"Wheel Speed {w}": f"wheel_speed_{w.lower()}_kmh" for w in ("FL", "FR", "RL", "RR")},
    **{f"Tyre Press {w}": f"tpms_press_{w.lower()}_bar" for w in ("FL", "FR", "RL", "RR")},
    **{f"Tyre Temp {w}": f"tpms_temp_{w.lower()}_c" for w in ("FL", "FR", "RL", "RR")},
}


def _rises(x: np.ndarray) -> int:
    """How many times a 0/1 flag comes on (NaN counts as off)."""
    on = np.nan_to_num(x, nan=0.0) > 0.5
    return int(on[0]) + int((on[1:] & ~on[:-1]).sum())


def _by(reg: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(r["name"]): r for r in reg}


def _audi(tmp_path: Path, drop: tuple[str, ...] = ()) -> tuple[Path, dict[str, np.ndarray]]:
    d = drive()
    f = tmp_path / "audi_tt_cup.csv"
    write_aim_csv(f, [c for c in audi_columns(d) if c[0] not in drop], d["t"])
    return f, d


def test_tcr_xrk_every_channel_a_coach_reads_maps_by_its_function_with_its_unit() -> None:
    raw, d = tcr_xrk_log()
    assert len(raw.channels) == 80
    wide, reg = load_car("generic").to_wide(raw)
    by = _by(reg)
    assert {n: r["canonical"] for n, r in by.items() if r["canonical"]} == TCR_MAPPED
    # names that say nothing to a name list: the file's channel function found them
    for name, said in (
        ("ay ABS", "Lateral Acceleration"),
        ("dPsi ABS", "Yaw Rate"),
        ("LW", "Steering Angle"),
    ):
        assert f"the file says it is {said!r}" in str(by[name]["mapped_by"])
    steer = np.interp(wide["t_s"], d["t"], d["steer_deg"])
    assert np.nanmax(wide["rpm"]) == pytest.approx(np.max(d["rpm"]), abs=1.0)  # 6,800 rpm
    assert set(np.unique(wide["gear"][np.isfinite(wide["gear"])])) == {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}
    assert np.nanmax(np.abs(wide["steer_deg"] - steer)) < 2.0  # +-195 deg, 0.3 deg noise
    assert np.nanmax(np.abs(wide["speed_kmh"][::2] - d["v"][::2] * 3.6)) < 1e-6  # m/s -> km/h, at GPS fixes
    assert np.nanmin(wide["throttle_pct"]) == 0.0 and np.nanmax(wide["throttle_pct"]) == 100.0
    assert np.nanmean(wide["fuel_press_bar"]) == pytest.approx(5.0, abs=0.02)
    # the 0/1 intervention flags: as often as the raw channels say (26 ABS, 5 TC)
    assert _rises(raw.channels["B ABS"].values) == ABS_SETS == _rises(wide["abs_active"])
    assert _rises(raw.channels["B TC"].values) == TC_SETS == _rises(wide["dsc_active"])
    # the water temperature alarm: no column, named as an alarm, kept by its name
    assert by["B WarnTWater"]["canonical"] is None
    assert str(by["B WarnTWater"]["mapped_by"]).startswith("alarm: water temperature")


def test_tcr_imu_beats_gps_derived_yaw_and_g() -> None:
    raw, d = tcr_xrk_log()
    wide, reg = load_car("generic").to_wide(raw)
    by = _by(reg)
    for gps in ("GPS LateralAcc", "GPS Yaw Rate", "GPS InlineAcc"):
        assert by[gps]["canonical"] is None and "ranks first" in str(by[gps]["mapped_by"])
    raw_gps_lat = raw.channels["GPS LateralAcc"].values
    raw_gps_yaw = raw.channels["GPS Yaw Rate"].values
    assert np.max(np.abs(raw_gps_lat)) > 2.2 and np.max(np.abs(raw_gps_yaw)) > 300  # what GPS would give
    yaw_err = wide["yaw_rate_dps"] - np.interp(wide["t_s"], d["t"], d["yaw_dps"])
    assert np.nanmax(np.abs(wide["yaw_rate_dps"])) < 53 and np.sqrt(np.nanmean(yaw_err**2)) < 1.0
    assert np.nanmax(np.abs(wide["g_lat"])) < 1.65  # the IMU's 1.5 g, not the GPS's 2.25 g
    # cross-checked: the gyro against speed x yaw = lateral g
    assert "speed x yaw rate agrees with the lateral acceleration" in str(by["dPsi ABS"]["mapped_by"])


def test_without_the_files_functions_the_values_find_the_imu_and_the_steering() -> None:
    """Names that say nothing (CAN 7..10) and no function: the values decide. Each follows the
    car's GPS track at the right scale, so the car's own sensors feed g, yaw and steering, and the
    GPS-derived channels give way; channels of the same units that do not follow it stay unmapped."""
    raw, d = tcr_xrk_log(functions=False)
    opaque = {"ay ABS": "CAN 7", "ax ABS": "CAN 8", "dPsi ABS": "CAN 9", "LW": "CAN 10"}
    chans = [replace(c, name=opaque.get(c.name, c.name)) for c in raw.channels.values()]
    raw = replace(raw, channels={c.name: c for c in chans})
    wide, reg = load_car("generic").to_wide(raw)
    by = _by(reg)
    found = {"CAN 7": "g_lat", "CAN 8": "g_long", "CAN 9": "yaw_rate_dps", "CAN 10": "steer_deg"}
    for name, canon in found.items():
        assert by[name]["canonical"] == canon and "found by its values" in str(by[name]["mapped_by"]), by[
            name
        ]
    for gps in ("GPS LateralAcc", "GPS Yaw Rate", "GPS InlineAcc"):
        assert by[gps]["canonical"] is None and "gives way to" in str(by[gps]["mapped_by"])
    assert by["IgnAdv"]["canonical"] is None  # in degrees, but it follows the pedal, not the track
    assert np.nanmax(np.abs(wide["yaw_rate_dps"])) < 53  # the gyro's, not the GPS's 340 deg/s
    assert by["Gang"]["canonical"] == "gear" and "unit-gear" in str(by["Gang"]["mapped_by"])  # its unit
    assert by["nMot"]["canonical"] == "rpm" and by["rPedal"]["canonical"] == "throttle_pct"  # their names


def test_a_users_mapping_still_wins_over_the_files_function() -> None:
    raw, d = tcr_xrk_log()
    um = parse_user_map("channels:\n  GPS LateralAcc: g_lat\n  LW: ignore\n", "m.yaml")
    wide, reg = load_car("generic").to_wide(raw, user=um)
    by = _by(reg)
    assert by["GPS LateralAcc"]["canonical"] == "g_lat" and "user mapping" in str(
        by["GPS LateralAcc"]["mapped_by"]
    )
    assert by["ay ABS"]["canonical"] is None and by["LW"]["canonical"] is None
    assert "steer_deg" not in wide
    assert np.nanmax(np.abs(wide["g_lat"])) > 2.2
    # even a channel that does not follow the track stays where the user put it
    um = parse_user_map("channels:\n  ax ABS: g_lat\n", "m.yaml")
    wide, reg = load_car("generic").to_wide(raw, user=um)
    assert _by(reg)["ax ABS"]["canonical"] == "g_lat" and "does not follow" not in str(
        _by(reg)["ax ABS"]["mapped_by"]
    )


def test_an_imu_axis_that_does_not_follow_the_track_gives_way_to_gps() -> None:
    """A logger turned 90 degrees: its Y axis reads the car's longitudinal g. The GPS-derived lateral g
    follows speed x turn rate of the track; the IMU axis does not, so the GPS channel feeds g_lat."""
    d = drive()
    t = d["t"]

    def ch(name: str, unit: str, v: np.ndarray) -> RawChannel:
        return RawChannel(name, unit, t, v.astype(np.float64), RATE, "aim_csv")

    chans = [
        ch("GPS Speed", "km/h", d["v"] * 3.6),
        ch("GPS Latitude", "deg", d["lat"]),
        ch("GPS Longitude", "deg", d["lon"]),
        ch("AccelerometerY", "g", d["g_long"]),  # mounted turned: this is the longitudinal axis
        ch("GPS LatAcc", "g", d["g_lat"] * 1.02),
        ch("GyroZ", "deg/s", d["yaw_dps"]),
    ]
    raw = RawLog("aim_csv", Path("kart.csv"), "0" * 64, {}, {c.name: c for c in chans})
    wide, reg = load_car("generic").to_wide(raw)
    by = _by(reg)
    assert by["GPS LatAcc"]["canonical"] == "g_lat" and by["AccelerometerY"]["canonical"] is None
    assert "does not follow the lateral g" in str(by["AccelerometerY"]["mapped_by"])
    assert "chosen over 'AccelerometerY'" in str(by["GPS LatAcc"]["mapped_by"])
    assert np.nanmax(np.abs(wide["g_lat"] - d["g_lat"] * 1.02)) < 1e-9
    assert by["GyroZ"]["canonical"] == "yaw_rate_dps"  # the gyro follows the track: it stays


def test_audi_csv_pedal_beats_the_throttle_body_and_words_with_spaces_map(tmp_path: Path) -> None:
    f, d = _audi(tmp_path)
    raw = read_log(f)
    assert len(raw.channels) == 106
    wide, reg = load_car("generic").to_wide(raw)
    by = _by(reg)
    assert {n: r["canonical"] for n, r in by.items() if r["canonical"]} == AUDI_MAPPED
    assert "never reads below 12 %: the throttle body" in str(by["Percentage Throttle Load"]["mapped_by"])
    assert np.nanmin(wide["throttle_body_pct"]) == pytest.approx(12.0) and np.nanmax(
        wide["throttle_body_pct"]
    ) == pytest.approx(87.0)
    moving = wide["speed_kmh"] > 30
    coast = (wide["throttle_pct"] < 5) & (wide["brake_bar"] < 1) & moving
    own = (np.interp(wide["t_s"], d["t"], d["pedal"]) < 5) & (np.interp(wide["t_s"], d["t"], d["brake"]) < 1)
    assert coast.sum() == (own & moving).sum() > 0  # coasting is seen on the pedal
    assert _rises(wide["abs_active"]) == ABS_SETS and _rises(wide["dsc_active"]) == TC_SETS
    assert str(by["Oil Press Warning"]["mapped_by"]).startswith("alarm: oil pressure")
    for gps in ("GPS LatAcc", "GPS LonAcc", "GPS Gyro"):  # no functions in a CSV: the rule order decides
        assert "the car's own sensor ranks before a GPS-derived channel" in str(by[gps]["mapped_by"])
    caps = capabilities(wide, reg)
    assert caps["throttle pickup and throttle use"]["sources"] == {"throttle_pct": "Accelerator Pedal"}
    assert caps["gears and shift points"]["sources"] == {"gear": "Gear"}


def test_throttle_body_alone_is_not_the_pedal_and_the_report_says_why(tmp_path: Path) -> None:
    f, _ = _audi(tmp_path, drop=("Accelerator Pedal",))
    wide, reg = load_car("generic").to_wide(read_log(f))
    assert (
        "throttle_pct" not in wide
        and _by(reg)["Percentage Throttle Load"]["canonical"] == "throttle_body_pct"
    )
    cap = capabilities(wide, reg)["throttle pickup and throttle use"]
    assert cap["available"] is False and "only the throttle body" in str(cap["reason"])


def test_the_users_mapping_of_the_throttle_body_as_the_pedal_stands(tmp_path: Path) -> None:
    f, _ = _audi(tmp_path, drop=("Accelerator Pedal",))
    um = parse_user_map("channels:\n  Percentage Throttle Load: throttle_pct\n", "m.yaml")
    wide, reg = load_car("generic").to_wide(read_log(f), user=um)
    r = _by(reg)["Percentage Throttle Load"]
    assert r["canonical"] == "throttle_pct" and "user mapping" in str(r["mapped_by"])
    assert "throttle_body_pct" not in wide and np.nanmin(wide["throttle_pct"]) == pytest.approx(12.0)


def test_audi_import_keeps_the_alarm_by_name_with_its_reason(tmp_path: Path) -> None:
    f, d = _audi(tmp_path)
    settings = settings_for(tmp_path / "data")
    res = import_file(f, settings)
    rows = {c["name"]: c for c in (res.quality or {})["channels"]}
    assert rows["Water Temp Warning"]["canonical"] is None
    con = duckdb.connect()
    try:
        lake_reader_views(con, settings.lake_dir)
        on = con.execute(
            "SELECT sum(value) FROM telemetry_signals WHERE name = 'Water Temp Warning' AND session_id = ?",
            [res.session_id],
        ).fetchone()
        assert on is not None and on[0] / RATE == pytest.approx(ALARM_S, abs=0.1)  # on for 90 s
        why = con.execute(
            "SELECT canonical, mapped_by FROM signal_registry WHERE name = 'Water Temp Warning'"
        ).fetchone()
        assert why is not None and why[0] is None and why[1].startswith("alarm: water temperature")
        assert con.execute("SELECT max(throttle_body_pct) FROM telemetry").fetchone() == (
            pytest.approx(87.0),
        )
    finally:
        con.close()


def test_a_frozen_gyro_is_no_reading_and_its_coverage_says_so() -> None:
    raw, d = tcr_xrk_log()
    yaw = raw.channels["dPsi ABS"]
    frozen = (yaw.t_s >= 150.0) & (yaw.t_s < 190.0)  # the car is moving all along (18-50 m/s)
    assert d["v"][(d["t"] >= 150) & (d["t"] < 190)].min() > 15
    yaw.values[frozen] = yaw.values[np.argmax(frozen)]  # the sensor stops updating for 40 s
    wide, reg = load_car("generic").to_wide(raw)
    r = _by(reg)["dPsi ABS"]
    assert r["canonical"] == "yaw_rate_dps" and "frozen" in str(r["mapped_by"])
    assert r["valid_share"] == pytest.approx(1 - frozen.sum() / len(yaw.t_s), abs=0.002)
    t = wide["t_s"]
    assert np.isnan(wide["yaw_rate_dps"][(t > 151) & (t < 189)]).all()
    assert np.isfinite(wide["yaw_rate_dps"][(t > 10) & (t < 140)]).all()
    assert len(yaw.t_s) == SECONDS * RATE


def test_no_reading_markers_in_mapped_channels_are_gaps_not_values() -> None:
    """An unset CAN field (65535) in the engine speed and 255 in the ABS flag: no reading, not 65,535 rpm
    or a flag that is neither on nor off; coverage is the share left."""
    raw, d = tcr_xrk_log()
    rpm, abs_ = raw.channels["nMot"], raw.channels["B ABS"]
    lost = (rpm.t_s >= 40.0) & (rpm.t_s < 70.0)  # 30 s of 300
    rpm.values[lost] = 65535.0
    abs_.values[lost] = 255.0
    wide, reg = load_car("generic").to_wide(raw)
    by = _by(reg)
    assert by["nMot"]["canonical"] == "rpm" and by["B ABS"]["canonical"] == "abs_active"
    assert (
        by["nMot"]["valid_share"] == pytest.approx(1 - lost.sum() / len(lost), abs=1e-9) == pytest.approx(0.9)
    )
    assert by["B ABS"]["valid_share"] == pytest.approx(0.9)
    assert np.nanmax(wide["rpm"]) == pytest.approx(np.max(d["rpm"]), abs=1.0)
    own = _rises(np.where(lost, 0.0, d["abs"]))  # the flag's rises outside the lost stretch
    assert _rises(wide["abs_active"]) == own < ABS_SETS

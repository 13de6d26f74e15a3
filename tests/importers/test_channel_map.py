"""Channel mapping from names and units (shared/channel_rules.py), the user's mapping file, the reasons
shown by ``pitwall channels``, unmapped channels kept by name, and names read from the file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from shared.channel_user import ChannelMapError, load_user_map, parse_user_map
from shared.cli import build_app
from shared.importers import read_log
from shared.ingest import import_file
from shared.profiles.car import load_car
from shared.quality import capabilities
from shared.settings import settings_for
from shared.store.publisher import lake_reader_views

VBOX = "data/vbox/sonoma_vbox0240.csv"
KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"
R = 120.0  # m, radius of the synthetic circle (driven clockwise: right-hand turns)
LAT0, LON0 = 45.0, 13.0


def _drive(rate: float = 20.0, seconds: float = 90.0) -> dict[str, np.ndarray]:
    """A car going round a right-hand circle, braking hard every 15 s: truth from physics, not code."""
    t = np.arange(0, seconds, 1 / rate)
    phase = t % 15.0
    brake = (phase > 10) & (phase < 12)
    dv = np.where(brake, -8.0, np.where(phase < 10, 1.5, 0.0))  # m/s^2
    v = 20.0 + np.cumsum(dv) / rate
    v = np.clip(v, 10, 45)
    s = np.cumsum(v) / rate
    ang = s / R  # clockwise from north
    x, y = R * np.sin(ang), R * np.cos(ang)
    lat = LAT0 + y / 111_195.0
    lon = LON0 + x / (111_195.0 * math.cos(math.radians(LAT0)))
    return {
        "t": t,
        "v": v,
        "lat": lat,
        "lon": lon,
        "g_lat": v**2 / R / 9.80665,
        "g_long": np.gradient(v, t) / 9.80665,
        "brake_bar": np.where(brake, 60.0, 0.0),
        "steer_deg": 30.0 + 0.5 * np.sin(t),  # a sensor's wobble: one exact value held 15 s is a frozen one
        "oil_c": np.full(len(t), 110.0),
        "water_c": np.full(len(t), 90.0),
    }


def _touring_car_csv(
    path: Path, racer: str = "Ann Driver", venue: str = "Adria Kart"
) -> dict[str, np.ndarray]:
    d = _drive()
    n = len(d["t"])
    cols = [
        ("GPS Speed", "km/h", d["v"] * 3.6),
        ("GPS Latitude", "deg", d["lat"]),
        ("GPS Longitude", "deg", d["lon"]),
        ("P BRK FRONT", "bar", d["brake_bar"]),
        ("P BRK REAR", "bar", d["brake_bar"] * 0.6),
        ("POS THROTTLE", "%", np.where(d["brake_bar"] > 0, 0.0, 80.0)),
        ("A STE", "deg", d["steer_deg"]),
        *[(f"V WHL {w}", "km/h", d["v"] * 3.6) for w in ("FL", "FR", "RL", "RR")],
        ("T ENG OIL", "°C", d["oil_c"]),
        ("T ENG WATER", "°F", d["water_c"] * 9 / 5 + 32),
        ("P ENG OIL", "kPa", np.full(n, 400.0)),
        ("G CH X", "m/s2", d["g_long"] * 9.80665),
        ("G CH Y", "m/s2", d["g_lat"] * 9.80665),
        ("GEAR", "#", np.full(n, 3.0)),
        ("RPM", "rpm", np.full(n, 6000.0)),
        ("DIFF TEMP", "°C", np.full(n, 70.0)),
    ]
    head = [
        "Format,AiM CSV File",
        f"Session,{venue}",
        "Vehicle,Porsche 992 Cup",
        f"Racer,{racer}",
        "Championship,Club Cup",
        "Sample Rate,20",
        f"Duration,{d['t'][-1]:.2f}",
        "",
        ",".join(["Time"] + [c[0] for c in cols]),
        ",".join(["s"] + [c[1] for c in cols]),
        "",
    ]
    body = np.column_stack([d["t"]] + [c[2] for c in cols])
    rows = [",".join(f"{x:.8f}" for x in r) for r in body]
    path.write_text("\n".join(head + rows) + "\n", encoding="utf-8")
    return d


def _vbox_csv(path: Path) -> dict[str, np.ndarray]:
    d = _drive(rate=10.0)
    lat, lon = d["lat"], d["lon"]

    def dm(x: float, pos: str, neg: str) -> str:
        a = abs(x)
        return f"{int(a)}°{(a - int(a)) * 60:.6f} {pos if x >= 0 else neg}"

    hdr = [
        "Satellites",
        "UTC time",
        "Latitude (deg)",
        "Longitude (deg)",
        "Speed (mph)",
        "Lat_Acc (g)",
        "Long_Acc (g)",
        "Brake_Pressure (psi)",
        "Steering_Angle (deg)",
        "Engine_Speed (rpm)",
    ]
    rows = [",".join(hdr)]
    for i, t in enumerate(d["t"]):
        utc = 120000 + int(t // 60) * 100 + (t % 60)  # HHMMSS.ss from 12:00:00
        rows.append(
            ",".join(
                [
                    "9",
                    f"{utc:.2f}",
                    dm(lat[i], "N", "S"),
                    dm(lon[i], "E", "W"),
                    f"{d['v'][i] * 3.6 / 1.609344:.4f}",
                    f"{-d['g_lat'][i]:.4f}",  # VBOX: positive to the left
                    f"{d['g_long'][i]:.4f}",
                    f"{d['brake_bar'][i] / 0.0689475729:.3f}",
                    f"{d['steer_deg'][i]:.2f}",
                    "6000",
                ]
            )
        )
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return d


def _wide(path: Path, **kw: object) -> tuple[dict[str, np.ndarray], list[dict[str, object]]]:
    return load_car("generic").to_wide(read_log(path), **kw)  # type: ignore[arg-type]


def test_touring_car_names_map_with_units_converted(tmp_path: Path) -> None:
    f = tmp_path / "touring.csv"
    d = _touring_car_csv(f)
    wide, reg = _wide(f)
    by = {r["name"]: r for r in reg}
    expect = {
        "P BRK FRONT": "brake_bar",
        "P BRK REAR": "brake_rear_bar",
        "POS THROTTLE": "throttle_pct",
        "A STE": "steer_deg",
        "V WHL FL": "wheel_speed_fl_kmh",
        "V WHL RR": "wheel_speed_rr_kmh",
        "T ENG OIL": "oil_temp_c",
        "T ENG WATER": "water_temp_c",
        "P ENG OIL": "oil_press_bar",
        "G CH X": "g_long",
        "G CH Y": "g_lat",
        "GEAR": "gear",
    }
    assert {k: by[k]["canonical"] for k in expect} == expect
    assert by["DIFF TEMP"]["canonical"] is None and "no rule" in str(by["DIFF TEMP"]["mapped_by"])
    # values in canonical units, against the physics the file was written from
    assert np.nanmax(wide["brake_bar"]) == pytest.approx(60.0)
    assert np.nanmedian(wide["water_temp_c"]) == pytest.approx(90.0, abs=1e-3)  # °F -> °C
    assert np.nanmedian(wide["oil_press_bar"]) == pytest.approx(4.0)  # kPa -> bar
    moving = d["t"] > 2
    assert np.allclose(wide["g_lat"][moving], d["g_lat"][moving], atol=1e-3)  # m/s² -> g
    assert "°F -> °C" in str(by["T ENG WATER"]["mapped_by"])


def test_touring_car_brake_points_and_g_forces_become_available(tmp_path: Path) -> None:
    f = tmp_path / "touring.csv"
    _touring_car_csv(f)
    caps = capabilities(_wide(f)[0])
    for what in (
        "brake points and braking",
        "brake pressure (peak, trail braking)",
        "throttle pickup and throttle use",
        "steering smoothness",
        "grip use (g-g)",
        "lockups and wheelspin",
        "engine health",
        "gears and shift points",
    ):
        assert caps[what]["available"], (what, caps[what])


def test_vbox_underscore_names_psi_and_mph_and_left_positive_lateral(tmp_path: Path) -> None:
    f = tmp_path / "vbox.csv"
    d = _vbox_csv(f)
    wide, reg = _wide(f)
    by = {r["name"]: r["canonical"] for r in reg}
    assert by["Lat_Acc"] == "g_lat" and by["Long_Acc"] == "g_long"
    assert by["Brake_Pressure"] == "brake_bar" and by["Engine_Speed"] == "rpm"
    assert by["Steering_Angle"] == "steer_deg"
    assert np.nanmax(wide["brake_bar"]) == pytest.approx(60.0, abs=0.01)  # psi -> bar
    assert np.nanmax(wide["speed_kmh"]) == pytest.approx(d["v"].max() * 3.6, abs=0.01)  # mph -> km/h
    m = d["t"] > 2
    assert np.allclose(wide["g_lat"][m], d["g_lat"][m], atol=1e-3)  # right turn: positive


def test_real_vbox_steering_sign_follows_the_gps_turns(shared_dir: Path) -> None:
    """Sonoma's VBOX steering is positive to the left; Pitwall's is positive right. Truth: the turn
    direction of the GPS track, computed here from latitude and longitude."""
    raw = read_log(shared_dir / VBOX)
    wide, reg = load_car("generic").to_wide(raw)
    lat, lon, v = wide["lat"], wide["lon"], wide["speed_kmh"]
    x = np.radians(lon) * math.cos(math.radians(np.nanmean(lat))) * 6_371_000
    y = np.radians(lat) * 6_371_000
    k = np.ones(5) / 5
    course = np.unwrap(
        np.arctan2(np.gradient(np.convolve(x, k, "same")), np.gradient(np.convolve(y, k, "same")))
    )
    turn = np.gradient(course)
    sharp = (v > 40) & (np.abs(turn) > np.nanpercentile(np.abs(turn), 80)) & np.isfinite(wide["steer_deg"])
    agree = np.mean(np.sign(wide["steer_deg"][sharp]) == np.sign(turn[sharp]))
    assert agree > 0.85
    note = next(r["mapped_by"] for r in reg if r["name"] == "Steering Angle")
    assert "sign flipped" in str(note)


def test_real_calculated_channel_ranks_after_the_sensor_and_converts(
    shared_dir: Path, tmp_path: Path
) -> None:
    """The Sonoma VBOX has Oil Pressure (bar) and Oil Press (Calc) (psi) of the same sensor: the rule
    table picks the sensor; a user entry can pick the psi one, and both agree once converted."""
    raw = read_log(shared_dir / VBOX)
    wide, reg = load_car("generic").to_wide(raw)
    by = {r["name"]: r for r in reg}
    assert by["Oil Pressure"]["canonical"] == "oil_press_bar"
    assert by["Oil Press (Calc)"]["canonical"] is None
    assert "'Oil Pressure' ranks first" in str(by["Oil Press (Calc)"]["mapped_by"])
    user = parse_user_map("channels:\n  oil press (calc): oil_press_bar\n  Oil Pressure: ignore\n", "m.yaml")
    alt, reg2 = load_car("generic").to_wide(raw, user=user)
    by2 = {r["name"]: r for r in reg2}
    assert by2["Oil Press (Calc)"]["canonical"] == "oil_press_bar"
    assert "user mapping (m.yaml)" in str(by2["Oil Press (Calc)"]["mapped_by"])
    assert by2["Oil Pressure"]["canonical"] is None
    bar = raw.channels["Oil Pressure"].values
    ok = np.isfinite(alt["oil_press_bar"]) & np.isfinite(bar)
    assert np.max(np.abs(alt["oil_press_bar"][ok] - bar[ok])) < 0.05  # psi column / 14.5038 = bar column


def test_real_kart_and_xrk_accelerations_map(shared_dir: Path) -> None:
    kart, reg = load_car("generic").to_wide(read_log(shared_dir / KART))
    by = {r["name"]: r["canonical"] for r in reg}
    # the kart's own accelerometer and gyro, not the GPS-derived g and yaw
    assert (
        by["AccelerometerY"] == "g_lat" and by["AccelerometerX"] == "g_long" and by["GyroZ"] == "yaw_rate_dps"
    )
    assert by["GPS LatAcc"] is None and by["GPS LonAcc"] is None and by["GPS Gyro"] is None
    assert by["AccelerometerZ"] == "g_vert"  # raw axes feed what no named channel does
    assert np.nanmedian(kart["g_vert"]) > 0.5  # +1 g at rest (the logger writes -1 g)
    xrk, reg = load_car("generic").to_wide(read_log(shared_dir / "data/aim/scut_fsev_du.xrk"))
    by = {r["name"]: r["canonical"] for r in reg}
    assert by["GYRO Z"] == "yaw_rate_dps" and by["LateralAcc"] == "g_lat"
    assert by["External Voltage"] == "battery_v"
    assert "GPS Yaw Rate" in {r["name"] for r in reg if r["canonical"] is None}


def test_out_of_range_candidate_is_passed_over(tmp_path: Path) -> None:
    """An EV's 570 V traction battery is no 12 V battery_v, even when it comes first in the file."""
    f = tmp_path / "ev.csv"
    f.write_text(
        "Format,AiM CSV File\nSample Rate,10\n\nTime,Battery Volt,External Voltage\ns,V,V\n\n"
        + "\n".join(f"{i / 10:.3f},572.0,12.4" for i in range(50))
        + "\n",
        encoding="utf-8",
    )
    wide, reg = _wide(f)
    by = {r["name"]: r for r in reg}
    assert by["External Voltage"]["canonical"] == "battery_v"
    assert "plausible battery_v" in str(by["Battery Volt"]["mapped_by"])
    assert np.nanmax(wide["battery_v"]) == pytest.approx(12.4)


def test_user_map_errors_name_the_file_and_entry(tmp_path: Path) -> None:
    with pytest.raises(ChannelMapError, match=r"m\.yaml: channel 'X': .*unknown canonical signal 'brake'"):
        parse_user_map("channels:\n  X: brake\n", "m.yaml")
    with pytest.raises(ChannelMapError, match="not valid YAML"):
        parse_user_map("channels: [", "m.yaml")
    p = tmp_path / "channels.yaml"
    p.write_text("channels:\n  DIFF TEMP: ignore\n  A STE: {canonical: steer_deg, sign_flip: true}\n")
    over = tmp_path / "over.yaml"
    over.write_text("channels:\n  a ste: {canonical: steer_deg}\n")
    um = load_user_map(tmp_path, over)  # --map wins entry by entry
    e = um.get("A STE")
    assert e is not None and e.sign_flip is False
    assert um.get("diff temp") is not None and um.sources == [str(p), str(over)]


def test_user_map_unit_mismatch_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "touring.csv"
    _touring_car_csv(f)
    um = parse_user_map("channels:\n  T ENG OIL: oil_press_bar\n", "m.yaml")
    with pytest.raises(ChannelMapError, match="'T ENG OIL' is in '°C'"):
        _wide(f, user=um)


def test_import_keeps_unmapped_channels_and_reasons_and_names(tmp_path: Path) -> None:
    f = tmp_path / "touring.csv"
    _touring_car_csv(f)
    data = tmp_path / "data"
    data.mkdir()
    (data / "channels.yaml").write_text("channels:\n  DIFF TEMP: ignore\n")
    settings = settings_for(data)
    res = import_file(f, settings)
    assert res.driver_name == "Ann Driver" and res.car_name == "Porsche 992 Cup"
    assert res.track_name == "Adria Kart"
    con = duckdb.connect()
    try:
        lake_reader_views(con, settings.lake_dir)
        n, mx = con.execute(
            "SELECT count(*), max(value) FROM telemetry_signals WHERE name = 'DIFF TEMP'"
        ).fetchone() or (0, None)
        assert n > 1000 and mx == pytest.approx(70.0)
        why = con.execute("SELECT mapped_by FROM signal_registry WHERE name = 'DIFF TEMP'").fetchone()
        assert why is not None and "ignored by the user's mapping" in why[0]
        row = con.execute("SELECT driver_id, driver_name, car_name, track_name FROM sessions").fetchone()
        assert row == ("driver", "Ann Driver", "Porsche 992 Cup", "Adria Kart")
        assert con.execute("SELECT max(brake_rear_bar) FROM telemetry").fetchone() == (pytest.approx(36.0),)
    finally:
        con.close()


def test_driver_flag_overrides_the_file_and_coordinates_are_no_track_name(tmp_path: Path) -> None:
    f = tmp_path / "touring.csv"
    _touring_car_csv(f, venue="23.077°N, 113.530°E")
    res = import_file(f, settings_for(tmp_path / "d"), driver_id="maria")
    assert res.driver_name == "maria"
    assert res.track_name is None or "°" not in res.track_name


def test_channels_command_shows_mapping_and_reasons(tmp_path: Path) -> None:
    f = tmp_path / "touring.csv"
    _touring_car_csv(f)
    m = tmp_path / "m.yaml"
    m.write_text("channels:\n  DIFF TEMP: {canonical: oil_temp_c}\n")
    r = CliRunner().invoke(
        build_app(), ["channels", str(f), "--map", str(m), "--data-dir", str(tmp_path / "d"), "--json"]
    )
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    by = {c["channel"]: c for c in rep["channels"]}
    assert by["DIFF TEMP"]["canonical"] == "oil_temp_c" and "user mapping" in by["DIFF TEMP"]["why"]
    assert by["T ENG OIL"]["canonical"] is None and "'DIFF TEMP' ranks first" in by["T ENG OIL"]["why"]
    assert rep["mapped"] == len([c for c in rep["channels"] if c["canonical"]])
    bad = tmp_path / "bad.yaml"
    bad.write_text("channels:\n  A STE: steering\n")
    r = CliRunner().invoke(
        build_app(), ["import", str(f), "--map", str(bad), "--data-dir", str(tmp_path / "d")]
    )
    assert r.exit_code == 1 and "unknown canonical signal 'steering'" in r.output
    assert not (tmp_path / "d" / "lake" / "sessions").exists() or not any(
        (tmp_path / "d" / "lake" / "sessions").iterdir()
    )


def test_sensor_beats_a_calculated_channel_listed_before_it(tmp_path: Path) -> None:
    f = tmp_path / "calc.csv"
    f.write_text(
        "Format,AiM CSV File\nSample Rate,10\n\nTime,Water Temp (Calc),Water Temp\ns,°F,°C\n\n"
        + "\n".join(f"{i / 10:.3f},200.0,85.0" for i in range(50))
        + "\n",
        encoding="utf-8",
    )
    wide, reg = _wide(f)
    by = {r["name"]: r for r in reg}
    assert by["Water Temp"]["canonical"] == "water_temp_c"
    assert "a direct channel before a calculated or duplicate one" in str(
        by["Water Temp (Calc)"]["mapped_by"]
    )
    assert np.nanmax(wide["water_temp_c"]) == pytest.approx(85.0)


def test_sql_sandbox_reads_unmapped_channels_by_name(tmp_path: Path) -> None:
    """The paddock's sandboxed lake connection (what query_pitwall_db runs on) sees every channel."""
    from services.paddock.lake import Lake
    from services.paddock.tools.sql_guard import run_query

    f = tmp_path / "touring.csv"
    _touring_car_csv(f)
    settings = settings_for(tmp_path / "data")
    import_file(f, settings)
    lake = Lake(settings)
    cur = lake.cursor()
    try:
        out = run_query(
            cur,
            "SELECT r.canonical, max(s.value) AS hi FROM telemetry_signals s JOIN signal_registry r "
            "ON r.session_id = s.session_id AND r.name = s.name WHERE s.name = 'DIFF TEMP' GROUP BY 1",
        )
    finally:
        cur.close()
        lake.con.close()
    assert "error" not in out, out
    assert out["rows"] == [{"canonical": None, "hi": 70.0}]


def _as_touring_car_csv(raw_path: Path, out: Path) -> None:
    """The real Sonoma VBOX session rewritten as an AiM CSV with a touring car's channel names and
    AiM's units (acceleration in m/s², oil temperature in °F)."""
    raw = read_log(raw_path)
    c = raw.channels
    t = c["Speed"].t_s
    cols = [
        ("GPS Speed", "km/h", c["Speed"].values),
        ("GPS Latitude", "deg", c["Latitude"].values),
        ("GPS Longitude", "deg", c["Longitude"].values),
        ("P BRK FRONT", "bar", c["Brake Pressure"].values),
        ("POS THROTTLE", "%", c["Throttle Position"].values),
        ("G CH X", "m/s2", c["Longitudinal acceleration"].values * 9.80665),
        ("G CH Y", "m/s2", -c["Lateral acceleration"].values * 9.80665),
        ("T ENG OIL", "°F", c["Oil Temperature"].values * 9 / 5 + 32),
        ("RPM", "rpm", c["Engine Speed"].values),
    ]
    head = [
        "Format,AiM CSV File",
        "Session,Sonoma",
        "Sample Rate,10",
        "",
        "Time," + ",".join(n for n, _, _ in cols),
    ]
    head += ["s," + ",".join(u for _, u, _ in cols), ""]
    body = np.column_stack([t] + [v for _, _, v in cols])
    out.write_text("\n".join(head + [",".join(f"{x:.9g}" for x in r) for r in body]) + "\n", encoding="utf-8")


def test_touring_car_names_give_the_same_brake_points_as_the_vbox_names(
    shared_dir: Path, tmp_path: Path
) -> None:
    """Brake points and peak pressure per corner from a file named the touring-car way equal those from
    the same data under VBOX names (the reference the truth is taken from)."""
    touring = tmp_path / "touring_sonoma.csv"
    _as_touring_car_csv(shared_dir / VBOX, touring)
    settings = settings_for(tmp_path / "data")
    ref = import_file(shared_dir / VBOX, settings)
    got = import_file(touring, settings)
    assert got.track == ref.track == "sonoma"
    caps = (got.quality or {})["capabilities"]
    assert caps["brake pressure (peak, trail braking)"]["available"] and caps["grip use (g-g)"]["available"]
    con = duckdb.connect()
    try:
        lake_reader_views(con, settings.lake_dir)
        q = (
            "SELECT lap, corner_id, brake_point_m, brake_peak_bar FROM corner_results WHERE session_id = ? "
            "AND brake_peak_bar IS NOT NULL ORDER BY lap, corner_id"
        )
        a = con.execute(q, [ref.session_id]).fetchall()
        b = con.execute(q, [got.session_id]).fetchall()
    finally:
        con.close()
    assert len(a) > 50
    assert [(x[0], x[1]) for x in a] == [(x[0], x[1]) for x in b]
    assert all(abs(x[2] - y[2]) < 0.5 and abs(x[3] - y[3]) < 0.01 for x, y in zip(a, b, strict=True))


NAMES = [  # (name, unit, source format, canonical) as AiM Race Studio, ECUs and VBOX write them
    ("Brake Press", "bar", "aim_csv", "brake_bar"),
    ("BrakePress", "psi", "aim_xrk", "brake_bar"),
    ("P BRK F", "bar", "aim_xrk", "brake_bar"),
    ("P BRK REAR", "bar", "aim_xrk", "brake_rear_bar"),
    ("Throttle", "%", "aim_csv", "throttle_pct"),
    ("TPS", "%", "aim_csv", "throttle_pct"),
    ("PPS", "", "aim_csv", "throttle_pct"),
    ("APPS1", "", "aim_csv", "throttle_pct"),  # Formula Student's accelerator pedal position sensors
    ("APPS 2", "%", "aim_xrk", "throttle_pct"),
    ("Acc-1", "%", "aim_xrk", "throttle_pct"),  # an accelerator in % is the pedal
    ("Acc-1", "g", "aim_xrk", None),  # the same name in g is an acceleration of no known axis
    ("Acc", "", "aim_csv", None),  # no unit: pedal or acceleration, the file does not say
    ("Steer Angle", "deg", "aim_csv", "steer_deg"),
    ("SteeringAngle", "deg", "aim_xrk", "steer_deg"),
    ("LatAcc", "g", "aim_csv", "g_lat"),
    ("GPS LatAcc", "g", "aim_csv", "g_lat"),
    ("GPS LateralAcc", "g", "aim_xrk", "g_lat"),
    ("InlineAcc", "m/s²", "aim_xrk", "g_long"),
    ("AccelerometerX", "g", "aim_xrk", "g_long"),
    ("AccelerometerY", "g", "aim_xrk", "g_lat"),
    ("Wheel Speed FL", "km/h", "aim_csv", "wheel_speed_fl_kmh"),
    ("WheelSpdFL", "mph", "aim_csv", "wheel_speed_fl_kmh"),
    ("V WHL RL", "km/h", "aim_xrk", "wheel_speed_rl_kmh"),
    ("Water Temp", "°C", "aim_csv", "water_temp_c"),
    ("ECT", "°F", "aim_csv", "water_temp_c"),
    ("Oil Temp", "C", "aim_csv", "oil_temp_c"),
    ("T ENG OIL", "°C", "aim_xrk", "oil_temp_c"),
    ("Oil Press", "psi", "aim_csv", "oil_press_bar"),
    ("Fuel Press", "kPa", "aim_csv", "fuel_press_bar"),
    ("RPM", "rpm", "aim_csv", "rpm"),
    ("Engine RPM", "", "aim_csv", "rpm"),
    ("Gear", "#", "aim_csv", "gear"),
    ("Lat_Acc", "g", "vbox_csv", "g_lat"),
    ("Long_Acc", "g", "vbox_csv", "g_long"),
    ("Brake_Pressure", "bar", "vbox_csv", "brake_bar"),
    ("Steering_Angle", "deg", "vbox_csv", "steer_deg"),
    ("Engine_Speed", "rpm", "vbox_csv", "rpm"),
    ("L MOTOR SPEED", "rpm", "aim_xrk", "rpm"),  # its unit says shaft speed, its name no other shaft
    ("nWheelFL", "rpm", "aim_xrk", None),  # a wheel's rpm is no engine speed
    ("Exhaust Temp", "°C", "aim_csv", None),
    ("LoggerTemp", "°C", "aim_xrk", None),
    ("Vertical velocity", "km/h", "vbox_csv", None),
    ("Fuel Level", "%", "vbox_csv", None),  # % is no litre
    ("Brake Press", "", "aim_csv", None),  # bar or psi? the file does not say
    ("Oil Temp", "bar", "aim_csv", None),
]


@pytest.mark.parametrize(("name", "unit", "fmt", "canonical"), NAMES)
def test_channel_names_and_units(name: str, unit: str, fmt: str, canonical: str | None) -> None:
    from shared.channel_map import resolve
    from shared.importers.base import RawChannel

    t = np.arange(10.0)
    vals = 1.0 + 0.01 * t  # moving a little: a pedal that never moves is no reading
    ch = RawChannel(name, unit, t, vals, 1.0, fmt)
    (d,) = resolve({name: ch}, fmt)
    assert d.canonical == canonical, d.why


@pytest.mark.parametrize(
    ("path", "expect"),
    [
        (KART, {"driver": "Nicholas Thorne", "car": "143", "track": "SSKC"}),  # a kart's number is its name
        (
            "data/aim/scut_fsev_du.csv",
            {"driver": "Yihan Du", "car": "A03_AF25", "track": None},
        ),  # coordinates
        ("data/aim/scut_fsev_agx.xrk", {"driver": "AGX_26", "car": "A03_AF25", "track": None}),
        (VBOX, {"driver": None, "car": None, "track": None}),
    ],
)
def test_names_from_real_files(shared_dir: Path, path: str, expect: dict[str, str | None]) -> None:
    from shared.names import file_names

    got = file_names(read_log(shared_dir / path).meta)
    assert {k: got[k] for k in expect} == expect


def test_real_vbox_lateral_g_is_the_accelerometer_and_follows_the_gps_turns(shared_dir: Path) -> None:
    """The Sonoma VBOX has a GPS-derived "Lateral acceleration" (spikes to 4.3 g on heading noise) and the
    accelerometer's "Indicated Lateral Acceleration": g_lat is the latter, positive in right turns. Truth:
    speed x the turn rate of the GPS course, computed here from latitude and longitude."""
    raw = read_log(shared_dir / VBOX)
    wide, reg = load_car("generic").to_wide(raw)
    by = {r["name"]: r["canonical"] for r in reg}
    assert by["Indicated Lateral Acceleration"] == "g_lat" and by["Lateral acceleration"] is None
    lat, lon, v, t = wide["lat"], wide["lon"], wide["speed_kmh"] / 3.6, wide["t_s"]
    x = np.radians(lon) * math.cos(math.radians(np.nanmean(lat))) * 6_371_000
    y = np.radians(lat) * 6_371_000
    k = np.ones(5) / 5
    course = np.unwrap(
        np.arctan2(np.gradient(np.convolve(x, k, "same")), np.gradient(np.convolve(y, k, "same")))
    )
    own = v * np.gradient(course, t) / 9.80665  # clockwise course: a right turn, positive
    fast = (wide["speed_kmh"] > 60) & np.isfinite(wide["g_lat"]) & np.isfinite(own)
    assert np.corrcoef(wide["g_lat"][fast], own[fast])[0, 1] > 0.8
    assert np.nanmax(np.abs(wide["g_lat"][fast])) < 2.5  # a road car on slicks, not 4.3 g


def test_a_pedal_that_never_moves_is_no_reading() -> None:
    from shared.channel_map import resolve
    from shared.importers.base import RawChannel

    t = np.arange(10.0)
    still = RawChannel("Throttle", "%", t, np.zeros(10), 1.0, "aim_csv")
    (d,) = resolve({"Throttle": still}, "aim_csv")
    assert d.canonical is None
    assert "reads 0 throughout" in d.why
    moving = RawChannel("Throttle", "%", t, np.linspace(0.0, 90.0, 10), 1.0, "aim_csv")
    (d,) = resolve({"Throttle": moving}, "aim_csv")
    assert d.canonical == "throttle_pct"


@pytest.mark.parametrize(
    ("path", "pedal"), [("data/aim/scut_fsev_du.xrk", True), ("data/aim/scut_fsev_agx.xrk", False)]
)
def test_real_formula_student_accelerator_in_percent_is_the_pedal(
    shared_dir: Path, path: str, pedal: bool
) -> None:
    """The EV's 'Acc-1' (%) moves in the driven session (0..28 % in the Race Studio export) and reads 0
    throughout in the autonomous one, where no pedal was pressed."""
    from shared.channel_map import resolve

    log = read_log(shared_dir / path)
    fed = {d.canonical: d.name for d in resolve(log.channels, log.source_format) if d.canonical}
    assert fed.get("throttle_pct") == ("Acc-1" if pedal else None)

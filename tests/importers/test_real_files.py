"""Importers on the real logger files in ../shared/data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared.importers import ImportFormatError, read_log, sniff_format
from shared.importers.vbox import parse_dm
from shared.profiles.car import CarProfileError, load_car


@pytest.mark.parametrize("stem", ["scut_fsev_agx", "scut_fsev_du"])
def test_xrk_matches_its_race_studio_export(shared_dir: Path, stem: str) -> None:
    xrk = read_log(shared_dir / f"data/aim/{stem}.xrk")
    csv = read_log(shared_dir / f"data/aim/{stem}.csv")
    assert xrk.source_format == "aim_xrk" and csv.source_format == "aim_csv"
    # one segment, no lap crossing, in both
    assert len(xrk.beacons_s or []) == len(csv.beacons_s or []) == 1
    # same run: segment end within the CSV's whole-second resolution of Duration
    assert abs((xrk.beacons_s or [0])[0] - (csv.beacons_s or [0])[0]) < 1.0
    common = sorted(set(xrk.channels) & set(csv.channels))
    assert len(common) >= 60
    car = load_car("generic")
    compared = 0
    for name in common:
        xc, cc = xrk.channels[name], csv.channels[name]
        # Race Studio writes in the user's units; convert XRK's native unit to the CSV's before comparing
        from shared.units import conversion

        try:
            s, o = conversion(xc.unit, cc.unit)
        except ValueError:
            continue
        if cc.unit.strip() in ("#", "") or xc.rate_hz is None or xc.rate_hz < 19:
            # counters and slow channels: RS3 resamples them with its own hold/interpolation rule
            continue
        m = (cc.t_s >= xc.t_s[0]) & (cc.t_s <= xc.t_s[-1])
        x_on_grid = np.interp(cc.t_s[m], xc.t_s, xc.values) * s + o
        ref = cc.values[m]
        scale = max(float(np.nanmax(np.abs(ref))), 1e-3)
        err = np.abs(x_on_grid - ref) / scale
        assert float(np.nanmedian(err)) <= 1e-3, (name, float(np.nanmedian(err)))
        compared += 1
    assert compared >= 10
    del car


def test_mychron_segments_equal_segment_times(shared_dir: Path) -> None:
    from shared.importers.aim_csv import parse_lap_time
    from shared.laps_recorded import detect_laps

    log = read_log(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv")
    assert log.meta["venue"] == "SSKC"
    seg = [parse_lap_time(s) for s in log.meta["segment_times"] if s]
    assert len(seg) == 16
    wide, _ = load_car("generic").to_wide(log)
    laps = detect_laps(wide, None, log.beacons_s)
    assert len(laps) == 16
    for lp, s in zip(laps, seg, strict=True):
        assert abs(lp.time_s - s) <= 0.001
    assert laps[0].kind == "out" and laps[-1].kind == "in"


def test_vbox_lat_lon_and_rows(shared_dir: Path) -> None:
    assert abs(parse_dm("38°9.631176 N") - 38.1605196) < 1e-7
    assert abs(parse_dm("122°27.228036 W") + 122.4538006) < 1e-7
    log = read_log(shared_dir / "data/vbox/sonoma_vbox0240.csv")
    assert log.source_format == "vbox_csv"
    lat = log.channels["Latitude"]
    assert len(lat.values) == 11_539
    assert abs(lat.values[0] - 38.1605196) < 1e-7
    for ch in (
        "Speed",
        "Brake Pressure",
        "Throttle Position",
        "Steering Angle",
        "Engine Speed",
        "Oil Pressure",
    ):
        assert ch in log.channels


def test_candump_round_trip_and_sentinels(tmp_path: Path) -> None:
    from shared.can_codec import AimMxpCodec, format_candump_line

    car = load_car("bmw_e46_m3_aim_mxp")
    codec = AimMxpCodec(car)
    lines = []
    rows = [
        {
            "rpm": 6000.0 + i,
            "speed_kmh": 150.0,
            "oil_press_bar": 4.0,
            "g_lat": -0.8,
            "lat": 38.16,
            "lon": -122.45,
        }
        for i in range(20)
    ]
    rows[5]["oil_press_bar"] = float("nan")  # "no reading": encoded as 0xFFFF, must come back NULL
    for i, row in enumerate(rows):
        for fid, data in codec.encode_wide_row(row):
            lines.append(format_candump_line(1000.0 + i * 0.02, fid, data))
    lines.append("(1000.500000) can0 7FF#0011")  # unknown id: counted, not fatal
    p = tmp_path / "run.log"
    p.write_text("\n".join(lines) + "\n")
    assert sniff_format(p) == "candump"
    log = read_log(p)
    assert log.meta["rejected_frames"] == {"unknown_id": 1}
    wide, _ = car.to_wide(log)
    assert np.nanmax(np.abs(wide["rpm"] - np.arange(6000, 6020))) <= 1.0
    assert abs(np.nanmedian(wide["speed_kmh"]) - 150.0) < 0.2
    assert np.isnan(wide["oil_press_bar"][5])
    assert np.nanmax(wide["oil_press_bar"]) < 10  # the 4519-bar sentinel never reaches the store
    assert abs(np.nanmedian(wide["g_vert"] if "g_vert" in wide else np.array([1.0])) - 1.0) < 1.1


BAD_CASES = {
    "empty.csv": (b"", "empty"),
    "random.txt": (b"hello world\nthis is not a logger file\n", "unrecognised"),
    "binary.xrk": (bytes(range(256)) * 8, "unrecognised"),
    "truncated.csv": (b'"Format","AiM CSV File"\n"Session","X"\n', "channel-name row"),
    "garbage_numbers.csv": (
        b'"Format","AiM CSV File"\n"Sample Rate","20"\n\n"Time","GPS Speed"\n"s","km/h"\n\n"0.000","1.0"\n"0.050","abc"\n',
        "numeric",
    ),
    "candump_bad_line.log": (b"(1.000000) can0 420#0011223344556677\nnot a frame\n", "line 2"),
}


@pytest.mark.parametrize("name", sorted(BAD_CASES))
def test_bad_input_names_file_location_and_expectation(tmp_path: Path, name: str) -> None:
    data, needle = BAD_CASES[name]
    p = tmp_path / name
    p.write_bytes(data)
    with pytest.raises(ImportFormatError) as ei:
        read_log(p)
    msg = str(ei.value)
    assert str(p) in msg and "expected" in msg and needle in msg


def test_xrk_renamed_as_csv_is_read_by_content(shared_dir: Path, tmp_path: Path) -> None:
    p = tmp_path / "looks_like.csv"
    p.write_bytes((shared_dir / "data/aim/scut_fsev_agx.xrk").read_bytes())
    assert sniff_format(p) == "aim_xrk"


def test_truncated_xrk_fails_cleanly(shared_dir: Path, tmp_path: Path) -> None:
    data = (shared_dir / "data/aim/scut_fsev_agx.xrk").read_bytes()
    p = tmp_path / "cut.xrk"
    p.write_bytes(data[: len(data) // 3])
    try:
        log = read_log(p)
    except ImportFormatError as exc:
        assert str(p) in str(exc)
    else:  # libxrk recovers what precedes the cut: it must at least be self-consistent
        assert all(len(c.t_s) == len(c.values) for c in log.channels.values())


def test_car_profile_errors_name_the_field(tmp_path: Path) -> None:
    p = tmp_path / "profiles" / "cars" / "bad.yaml"  # the data dir's own profiles, loaded by name
    p.parent.mkdir(parents=True)
    p.write_text("id: bad\nname: y\nchannels:\n  - {canonical: speed_mph, sources: [S]}\n")
    with pytest.raises(CarProfileError, match=r"channels\.0\.canonical"):
        load_car("bad", tmp_path)
    with pytest.raises(KeyError, match="available"):
        load_car("no_such_car")


def test_vbo_format(tmp_path: Path) -> None:
    p = tmp_path / "run.vbo"
    p.write_text(
        "File created on 21/11/2026\n\n[header]\nsatellites\ntime\nlatitude\nlongitude\nvelocity kmh\n\n"
        "[column names]\nsats time lat long velocity\n\n[data]\n"
        "012 212124.60 +02289.631176 +07347.228036 017.00\n"
        "012 212124.70 +02289.631422 +07347.227862 017.93\n"
    )
    log = read_log(p)
    assert log.source_format == "vbo"
    assert abs(log.channels["lat"].values[0] - 38.1605196) < 1e-6
    assert abs(log.channels["long"].values[0] + 122.4538006) < 1e-6
    assert abs(log.channels["time"].t_s[1] - 0.1) < 1e-9

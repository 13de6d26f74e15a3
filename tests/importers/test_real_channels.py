"""The shared real logger files: what each important channel feeds, from which source, and how much of
it is a reading. Truth is read from the files here (csv module, raw arrays), never from the mapping."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from shared.channel_valid import valid_raw
from shared.cli import build_app
from shared.importers import read_log
from shared.profiles.car import load_car
from shared.quality import quality_report

VBOX = "data/vbox/sonoma_vbox0240.csv"
XRK = "data/aim/scut_fsev_du.xrk"


def _mapped(path: Path) -> tuple[dict[str, np.ndarray], dict[str, dict[str, object]], dict[str, object]]:
    raw = read_log(path)
    wide, reg = load_car("generic").to_wide(raw)
    return wide, {str(r["name"]): r for r in reg}, quality_report(raw, wide, reg, [])


def test_vbox_steering_coverage_counts_the_no_reading_marker(shared_dir: Path) -> None:
    """The Sonoma VBOX steering channel is -1024 ("no reading") in about half its samples: its coverage is
    the share of real readings, and the steering analysis says it is built on part of the session."""
    with (shared_dir / VBOX).open(encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    col = rows[0].index("Steering Angle (Degrees)")
    vals = [float(r[col]) for r in rows[1:] if len(r) > col and r[col].strip()]
    own = 100.0 * sum(v != -1024.0 for v in vals) / len(vals)
    assert 40 < own < 55
    wide, by, q = _mapped(shared_dir / VBOX)
    chans = {c["name"]: c for c in q["channels"]}  # type: ignore[union-attr]
    assert chans["Steering Angle"]["coverage_pct"] == pytest.approx(own, abs=0.2)
    cap = q["capabilities"]["steering smoothness"]  # type: ignore[index]
    assert cap["available"] and cap["sources"] == {"steer_deg": "Steering Angle"}
    assert f"a reading in only {own:.0f} % of the session" in cap["partial"]
    assert any(w.startswith("steering smoothness: built on steer_deg") for w in q["warnings"])  # type: ignore[union-attr]
    # an all-255 gear, an all-255 clutch and an exhaust sensor stuck at -50 C are no readings at all
    for name in ("Gear", "Clutch Position", "Exhaust Temperature"):
        assert chans[name]["coverage_pct"] == 0.0, name
    assert chans["Engine Speed"]["coverage_pct"] == 100.0
    # the accelerometer's channels, not the GPS-derived ones
    assert by["Indicated Longitudinal Acceleration"]["canonical"] == "g_long"
    assert by["Longitudinal acceleration"]["canonical"] is None


def test_no_reading_markers_of_any_channel() -> None:
    t = np.arange(100.0)
    assert valid_raw(t, np.r_[np.full(45, -1024.0), np.ones(55)], "deg").mean() == pytest.approx(0.55)
    assert valid_raw(t, np.r_[np.full(30, 65535.0), np.ones(70)], "").mean() == pytest.approx(0.70)
    assert valid_raw(t, np.full(100, 255.0), "").mean() == 0.0  # an unset 8-bit value throughout
    assert valid_raw(t, np.full(100, 3.0), "").mean() == 1.0  # a flag or switch may hold a value
    assert valid_raw(t, np.full(100, -50.0), "°C").mean() == 0.0  # a sensor input with nothing connected
    assert valid_raw(t[:30], np.full(30, 20.0), "°C").mean() == 1.0  # a short file: no verdict


def test_xrk_function_metadata_and_the_gyro_over_gps(shared_dir: Path) -> None:
    raw = read_log(shared_dir / XRK)
    assert (
        raw.channels["GYRO Z"].function == "Yaw Rate"
        and raw.channels["L MOTOR SPEED"].function == "Engine RPM"
    )
    wide, by, _ = _mapped(shared_dir / XRK)
    assert by["L MOTOR SPEED"]["canonical"] == "rpm" and "'Engine RPM'" in str(
        by["L MOTOR SPEED"]["mapped_by"]
    )
    assert by["GYRO Z"]["canonical"] == "yaw_rate_dps" and by["GPS Yaw Rate"]["canonical"] is None
    assert by["LateralAcc"]["canonical"] == "g_lat" and by["GPS LateralAcc"]["canonical"] is None
    gyro = raw.channels["GYRO Z"].values
    assert np.nanmax(np.abs(wide["yaw_rate_dps"])) == pytest.approx(np.nanmax(np.abs(gyro)), abs=0.5)
    assert np.nanmax(np.abs(raw.channels["GPS Yaw Rate"].values)) > 10 * np.nanmax(np.abs(gyro))


def test_channels_command_shows_function_and_readings(shared_dir: Path, tmp_path: Path) -> None:
    r = CliRunner().invoke(
        build_app(), ["channels", str(shared_dir / XRK), "--data-dir", str(tmp_path), "--json"]
    )
    assert r.exit_code == 0, r.output
    rows = {c["channel"]: c for c in json.loads(r.stdout)["channels"]}
    assert rows["GYRO Z"]["function"] == "Yaw Rate" and rows["GYRO Z"]["canonical"] == "yaw_rate_dps"
    assert rows["GYRO Z"]["valid_pct"] == 100.0
    r = CliRunner().invoke(build_app(), ["channels", str(shared_dir / VBOX), "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and "readings %" in r.stdout

"""Units come from the file; ``pitwall import --json`` prints exactly one JSON document."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shared.importers import read_log
from shared.laps_recorded import detect_laps
from shared.profiles.car import load_car
from shared.units import source_unit

REPO = Path(__file__).resolve().parents[2]


def _wide(path: Path) -> dict[str, np.ndarray]:
    wide, _ = load_car("generic").to_wide(read_log(path))
    return wide


def _distance_m(w: dict[str, np.ndarray]) -> float:
    return float(np.trapezoid(np.nan_to_num(w["speed_kmh"]) / 3.6, w["t_s"]))


@pytest.mark.parametrize("stem", ["scut_fsev_agx", "scut_fsev_du"])
def test_xrk_and_its_csv_export_agree_in_canonical_units(shared_dir: Path, stem: str) -> None:
    """The same run in two formats: XRK declares GPS Speed in m/s, the CSV in km/h. After the car
    profile (whose fallback unit is km/h) both must give the same canonical speed and distance."""
    xw = _wide(shared_dir / f"data/aim/{stem}.xrk")
    cw = _wide(shared_dir / f"data/aim/{stem}.csv")
    assert np.nanmax(xw["speed_kmh"]) > 8.0  # a 3.6x too-low XRK speed would top out near 3.3 km/h
    assert abs(np.nanmax(xw["speed_kmh"]) - np.nanmax(cw["speed_kmh"])) <= 0.05 * np.nanmax(cw["speed_kmh"])
    dx, dc = _distance_m(xw), _distance_m(cw)
    assert abs(dx - dc) <= 0.01 * dc, (dx, dc)
    # channel by channel, every canonical signal both formats have, on the CSV's 20 Hz grid
    common = sorted(k for k in set(xw) & set(cw) if k not in ("t_s", "lap", "dist_m", "odo_m"))
    assert {"speed_kmh", "lat", "lon", "g_lat", "g_long"} <= set(common)
    for name in common:
        x, c = xw[name], cw[name]
        m = np.isfinite(c) & (cw["t_s"] <= xw["t_s"][-1])
        xi = np.interp(cw["t_s"][m], xw["t_s"], np.nan_to_num(x))
        scale = max(float(np.nanpercentile(np.abs(c[m]), 95)), 1e-6)
        err = float(np.nanmedian(np.abs(xi - c[m]))) / scale
        assert err <= 0.02, (name, err)
    # lap times: one segment, no crossing, in both; its length within the CSV's whole-second Duration
    lx = detect_laps(xw, None, read_log(shared_dir / f"data/aim/{stem}.xrk").beacons_s)
    lc = detect_laps(cw, None, read_log(shared_dir / f"data/aim/{stem}.csv").beacons_s)
    assert len(lx) == len(lc) == 1 and abs(lx[0].time_s - lc[0].time_s) < 1.0


def test_declared_unit_wins_and_profile_unit_is_only_a_fallback() -> None:
    assert source_unit("m/s", "km/h", "km/h") == "m/s"
    assert source_unit("mph", "km/h", "km/h") == "mph"
    assert source_unit("", "m/s", "km/h") == "m/s"
    assert source_unit("#", "mph", "km/h") == "mph"
    assert source_unit("(null)", None, "km/h") == "km/h"
    assert source_unit("Nm", "m/s", "km/h") == "m/s"  # a unit that cannot be speed: the fallback


def _cli_import(
    path: Path, data_dir: Path, *flags: str, as_json: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "200"}
    cmd = [sys.executable, "-m", "shared.cli", *flags, "import", str(path), "--data-dir", str(data_dir)]
    return subprocess.run(
        cmd + (["--json"] if as_json else []),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=env,
        check=False,
    )


def _odd_unit_xrk(shared_dir: Path, tmp_path: Path) -> Path:
    """The real XRK with one channel's unit code unknown to libxrk: it prints 'Unknown units[..]' and the
    channel's raw name bytes (``b'Master Clk\\x00\\x00...'``) to stdout."""
    data = bytearray((shared_dir / "data/aim/scut_fsev_agx.xrk").read_bytes())
    i = data.find(b"<hCHS")
    hlen = struct.unpack_from("<i", data, i + 6)[0]
    p = i + 12
    data[p + 12] = (data[p + 12] & 0x80) | 100  # unit code 100: unknown to libxrk
    struct.pack_into("<H", data, p + hlen + 5, sum(data[p : p + hlen]) & 0xFFFF)  # keep the checksum
    f = tmp_path / "odd_unit.xrk"
    f.write_bytes(bytes(data))
    return f


def test_json_stdout_is_one_document_even_when_libxrk_prints(shared_dir: Path, tmp_path: Path) -> None:
    res = _cli_import(_odd_unit_xrk(shared_dir, tmp_path), tmp_path / "d")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)  # exactly one JSON document, nothing before it
    assert list(doc)[:9] == [
        "session_id",
        "source_format",
        "track",
        "car",
        "laps",
        "best_lap_s",
        "rows",
        "channels",
        "quality",
    ]
    assert "Unknown units" not in res.stderr and "WARNING" not in res.stderr  # quiet by default


@pytest.mark.parametrize("name", ["scut_fsev_agx.xrk", "scut_fsev_du.xrk", "odd_unit.xrk"])
def test_a_default_import_prints_only_pitwalls_words(shared_dir: Path, tmp_path: Path, name: str) -> None:
    """The real XRK files (and one with a unit libxrk does not know) through ``pitwall import`` as a driver
    runs it: Pitwall's summary, no library line, no bytes literal, no control byte; with ``-v`` the
    library's line is there, decoded."""
    f = _odd_unit_xrk(shared_dir, tmp_path) if name == "odd_unit.xrk" else shared_dir / "data/aim" / name
    res = _cli_import(f, tmp_path / "d", as_json=False)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert f"{name} -> " in out and "aim_xrk" in out
    assert not re.search(r"WARNING|Traceback|libxrk|\bb'|\\x00|[\x00-\x08\x0e-\x1a]", out), out
    if name == "odd_unit.xrk":
        loud = _cli_import(f, tmp_path / "d2", "-v", as_json=False)
        assert "Unknown units[100] for 'Master Clk'" in loud.stderr, loud.stderr
        assert "\\x00" not in loud.stderr and "b'" not in loud.stderr


def test_aim_csv_and_candump_of_the_same_run_agree_channel_by_channel(tmp_path: Path) -> None:
    """The simulator writes one run as a Race Studio CSV (km/h, bar, C) and as the E46's CAN log
    (mph, psi, F). Through the same car profile both give the same canonical values and laps; the
    profile's ``unit: mph`` for GPS Speed must not override the CSV's declared km/h."""
    from shared.profiles.track import load_track
    from shared.simulator import simulate, write_aim_csv, write_candump

    sim = simulate(laps=3, seed=2, rate_hz=20.0)
    car = load_car("bmw_e46_m3_aim_mxp")
    csv_log = read_log(write_aim_csv(sim, tmp_path / "run.csv"))
    wa, _ = load_car("generic").to_wide(csv_log)
    wc, _ = car.to_wide(read_log(write_candump(sim, tmp_path / "run.log")))
    we, _ = car.to_wide(csv_log)  # the E46 profile says GPS Speed is mph; the CSV says km/h
    assert np.allclose(we["speed_kmh"], wa["speed_kmh"], equal_nan=True)
    tc = wc["t_s"] - wc["t_s"][0] + wa["t_s"][0]
    common = sorted(k for k in set(wa) & set(wc) if k not in ("t_s", "lap", "dist_m", "odo_m"))
    assert {"speed_kmh", "lat", "oil_press_bar", "water_temp_c", "rpm"} <= set(common)
    for name in common:
        ok = np.isfinite(wc[name])
        if ok.sum() < 10 or not np.isfinite(wa[name]).any():
            continue
        x = np.interp(wa["t_s"], tc[ok], wc[name][ok])
        scale = max(float(np.nanpercentile(np.abs(wa[name]), 95)), 1e-6)
        assert float(np.nanmedian(np.abs(x - wa[name]))) / scale <= 0.01, name
    track = load_track("sonoma")
    la = [lp.time_s for lp in detect_laps(wa, track) if lp.kind == "full"]
    lc = [lp.time_s for lp in detect_laps(wc, track) if lp.kind == "full"]
    truth = [lp["time_s"] for lp in sim.truth.laps if lp["kind"] == "full"]
    assert len(la) == len(lc) == len(truth)
    assert max(abs(a - b) for a, b in zip(la, lc, strict=True)) <= 0.05
    assert max(abs(a - b) for a, b in zip(la, truth, strict=True)) <= 0.05


def test_native_writes_to_fd1_go_to_the_log(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Native code writes straight to file descriptor 1, past ``sys.stdout``: it must still be caught."""
    from shared.importers.aim_xrk import parser_output_to_log

    with caplog.at_level("INFO"), parser_output_to_log("reader"):
        os.write(1, b"Unknown units[99] for b'Native\\x00\\x00'\n")
        print("from python")
    out = capfd.readouterr().out
    assert out == ""
    msgs = [r.getMessage() for r in caplog.records if r.levelname == "INFO"]
    assert "reader: Unknown units[99] for 'Native'" in msgs and "reader: from python" in msgs

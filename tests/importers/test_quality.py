"""The data-quality report: stored with each imported session, printed by ``pitwall import``,
served by the paddock."""

from __future__ import annotations

from pathlib import Path

import httpx
import numpy as np
import pytest

from shared.importers import read_log
from shared.ingest import import_file
from shared.profiles.car import load_car
from shared.quality import capabilities, unavailable
from shared.settings import settings_for

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"


def _cut_csv(src: Path, dst: Path, keep: float) -> None:
    lines = src.read_bytes().split(b"\n")
    dst.write_bytes(b"\n".join(lines[: int(len(lines) * keep)]) + b"\n")


def test_csv_cut_short_says_where_it_ends(shared_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "cut.csv"
    _cut_csv(shared_dir / KART, f, 0.3)
    res = import_file(f, settings_for(tmp_path / "d"))
    q = res.quality
    assert q is not None and q["file_complete"] is False
    end = q["duration_s"]
    assert 250 < end < 300
    assert f"file ends at {end:.0f} s of a 951 s session" in q["warnings"]
    # the logger's markers past the end of the data bound no laps; the last lap is the in lap
    assert max(lp["time_s"] for lp in res.laps) < 80 and res.laps[-1]["kind"] == "in"
    assert sum(lp["time_s"] for lp in res.laps) <= end + 0.1


def test_whole_file_has_no_warning_and_lists_channels(shared_dir: Path, tmp_path: Path) -> None:
    res = import_file(shared_dir / KART, settings_for(tmp_path / "d"))
    q = res.quality
    assert q is not None and q["warnings"] == [] and q["file_complete"] is True
    by = {c["name"]: c for c in q["channels"]}
    assert by["GPS Speed"]["unit"] == "km/h" and by["GPS Speed"]["canonical"] == "speed_kmh"
    assert by["GPS Speed"]["rate_hz"] == 20.0 and by["GPS Speed"]["coverage_pct"] >= 99
    assert not q["capabilities"]["brake pressure (peak, trail braking)"]["available"]
    untrusted = {u["lap"]: u for u in q["laps_untrusted"]}
    assert untrusted[0]["kind"] == "out" and untrusted[15]["kind"] == "in"


def test_a_gap_in_the_data_is_reported(shared_dir: Path, tmp_path: Path) -> None:
    src = (shared_dir / KART).read_bytes().split(b"\n")
    # rows 300 s to 312 s missing (data rows start at line 18; 20 Hz)
    a, b = 17 + 300 * 20, 17 + 312 * 20
    f = tmp_path / "gap.csv"
    f.write_bytes(b"\n".join(src[:a] + src[b:]))
    q = import_file(f, settings_for(tmp_path / "d")).quality
    assert q is not None
    gap = max(q["gaps"], key=lambda g: g["duration_s"])
    assert abs(gap["start_s"] - 299.95) < 0.1 and abs(gap["end_s"] - 312.0) < 0.1
    assert gap["n_channels"] == 23
    assert any(w.startswith("no data from 299.9") and "to 312.0 s in 23 channels" in w for w in q["warnings"])
    assert any("lap 4: GPS/log gap over 2 s" in w for w in q["warnings"])


def test_xrk_cut_short_is_not_silent(shared_dir: Path, tmp_path: Path) -> None:
    data = (shared_dir / "data/aim/scut_fsev_du.xrk").read_bytes()
    f = tmp_path / "cut.xrk"
    f.write_bytes(data[: int(len(data) * 0.12)])
    q = import_file(f, settings_for(tmp_path / "d")).quality
    assert q is not None and q["file_complete"] is False
    assert any("without the logger's closing lap table" in w for w in q["warnings"])
    whole = import_file(shared_dir / "data/aim/scut_fsev_du.xrk", settings_for(tmp_path / "d")).quality
    assert whole is not None and whole["file_complete"] is True and whole["warnings"] == []


def test_capabilities_name_the_missing_channel(shared_dir: Path) -> None:
    wide, _ = load_car("generic").to_wide(read_log(shared_dir / "data/vbox/sonoma_vbox0240.csv"))
    caps = capabilities(wide)
    assert caps["brake pressure (peak, trail braking)"]["available"]
    wide["brake_bar"] = np.full(len(wide["t_s"]), np.nan)
    wide.pop("brake_pct", None)
    caps = capabilities(wide)
    assert not caps["brake pressure (peak, trail braking)"]["available"]
    assert caps["brake points and braking"]["available"]  # the g_long fallback
    why = unavailable({"capabilities": caps}, "brake pressure (peak, trail braking)")
    assert why is not None and "brake_bar" in why and "cannot be stated" in why
    assert unavailable({"capabilities": caps}, "brake points and braking") is None


@pytest.fixture()
def paddock(tmp_path: Path, shared_dir: Path):
    from tests.support.procs import start_paddock

    data = tmp_path / "data"
    f = tmp_path / "cut.csv"
    _cut_csv(shared_dir / KART, f, 0.3)
    sid = import_file(f, settings_for(data)).session_id
    pad = start_paddock(data, tmp_path, "http://127.0.0.1:9/v1")
    yield pad, sid
    pad.stop()


def test_paddock_serves_the_report(shared_dir: Path, paddock) -> None:
    pad, sid = paddock
    r = httpx.get(f"{pad.url}/sessions/{sid}/quality", timeout=30)
    assert r.status_code == 200
    body = r.json()
    assert body["available"] and body["file_complete"] is False
    assert any(w.startswith("file ends at") for w in body["warnings"])
    assert httpx.get(f"{pad.url}/sessions/nope/quality", timeout=30).status_code == 404
    # the report is the lake file the publisher wrote beside the session (the data dir is beside the log)
    assert (pad.log.parent / "data" / "lake" / "sessions" / sid / "quality.parquet").is_file()

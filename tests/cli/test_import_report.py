"""``pitwall import`` prints the data-quality report in a driver's words without ``--json``: a gap in the
data with its length and where it is, every lap that cannot be trusted with its time, the out- and in-laps,
and what the file cannot tell, never a canonical channel id. Figures checked against the file's own rows
and beacon markers (tests/support/kart_gap.py), not against Pitwall's report."""

from __future__ import annotations

import re
from pathlib import Path

from shared.display import lap_time
from tests.support.cli import pitwall
from tests.support.kart_gap import kart_with_gap

CHANNEL_ID = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")  # wheel_speed_fl_kmh, brake_bar, throttle_pct


def _clock(s: float) -> str:
    m, sec = divmod(s, 60)
    return f"{int(m)}:{sec:04.1f}"


def test_import_names_the_gap_and_the_lap_it_spoils(shared_dir: Path, tmp_path: Path) -> None:
    cut = kart_with_gap(shared_dir, tmp_path / "kart.csv")
    r = pitwall("import", str(cut.path), "--data-dir", str(tmp_path / "d"))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""  # the report is for the driver's eyes: stderr; stdout stays for --json
    notes = [ln.split("note: ", 1)[1] for ln in r.stderr.splitlines() if "note: " in ln]
    gap = f"No data in any channel for {cut.gap_s:.1f} s, from {_clock(cut.start_s)} to "
    assert sum(n.startswith(gap) for n in notes) == 1, notes
    assert f"Lap {cut.lap} ({lap_time(cut.lap_time_s)}) cannot be trusted: GPS/log gap over 2 s" in notes
    # the kart's pit stop as the lap rule judges it (tests/laps check that rule): 0, 2 out; 1, 14, 15 in
    assert "Not compared with your full laps: out-laps 0, 2; in-laps 1, 14, 15" in notes
    missing = next(n for n in notes if n.startswith("Not in this file"))
    assert "throttle pickup and throttle use" in missing and "lockups and wheelspin" in missing
    assert not [n for n in notes if CHANNEL_ID.search(n)], notes
    assert " WARNING " not in r.stderr and "Traceback" not in r.stderr


def test_import_of_a_whole_file_has_no_gap_and_no_untrusted_full_lap(
    shared_dir: Path, tmp_path: Path
) -> None:
    r = pitwall(
        "import", str(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv"), "--data-dir", str(tmp_path)
    )
    assert r.returncode == 0, r.stderr
    assert "No data" not in r.stderr and "cannot be trusted" not in r.stderr
    assert "Not compared with your full laps: out-laps 0, 2; in-laps 1, 14, 15" in r.stderr

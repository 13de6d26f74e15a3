"""``pitwall demo`` as a person runs it: a real process, no TTY, ends with its summary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from services.demo import DEMO_KINDS
from shared.simulator import injected_lines, simulate

REPO = Path(__file__).resolve().parents[2]


def test_demo_runs_to_its_summary(tmp_path: Path) -> None:
    """Run as a driver runs it: the ``pitwall`` command, from a folder that has a ``shared`` folder of its
    own (the data folder beside a checkout): the services it starts must still load Pitwall's package."""
    here = tmp_path / "work"
    (here / "shared" / "data").mkdir(parents=True)
    pitwall = Path(sys.executable).parent / "pitwall"
    assert pitwall.is_file(), f"{pitwall}: the project is not installed in this environment"
    out = subprocess.run(
        [
            str(pitwall),
            "demo",
            "--laps",
            "5",
            "--speed",
            "60",
            "--json",
            "--data-dir",
            str(tmp_path / "new" / "dir"),  # created by the demo, as `pitwall hotpath` does
        ],
        capture_output=True,
        text=True,
        cwd=here,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert " INFO " not in out.stderr  # quiet by default: no per-request httpx lines
    s = json.loads(out.stdout)
    assert s["laps"] == 5 and 95 < s["best_lap_s"] < 125
    assert s["cues_spoken"] >= 1
    assert s["debrief"]["narrator"] == "template" and s["debrief"]["text"] and s["debrief"]["reason"]
    assert (tmp_path / "new" / "dir" / "lake" / "sessions" / s["session_id"] / "session.parquet").is_file()
    # the demo says what it injected (the simulator's draw for seed 7, five laps), and finds it
    truth = simulate(laps=5, seed=7, rate_hz=20.0, kinds=DEMO_KINDS).scenario
    assert truth is not None and s["injected"] == injected_lines(truth.events) and s["injected"]
    mistakes = {e.corner_id.upper() for e in truth.events if e.corner_id}
    assert mistakes and {f.split(":")[0] for f in s["focus_items"]} <= mistakes
    # without --keep the services stop with the demo: no address that would not answer
    assert s["services_running"] is False and "app_url" not in s and "drive_url" not in s


def test_demo_with_a_kart_file_drives_the_kart_track(shared_dir: Path, tmp_path: Path) -> None:
    """``demo --file`` with the MyChron kart file: its own track (built from the driven line, named from
    the file's Venue row), never Sonoma, and the logger's laps live (11 full, fastest 0:58.510 in the
    file's own Segment Times row)."""
    kart = shared_dir / "data" / "aim" / "mychron_kart_sskc_2022-06-19.csv"
    out = subprocess.run(
        [sys.executable, "-m", "shared.cli", "demo", "--file", str(kart), "--speed", "0", "--json"]
        + ["--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=400,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout)
    assert (
        s["track"]["name"] == "SSKC" and s["track"]["id"].startswith("auto-") and s["track"]["corners"] >= 8
    )
    assert s["laps"] == 11 and abs(s["best_lap_s"] - 58.51) < 0.05
    assert (tmp_path / "tracks" / f"{s['track']['id']}.json").is_file()

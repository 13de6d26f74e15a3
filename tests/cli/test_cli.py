"""The command line as a driver uses it: real `pitwall` processes over a real data directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared.display import corner_name, lap_time
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import simulate
from tests.support.cli import pitwall

REPO = Path(__file__).resolve().parents[2]


def test_one_lap_time_and_corner_format() -> None:
    assert lap_time(108.2224) == "1:48.222"
    assert lap_time(59.9996) == "1:00.000"  # never "0:60.000"
    assert lap_time(None) == "-" and lap_time(float("nan")) == "-"
    assert corner_name("t11", "sonoma") == "Turn 11"
    assert corner_name("t3a") == "Turn 3A" and corner_name(None) == "-"


@pytest.fixture(scope="module")
def two_cars(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data = tmp_path_factory.mktemp("cli") / "data"
    settings = settings_for(data)
    bmw = import_sim(simulate(laps=3, seed=4, rate_hz=10), settings)
    other = import_sim(simulate(laps=3, seed=5, rate_hz=10, car_id="generic"), settings)
    return {"data": str(data), "bmw": bmw.session_id, "other": other.session_id}


def test_gold_save_takes_the_sessions_track_and_keeps_another_cars_gold(two_cars) -> None:
    d = two_cars["data"]
    r = pitwall("gold", "save", two_cars["bmw"], "2", "--driver", "ana", "--json", "--data-dir", d)
    assert r.returncode == 0, r.stderr
    path = Path(json.loads(r.stdout)["path"])
    assert path == Path(d) / "gold" / "sonoma" / "ana.parquet"  # no --track: the session's own
    before = path.read_bytes()
    # the other car's lap does not silently replace it
    r = pitwall("gold", "save", two_cars["other"], "2", "--driver", "ana", "--data-dir", d)
    assert r.returncode == 1 and "--force" in r.stderr and "generic" in r.stderr
    assert "Traceback" not in r.stderr and path.read_bytes() == before
    # a track that is not the session's is refused, not mislabelled
    r = pitwall("gold", "save", two_cars["bmw"], "2", "--driver", "ana", "--track", "laguna", "--data-dir", d)
    assert r.returncode == 1 and "sonoma" in r.stderr and "Traceback" not in r.stderr
    r = pitwall("gold", "save", two_cars["other"], "2", "--driver", "ana", "--force", "--data-dir", d)
    assert r.returncode == 0 and path.read_bytes() != before


def test_sessions_at_80_columns_keep_the_id_and_logs_are_quiet(two_cars) -> None:
    r = pitwall("sessions", "--data-dir", two_cars["data"], columns=80)
    assert r.returncode == 0, r.stderr
    assert two_cars["bmw"] in r.stdout and two_cars["other"] in r.stdout  # whole, on one line
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    head = r.stdout.splitlines()[0].split()
    assert (
        head[:4] == ["session", "date", "track", "file"] and len(r.stdout.splitlines()) == 3
    )  # one line each
    assert " INFO " not in r.stderr
    r = pitwall("-v", "sessions", "--data-dir", two_cars["data"], columns=80)
    assert r.returncode == 0, r.stderr


def test_quiet_by_default_and_v_for_more() -> None:
    import logging

    from shared.cli import set_verbosity

    root, httpx_log = logging.getLogger(), logging.getLogger("httpx")
    saved = (root.level, httpx_log.level)
    try:
        set_verbosity(0)
        assert root.level == logging.WARNING and httpx_log.level == logging.WARNING
        set_verbosity(1)  # -v: what Pitwall does, not every HTTP request
        assert root.level == logging.INFO and httpx_log.level == logging.WARNING
        set_verbosity(2)
        assert root.level == logging.DEBUG and httpx_log.level == logging.DEBUG
    finally:
        root.setLevel(saved[0])
        httpx_log.setLevel(saved[1])


def test_replay_to_a_hot_path_that_is_not_there_is_one_clear_line() -> None:
    from tests.support.procs import free_port

    url = f"ws://127.0.0.1:{free_port()}/ingest/ws"
    r = pitwall("replay", "--sim", "--laps", "1", "--speed", "0", "--to", url)
    assert r.returncode == 1 and "cannot stream to" in r.stderr and url in r.stderr.replace("\n", "")
    assert "Traceback" not in r.stderr


def test_voices_build_without_espeak_says_so_and_what_happens_instead(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # no espeak-ng on it
    r = subprocess.run(
        [sys.executable, "-m", "shared.cli", "voices", "build", "--data-dir", str(tmp_path / "d")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1 and "espeak-ng is not installed" in r.stderr and "speechSynthesis" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "d" / "voices" / "manifest.json").exists()


def test_replay_of_a_kart_file_finds_the_kart_track_not_sonoma(shared_dir: Path, tmp_path: Path) -> None:
    """``pitwall replay`` finds the track as import does (here: built from the kart's driven line and
    named from the file), sends it to a hot path that has never seen it (another data directory), and
    the hot path's live laps are the logger's: 11 full laps, the fastest 58.51 s in the file's header."""
    import pyarrow.parquet as pq

    from tests.support.procs import start_hotpath

    kart = shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv"
    hot = start_hotpath(tmp_path / "hot", tmp_path)
    try:
        url = f"ws://127.0.0.1:{hot.port}/ingest/ws"
        bad = pitwall("replay", str(kart), "--speed", "0", "--to", url, "--track", "laguna")
        assert bad.returncode == 2 and "unknown track 'laguna'" in bad.stderr and "sonoma" in bad.stderr
        assert "Traceback" not in bad.stderr
        r = pitwall(
            "replay", str(kart), "--speed", "0", "--to", url, "--json", "--data-dir", str(tmp_path / "mine")
        )
        assert r.returncode == 0, r.stderr[-2000:]
    finally:
        hot.stop()
    out = json.loads(r.stdout)
    full = [lp["time_s"] for lp in out["laps"] if lp["kind"] == "full"]
    assert len(full) == 11 and abs(min(full) - 58.51) < 0.05
    stored = sorted((tmp_path / "hot" / "tracks").glob("auto-*.json"))
    assert len(stored) == 1 and stored[0].stem in r.stderr and "SSKC" in r.stderr
    row = pq.read_table(
        tmp_path / "hot" / "lake" / "sessions" / out["session_id"] / "session.parquet"
    ).to_pylist()[0]
    assert row["track_id"] == stored[0].stem and row["track_name"] == "SSKC"

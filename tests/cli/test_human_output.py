"""Human lines by default, JSON only with ``--json``: gold laps listed, shown and cleared (and ``delete``
says when a gold lap came from the deleted session, and clears it when asked), ``export`` says the
``.pitwall`` file is a zip with ``report.html`` inside (checked by opening the zip), ``simulate`` and
``replay`` summarise in words. Real processes over real data directories; figures from the simulator."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from shared.display import lap_time
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from tests.support import require
from tests.support.cli import pitwall
from tests.support.procs import start_hotpath
from tests.support.require import missing


def _not_json(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


@pytest.fixture()
def two(tmp_path: Path) -> dict[str, Any]:
    settings = settings_for(tmp_path / "data")
    sims = [simulate(laps=3, seed=s, rate_hz=10, scenario=Scenario.clean(3)) for s in (1, 2)]
    ids = [import_sim(sim, settings).session_id for sim in sims]
    return {
        "d": str(tmp_path / "data"),
        "ids": ids,
        "sims": sims,
        "gold": settings.gold_dir / "sonoma" / "ana.parquet",
    }


def _shown_time(text: str, sim: Any, lap: int) -> str:
    """The lap time a line shows, checked against the simulator's own (within a 10 Hz sample)."""
    m = re.search(rf"lap {lap} of session \S+ \((\d+):(\d\d\.\d\d\d)\)", text)
    assert m, text
    truth = next(lp["time_s"] for lp in sim.truth.laps if lp["lap"] == lap)
    assert abs(int(m[1]) * 60 + float(m[2]) - truth) <= 0.1, (m[0], lap_time(truth))
    return f"{m[1]}:{m[2]}"


def test_gold_list_show_and_clear_and_delete_says_where_the_gold_came_from(two: dict[str, Any]) -> None:
    d, (sid, _), gold = two["d"], two["ids"], two["gold"]
    r = pitwall("gold", "list", "--data-dir", d)
    assert (
        r.returncode == 0
        and r.stdout.strip() == "No gold laps yet: save one with `pitwall gold save SESSION LAP`."
    )
    r = pitwall("gold", "save", sid, "2", "--driver", "ana", "--data-dir", d)
    assert r.returncode == 0, r.stderr
    _not_json(r.stdout)
    shown = _shown_time(r.stdout, two["sims"][0], 2)
    assert r.stdout.startswith(f"saved lap 2 of session {sid} ({shown}), own lap as ana's gold lap at sonoma")
    line = f"ana's gold lap is lap 2 of session {sid} ({shown}), own lap"
    r = pitwall("gold", "list", "--data-dir", d)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1 and line in r.stdout, r.stdout
    listed = json.loads(pitwall("gold", "list", "--json", "--data-dir", d).stdout)
    assert [(g["track_id"], g["driver_id"], g["session_id"], g["lap"]) for g in listed] == [
        ("sonoma", "ana", sid, 2)
    ]
    r = pitwall("gold", "show", "--driver", "ana", "--data-dir", d)
    assert (
        r.returncode == 0
        and line in r.stdout
        and f"its session is stored (see `pitwall laps {sid}`)" in r.stdout
    )
    r = pitwall("gold", "show", "--driver", "bob", "--data-dir", d)
    assert r.returncode == 1 and "bob has no gold lap; see `pitwall gold list`" in r.stderr

    r = pitwall("gold", "clear", "--driver", "ana", "--data-dir", d)  # no terminal to confirm on
    assert r.returncode == 2 and gold.is_file()
    r = pitwall("gold", "clear", "--driver", "ana", "--yes", "--data-dir", d)
    assert r.returncode == 0 and r.stdout.startswith("cleared: ") and not gold.exists()

    assert pitwall("gold", "save", sid, "2", "--driver", "ana", "--data-dir", d).returncode == 0
    r = pitwall("delete", sid, "--yes", "--data-dir", d)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"deleted session {sid}: {len(two['sims'][0].truth.laps)} laps, ")
    said = r.stderr.replace("\n", " ")
    assert f"{line}: it came from this session, so it is cleared too" in said and not gold.exists()
    r = pitwall("gold", "show", "--driver", "ana", "--data-dir", d)
    assert r.returncode == 1 and "ana has no gold lap" in r.stderr


def test_delete_clears_only_the_gold_lap_from_that_session(two: dict[str, Any]) -> None:
    d, (keep, sid), gold = two["d"], two["ids"], two["gold"]
    assert pitwall("gold", "save", sid, "3", "--driver", "ana", "--data-dir", d).returncode == 0
    other = two["gold"].parent / "bob.parquet"
    assert pitwall("gold", "save", keep, "2", "--driver", "bob", "--data-dir", d).returncode == 0
    r = pitwall("delete", sid, "--yes", "--json", "--data-dir", d)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["gold_cleared"] is True and [g["driver_id"] for g in out["gold_from_session"]] == ["ana"]
    assert not gold.exists() and other.is_file()  # bob's gold lap came from another session: kept


def test_export_says_it_is_a_zip_with_the_report_inside(two: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "for-coach.pitwall"
    r = pitwall("export", two["ids"][0][:-1], "-o", str(target), "--data-dir", two["d"])  # a unique start
    assert r.returncode == 0, r.stderr
    _not_json(r.stdout)
    assert "a zip file with report.html inside" in r.stdout and "unzip it and open report.html" in r.stdout
    assert zipfile.is_zipfile(target) and "report.html" in zipfile.ZipFile(target).namelist()
    r = pitwall("export", two["ids"][0], "-o", str(tmp_path / "b.pitwall"), "--json", "--data-dir", two["d"])
    assert json.loads(r.stdout)["path"] == str(tmp_path / "b.pitwall")


def test_simulate_and_replay_summarise_in_words(tmp_path: Path) -> None:
    r = pitwall("simulate", "--laps", "2", "--seed", "3", "--rate", "10", "--clean", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    _not_json(r.stdout)
    for f in (
        "sim_sonoma_2laps_seed3_clean.csv",
        "sim_sonoma_2laps_seed3_clean.log",
        "sim_sonoma_2laps_seed3_clean.truth.json",
    ):
        assert str(tmp_path / f) in r.stdout and (tmp_path / f).is_file()
    sim = simulate(track_id="sonoma", laps=2, seed=0, rate_hz=50.0)  # what `replay --sim --laps 2` sends
    hot = start_hotpath(tmp_path / "data", tmp_path)
    try:
        url = f"ws://127.0.0.1:{hot.port}/ingest/ws"
        r = pitwall("replay", "--sim", "--laps", "2", "--speed", "0", "--to", url)
    finally:
        hot.stop()
    assert r.returncode == 0, r.stderr
    _not_json(r.stdout)
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 200, r.stdout
    assert f": {len(sim.wide['t_s']):,} frames taken; " in lines[0] and "refused" not in lines[0]


def test_voices_build_says_what_it_rendered_and_what_longer_means(tmp_path: Path) -> None:
    if not shutil.which("espeak-ng"):
        missing(require.VOICE, "espeak-ng is not installed (scripts/check installs it as root)")
    r = pitwall("voices", "build", "--track", "sonoma", "--data-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    _not_json(r.stdout)
    manifest = json.loads((tmp_path / "voices" / "manifest.json").read_text())
    wavs = list((tmp_path / "voices").glob("*.wav"))
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{len(manifest['entries'])} phrases rendered with eSpeak NG") and len(
        wavs
    ) == len(manifest["entries"])
    assert "longer_than_arbiter_budget" not in r.stdout
    if len(r.stdout.splitlines()) > 1:  # phrases longer than the coach's budget: said with what it means
        assert "take longer to say than the coach allows for them" in r.stdout and "--wpm" in r.stdout
    out = json.loads(
        pitwall("voices", "build", "--track", "sonoma", "--json", "--data-dir", str(tmp_path)).stdout
    )
    assert out["phrases"] == len(manifest["entries"])

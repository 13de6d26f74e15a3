"""While a hot path holds a data directory: a second hot path is one clear line, and ``pitwall import`` /
``pitwall gold import`` go through the running hot path (``POST /imports``) instead of failing. Real
processes, a real simulated AiM CSV, laps checked against the simulator's own lap count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from shared.simulator import simulate, write_aim_csv
from tests.support.procs import REPO, free_port, start_hotpath


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shared.cli", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "300", **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    d = tmp_path_factory.mktemp("through")
    sim = simulate(laps=3, seed=5, rate_hz=20)
    csv = d / "sim.csv"
    write_aim_csv(sim, csv)
    svc = start_hotpath(d / "data", d)
    try:
        yield svc, d / "data", csv, sim
    finally:
        svc.stop()


def test_a_second_hot_path_on_the_same_data_dir_is_one_clear_line(running) -> None:  # type: ignore[no-untyped-def]
    svc, data, _, _ = running
    r = _cli("hotpath", "--port", str(free_port()), "--data-dir", str(data))
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1, out
    assert "already in use" in out and str(svc.port) in out, out


def test_import_goes_through_the_running_hot_path(running) -> None:  # type: ignore[no-untyped-def]
    svc, data, csv, sim = running
    r = _cli("import", str(csv), "--data-dir", str(data), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(r.stdout)
    full = [lp["time_s"] for lp in res["laps"] if lp["kind"] == "full"]
    truth = [lp["time_s"] for lp in sim.truth.laps if lp["kind"] == "full"]
    assert len(full) == len(truth) and all(abs(a - b) < 0.1 for a, b in zip(full, truth, strict=True)), full
    assert (data / "lake" / "sessions" / res["session_id"]).is_dir()  # published by the hot path
    listed = json.loads(_cli("sessions", "--json", "--data-dir", str(data)).stdout)
    assert res["session_id"] in [s["session_id"] for s in listed]
    # the same file again: recognised as already imported, by the hot path's own store
    again = _cli("import", str(csv), "--data-dir", str(data), "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["session_id"] == res["session_id"]
    assert httpx.get(f"{svc.url}/health").json()["status"] == "ok"


def test_gold_import_goes_through_the_running_hot_path(running) -> None:  # type: ignore[no-untyped-def]
    _, data, csv, _ = running
    r = _cli(
        "gold", "import", str(csv), "--track", "sonoma", "--driver", "ana", "--json", "--data-dir", str(data)
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert Path(json.loads(r.stdout)["path"]).is_file()


def test_a_bad_file_through_the_hot_path_is_one_error_naming_it(running) -> None:  # type: ignore[no-untyped-def]
    _, data, _, _ = running
    junk = data.parent / "junk.xrk"
    junk.write_bytes(b"\x00\x1b[2J" + bytes(range(256)) * 20)
    r = _cli("import", str(junk), "--data-dir", str(data))
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "Traceback" not in out, out
    line = " ".join(out.split())
    assert "error" in line and "junk.xrk" in line and "unrecognised" in line, out
    assert "\x1b[2J" not in out


def test_a_bundle_goes_through_the_running_hot_path(running, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A coach's .pitwall file imports while the hot path runs: the session arrives whole, with its laps."""
    from shared.bundle import export_bundle
    from shared.ingest import import_sim
    from shared.settings import settings_for

    svc, data, _, sim = running
    other = settings_for(tmp_path / "coach")
    sid = import_sim(sim, other, driver_id="coach").session_id
    export_bundle(other, sid, tmp_path / "s.pitwall")
    r = _cli("import", str(tmp_path / "s.pitwall"), "--data-dir", str(data), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["session_id"] == sid
    listed = {s["session_id"] for s in json.loads(_cli("sessions", "--data-dir", str(data), "--json").stdout)}
    assert sid in listed

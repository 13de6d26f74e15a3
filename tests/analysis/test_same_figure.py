"""The same figure on every surface: every corner's "time to find" as the REST routes (a real paddock
process), the tools, the CLI's JSON (a real subprocess), the debrief's facts, the goals, the corner history answer and report.html give it, for a
simulated session and the shared Sonoma VBOX file, against the stored analysis; a surface whose figure
differs fails the test. The VBOX file's corner times are also checked against our own split of its raw
telemetry."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow.parquet as pq
import pytest

from services.paddock.agents.data_agents import DATA_SPECS, compact
from services.paddock.agents.digest import build_digest
from services.paddock.lake import configure_lake
from services.paddock.tools.registry import run_tool
from shared.analysis.model import from_records
from shared.analysis.session import SessionAnalysis
from shared.analysis.summary import corner_summaries
from shared.ingest import import_file, import_sim
from shared.profiles.track import load_track
from shared.report import session_report_html
from shared.settings import settings_for
from shared.simulator import simulate
from shared.store.lake_read import LocalSession
from tests.support.procs import start_paddock

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("same")
    data = root / "data"
    settings = settings_for(data)
    sim = import_sim(simulate(laps=10, seed=311, rate_hz=50.0), settings, driver_id="ana").session_id
    vbox = import_file(shared_dir / "data/vbox/sonoma_vbox0240.csv", settings, driver_id="ana").session_id
    configure_lake(settings)
    pad = start_paddock(data, root, "http://127.0.0.1:9/v1")  # the REST routes, a real process
    try:
        yield {"data": data, "sessions": [sim, vbox], "vbox": vbox, "pad": pad.url}
    finally:
        pad.stop()


def _stored(data: Path, sid: str) -> dict[str, float]:
    """The stored analysis' time to find per named corner, at the precision the screens show (2 d.p.)."""
    rows = from_records(pq.read_table(data / "lake/sessions" / sid / "analysis.parquet").to_pylist())
    return {s.corner: round(s.per_lap_s, 2) for s in corner_summaries(SessionAnalysis(rows=rows)) if s.laps}


def _surfaces(data: Path, sid: str, pad: str) -> dict[str, dict[str, float]]:
    """Every surface's (corner -> time to find) for the session."""
    got: dict[str, dict[str, float]] = {}
    rest = httpx.post(f"{pad}/api/tools/get_opportunities", json={"session_id": sid}, timeout=60).json()
    got["REST opportunities"] = {o["corner"]: round(o["time_to_find_s"], 2) for o in rest["opportunities"]}
    hl = httpx.post(f"{pad}/api/tools/get_session_highlights", json={"session_id": sid}, timeout=60).json()
    got["REST highlights"] = {o["corner"]: round(o["time_to_find_s"], 2) for o in hl["biggest_opportunities"]}
    page = httpx.get(f"{pad}/sessions/{sid}/report", timeout=60).text
    got["REST report"] = {
        m[0]: float(m[1]) for m in re.findall(r"<tr><td>(T\w+)</td><td>(\d+\.\d\d)</td>", page)
    }
    opp = run_tool("get_opportunities", {"session_id": sid})["opportunities"]
    got["opportunities"] = {o["corner"]: round(o["time_to_find_s"], 2) for o in opp}
    hl = run_tool("get_session_highlights", {"session_id": sid})["biggest_opportunities"]
    got["highlights"] = {o["corner"]: round(o["time_to_find_s"], 2) for o in hl}
    goals = run_tool("get_goal_targets", {"session_id": sid})["corner_targets"]
    got["goals"] = {o["corner"]: round(o["time_to_find_s"], 2) for o in goals}
    hist = {}
    for corner in got["opportunities"]:
        h = run_tool("get_corner_history", {"session_id": sid, "corner_name": corner})
        this = next(x for x in h["sessions"] if x["session_id"] == sid)
        hist[corner] = round(this["time_to_find_s"], 2)
    got["corner history"] = hist
    cli = subprocess.run(
        [sys.executable, "-m", "shared.cli", "tool", "get_opportunities", "--data-dir", str(data)]
        + ["--args", json.dumps({"session_id": sid})],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    got["cli"] = {o["corner"]: round(o["time_to_find_s"], 2) for o in json.loads(cli.stdout)["opportunities"]}
    state: dict[str, Any] = {"session_id": sid}
    for k, (tool, build) in DATA_SPECS.items():
        state[k] = compact(run_tool(tool, build(state)))
    digest = build_digest("debrief", state)
    got["debrief facts"] = {
        m[0]: float(m[1]) for m in re.findall(r"Opportunity \d, (T\w+)[^:]*: (\d+\.\d\d) s a lap", digest)
    }
    report = session_report_html(LocalSession(data / "lake", sid))
    got["report.html"] = {
        m[0]: float(m[1]) for m in re.findall(r"<tr><td>(T\w+)</td><td>(\d+\.\d\d)</td>", report)
    }
    return got


def test_every_surface_gives_each_corner_the_stored_figure(lake: dict[str, Any]) -> None:
    for sid in lake["sessions"]:
        truth = _stored(lake["data"], sid)
        assert truth, sid  # both sessions lose time somewhere
        surfaces = _surfaces(lake["data"], sid, lake["pad"])
        for name, figures in surfaces.items():
            assert figures, (sid, name)  # every surface names a corner
            for corner, value in figures.items():
                assert value == truth[corner], (sid, name, corner, value, truth[corner])


def test_the_vbox_corner_times_are_our_own_split_of_its_telemetry(lake: dict[str, Any]) -> None:
    """Each corner segment's time on each lap, against the raw lake telemetry re-timed here: the lap's
    samples by distance, the lap before below 0 m and the lap after past the track's length."""
    data, sid = lake["data"], lake["vbox"]
    d = data / "lake/sessions" / sid
    length = load_track("sonoma").length_m
    rows = pq.read_table(d / "analysis.parquet").to_pylist()
    laps = {r["lap"]: r for r in pq.read_table(d / "laps.parquet").to_pylist()}

    def samples(k: int, off: float) -> tuple[np.ndarray, np.ndarray]:
        if k not in laps or laps[k]["kind"] != "full":
            return np.array([]), np.array([])
        t = pq.read_table(d / "telemetry" / f"lap_{k:04d}.parquet", columns=["t_s", "dist_m"])
        return t.column("dist_m").to_numpy() + off, t.column("t_s").to_numpy()

    checked = 0
    for r in rows:
        parts = [samples(r["lap"] - 1, -length), samples(r["lap"], 0.0), samples(r["lap"] + 1, length)]
        x = np.concatenate([p[0] for p in parts])
        t = np.concatenate([p[1] for p in parts])
        x = np.maximum.accumulate(x) + np.arange(len(x)) * 1e-6
        own = float(np.interp(r["to_m"], x, t) - np.interp(r["from_m"], x, t))
        assert r["time_s"] == pytest.approx(own, abs=0.005), (r["lap"], r["corner"])
        checked += 1
    assert checked >= 8 * 10  # every corner of the valid laps
    # the corner named first is one a lap lost time at, with evidence from that corner's own driving
    top = run_tool("get_opportunities", {"session_id": sid})["opportunities"][0]
    named = [r for r in rows if r["corner"] == top["corner"] and r["cause"]]
    assert sorted(r["lap"] for r in named) == top["laps"]
    assert any(r["evidence"] == top["evidence"] for r in named)

"""A live session's analysis is computed once when it closes and stored beside it in the lake: the hot
path's own store and publisher (real DuckDB file, real lake), a simulated session fed frame by frame."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from services.hotpath.replay import frames_of
from services.hotpath.state import HotpathState
from shared.settings import settings_for
from shared.simulator import Event, Scenario, simulate
from shared.store.lake_layout import table_path


def test_a_live_session_is_analysed_when_it_closes(tmp_path: Path) -> None:
    sim = simulate(
        laps=6,
        seed=57,
        rate_hz=50.0,
        scenario=Scenario([Event("early_brake", k, "t6", offset_m=35.0) for k in (3, 4)], [1, 2, 5, 6]),
    )
    settings = settings_for(tmp_path / "data")
    state = HotpathState(settings)
    try:
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        frames = list(frames_of(sim.wide))
        for i in range(0, len(frames), 500):
            state.ingest(sid, frames[i : i + 500])
        state.writer.flush()
        assert pq.read_table(table_path(settings.lake_dir, sid, "analysis")).num_rows == 0  # not while live
        state.end_session(sid)
        state.writer.flush()
    finally:
        state.close()
    rows = pq.read_table(table_path(settings.lake_dir, sid, "analysis")).to_pylist()
    named = {(r["lap"], r["corner_id"]): r for r in rows if r["cause"]}
    truth = {(e["lap"], e["corner_id"]): e for e in sim.truth.events_of("early_brake")}
    assert set(named) == set(truth)
    for key, e in truth.items():
        assert named[key]["cause"] == "early_brake"
        assert named[key]["loss_s"] == pytest.approx(e["time_lost_s"], abs=0.05)

"""Exactly one best lap a session (the fastest valid full lap), however many laps were best when they
closed: in the live view, the hot store and the lake a live session is published to. Real DuckDB file,
real lake; a simulated session whose laps 1 and 2 are each a new best when they close."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from services.hotpath.replay import frames_of
from services.hotpath.state import HotpathState
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from shared.store.lake_layout import table_path


def test_a_live_session_has_one_best_lap_everywhere(tmp_path: Path) -> None:
    sim = cached_sim(laps=4, seed=7)
    full = [lp for lp in sim.truth.laps if lp["kind"] == "full"]
    fastest = min(full, key=lambda lp: lp["time_s"])["lap"]
    bests_so_far = [
        lp["lap"] for i, lp in enumerate(full) if lp["time_s"] < min([1e9] + [x["time_s"] for x in full[:i]])
    ]
    assert len(bests_so_far) >= 2  # the session shows the case: more than one lap was a best when it closed
    settings = settings_for(tmp_path / "data")
    state = HotpathState(settings)
    try:
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        frames = list(frames_of(sim.wide))
        for i in range(0, len(frames), 200):
            state.ingest(sid, frames[i : i + 200])
        view = state.session(sid).live_view()
        assert [lp["lap"] for lp in view["laps"] if lp["is_best"]] == [fastest] == [view["best_lap"]]
        state.end_session(sid)
        state.writer.flush()
        hot = state.store.laps(sid)
        assert [lp["lap"] for lp in hot if lp["is_best"]] == [fastest]
    finally:
        state.close()
    lake = pq.read_table(table_path(settings.lake_dir, sid, "laps")).to_pylist()
    assert [lp["lap"] for lp in lake if lp["is_best"]] == [fastest]

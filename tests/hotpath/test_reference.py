"""Any stored lap of any session (a friend's, another logger's) can be the live session's reference,
chosen at session start, without touching anyone's gold lap (real lake, real hot DuckDB file)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from services.hotpath.state import HotpathState
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from shared.store.gold import load_gold_lap
from shared.store.lake_layout import table_path


def test_a_friends_lap_is_the_reference_for_one_session(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "data")
    friend = import_sim(simulate(laps=3, seed=12, rate_hz=10, scenario=Scenario.clean(3)), settings, "bo")
    laps = pq.read_table(table_path(settings.lake_dir, friend.session_id, "laps")).to_pylist()
    best = min((lp for lp in laps if lp["kind"] == "full" and lp["valid"]), key=lambda lp: lp["time_s"])
    state = HotpathState(settings)
    try:
        sid = state.start_session(
            "ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, (friend.session_id, best["lap"])
        )
        ref = state.session(sid).live_view()["reference"]
        assert ref["session_id"] == friend.session_id and ref["lap"] == best["lap"]
        assert ref["origin"] == "chosen lap" and ref["driver_id"] == "bo"
        assert abs(ref["time_s"] - best["time_s"]) < 1e-9
        assert len(state.session(sid).coach.ref_obs) == 13  # RuleCoach coaches against its corners too
        plain = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        assert state.session(plain).live_view()["reference"]["source"] == "none"  # only where asked
        with pytest.raises(KeyError, match="no lap 99"):
            state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, (friend.session_id, 99))
        with pytest.raises(KeyError, match="not in the lake"):
            state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, ("nope", 1))
    finally:
        state.close()
    assert (
        load_gold_lap(settings, "sonoma", "ana") is None and load_gold_lap(settings, "sonoma", "bo") is None
    )

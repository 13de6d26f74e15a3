"""The gold lap is RuleCoach's reference when one is saved for the track and car; the live view says
which reference is in use. Real files: an imported session in a real lake, a real hot DuckDB file."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from services.hotpath.state import HotpathState
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from shared.store.gold import gold_path, save_gold_lap


def _gold(tmp_path: Path) -> object:
    settings = settings_for(tmp_path / "data")
    sim = simulate(laps=2, seed=11, rate_hz=20, scenario=Scenario.clean(2))
    res = import_sim(sim, settings, driver_id="ana")
    save_gold_lap(settings, "sonoma", "ana", res.session_id, 2)
    return settings


def test_gold_lap_is_the_reference_from_the_first_lap(tmp_path: Path) -> None:
    settings = _gold(tmp_path)
    meta = pq.read_schema(gold_path(settings, "sonoma", "ana")).metadata[b"pitwall_gold"]
    assert b'"car_id": "bmw_e46_m3_aim_mxp"' in meta
    state = HotpathState(settings)
    try:
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        ref = state.session(sid).live_view()["reference"]
        assert ref["source"] == "gold" and ref["lap"] == 2 and ref["car_id"] == "bmw_e46_m3_aim_mxp"
        assert len(state.session(sid).coach.ref_obs) == 13
        other = state.start_session("bo", "bmw_e46_m3_aim_mxp", "sonoma", None, None)  # no gold for bo
        assert state.session(other).live_view()["reference"]["source"] == "none"
        generic = state.start_session("ana", "generic", "sonoma", None, None)  # gold is from another car
        assert state.session(generic).live_view()["reference"]["source"] == "none"
    finally:
        state.close()


def test_an_unreadable_gold_file_falls_back_to_the_session_best(tmp_path: Path) -> None:
    settings = _gold(tmp_path)
    gold_path(settings, "sonoma", "ana").write_bytes(b"not parquet")
    state = HotpathState(settings)
    try:
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        assert state.session(sid).live_view()["reference"]["source"] == "none"
    finally:
        state.close()


def test_a_gold_lap_from_a_deleted_session_is_no_reference(tmp_path: Path) -> None:
    """Deleted through the hot path (as the tablet and `pitwall delete` through it do), the session's gold
    lap file is still there, but the next session neither compares its delta with it nor coaches by it."""
    settings = _gold(tmp_path)
    state = HotpathState(settings)
    try:
        first = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        gold_sid = state.session(first).live_view()["reference"]["session_id"]
        assert state.session(first).delta.reference is not None
        state.delete_session(gold_sid)
        assert gold_path(settings, "sonoma", "ana").is_file()
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        assert state.session(sid).live_view()["reference"]["source"] == "none"
        assert state.session(sid).delta.reference is None
    finally:
        state.close()

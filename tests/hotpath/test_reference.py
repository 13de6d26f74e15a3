"""Any stored lap of any session (a friend's, another logger's) can be the live session's reference,
chosen at session start, without touching anyone's gold lap (real lake, real hot DuckDB file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from services.hotpath.state import BadArgument, HotpathState
from shared.bundle import export_bundle, import_bundle
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
        with pytest.raises(BadArgument, match="no lap 99"):
            state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, (friend.session_id, 99))
        with pytest.raises(BadArgument, match="not in the lake"):
            state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, ("nope", 1))
    finally:
        state.close()
    assert (
        load_gold_lap(settings, "sonoma", "ana") is None and load_gold_lap(settings, "sonoma", "bo") is None
    )


def test_all_time_best_is_the_drivers_fastest_lap_here_in_this_car(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "data")
    mine = [import_sim(simulate(laps=2, seed=s, rate_hz=10), settings, "ana").session_id for s in (21, 22)]
    theirs = import_sim(simulate(laps=2, seed=23, rate_hz=10, scenario=Scenario.clean(2)), settings, "bo")

    def best(sid: str) -> tuple[float, int]:
        laps = pq.read_table(table_path(settings.lake_dir, sid, "laps")).to_pylist()
        r = min((lp for lp in laps if lp["kind"] == "full" and lp["valid"]), key=lambda lp: lp["time_s"])
        return float(r["time_s"]), int(r["lap"])

    _, want_sid, want_lap = min((best(s)[0], s, best(s)[1]) for s in mine)  # from the raw lap rows
    state = HotpathState(settings)
    try:
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, "alltime")
        ref = state.session(sid).live_view()["reference"]
        assert (ref["session_id"], ref["lap"]) == (want_sid, want_lap) and ref["driver_id"] == "ana"
        assert theirs.session_id not in (ref["session_id"],)  # another driver's laps are not "yours"
        nobody = state.start_session("cy", "bmw_e46_m3_aim_mxp", "sonoma", None, None, "alltime")
        assert state.session(nobody).live_view()["reference"]["source"] == "none"  # none yet: own best later
    finally:
        state.close()


def test_a_bundle_under_your_name_is_never_your_all_time_best(tmp_path: Path) -> None:
    """A friend's export keeps their driver name, often the default one: imported, it is not "yours",
    even when faster (choose it as SESSION:LAP instead)."""

    def best_s(s: Any, sid: str) -> float:
        laps = pq.read_table(table_path(s.lake_dir, sid, "laps")).to_pylist()
        return min(lp["time_s"] for lp in laps if lp["kind"] == "full" and lp["valid"])

    sims = [simulate(laps=2, seed=seed, rate_hz=10, scenario=Scenario.clean(2)) for seed in (21, 23)]
    friend_settings = settings_for(tmp_path / "friend")
    settings = settings_for(tmp_path / "data")
    a, b = (import_sim(sim, settings_for(tmp_path / f"probe{i}"), "x") for i, sim in enumerate(sims))
    fast, slow = (
        (0, 1)
        if best_s(settings_for(tmp_path / "probe0"), a.session_id)
        < best_s(settings_for(tmp_path / "probe1"), b.session_id)
        else (1, 0)
    )
    friend = import_sim(sims[fast], friend_settings, "driver").session_id
    bundle = tmp_path / "friend.pitwall"
    export_bundle(friend_settings, friend, bundle)
    mine = import_sim(sims[slow], settings, "driver").session_id
    imported = import_bundle(bundle, settings).session_id
    assert best_s(settings, imported) < best_s(settings, mine)  # the friend's lap is the faster one
    state = HotpathState(settings)
    try:
        sid = state.start_session("driver", "bmw_e46_m3_aim_mxp", "sonoma", None, None, "alltime")
        assert state.session(sid).live_view()["reference"]["session_id"] == mine
    finally:
        state.close()

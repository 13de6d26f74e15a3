"""The achievable lap (a session's laps joined where they matched) as the live session's reference: the
delta runs against its stitched trace, timed from the line, and RuleCoach coaches against its corners
(real lake, real hot DuckDB file)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from services.hotpath.routers.sessions import SessionStart
from services.hotpath.state import BadArgument, HotpathState
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from shared.store.lake_layout import table_path


def test_the_achievable_lap_is_the_reference_for_one_session(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "data")
    old = import_sim(cached_sim(laps=6, seed=7), settings, "ana").session_id
    laps = pq.read_table(table_path(settings.lake_dir, old, "laps")).to_pylist()
    best = min(lp["time_s"] for lp in laps if lp["kind"] == "full" and lp["valid"])
    state = HotpathState(settings)
    try:
        sid = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, (old, "achievable"))
        sess = state.session(sid)
        ref = sess.live_view()["reference"]
        assert ref["session_id"] == old and ref["origin"].startswith("achievable lap of laps")
        assert ref["time_s"] < best  # six laps of noise: some pieces of other laps are faster and join
        assert len(sess.coach.ref_obs) == 13  # RuleCoach coaches against its corners too
        d = sess.delta.reference
        assert d is not None and d.time_s == ref["time_s"] and d.source == "achievable"
        assert d.elapsed[0] == 0.0 and d.elapsed[-1] == pytest.approx(ref["time_s"])
        assert (np.diff(d.elapsed) > 0).all() and d.dist[-1] > 3900  # the whole lap, from the line
        # "achievable": the achievable lap of the session with the driver's fastest lap here in this car
        mine = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, "achievable")
        assert state.session(mine).live_view()["reference"]["time_s"] == ref["time_s"]
        with pytest.raises(BadArgument, match="not in the lake"):
            state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, ("nope", "achievable"))
    finally:
        state.close()


def test_the_start_request_accepts_the_achievable_forms() -> None:
    for ok in ("achievable", "20261123-184248-eae12e:achievable", "s1:3", "alltime"):
        assert SessionStart(reference=ok).reference == ok
    for bad in ("s1:achievablex", "s1:", "achievable:", ":achievable"):
        with pytest.raises(ValueError):
            SessionStart(reference=bad)

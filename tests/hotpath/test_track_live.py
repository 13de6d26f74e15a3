"""A live session started without a track finds it from its own GPS fixes, never a silent default.

Truth is the simulator's own lap split (its ``truth``), not the tracker under test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.hotpath.app import create_app
from services.hotpath.replay import frames_of
from services.hotpath.state import HotpathState
from services.hotpath.track_live import MIN_SPREAD_M
from shared.settings import Settings
from shared.simulator import simulate

CAR = "bmw_e46_m3_aim_mxp"


@pytest.fixture(scope="module")
def sim() -> Any:
    return simulate(laps=3, seed=11, rate_hz=20.0)


@pytest.fixture
def state(tmp_path: Path) -> Iterator[HotpathState]:
    st = HotpathState(Settings(data_dir=tmp_path / "data"))
    yield st
    st.close()


def drive(st: HotpathState, sid: str, frames: list[dict[str, Any]]) -> None:
    for i in range(0, len(frames), 400):
        st.ingest(sid, frames[i : i + 400])


def test_a_session_without_a_track_finds_it_and_times_its_laps(state: HotpathState, sim: Any) -> None:
    sid = state.start_session("d", CAR, None, None, None)
    assert state.sessions[sid].live_view()["track_name"] is None  # nothing assumed before the fixes
    drive(state, sid, list(frames_of(sim.wide)))
    sess = state.sessions[sid]
    assert sess.track is not None and sess.track.id == sim.truth.track_id
    full = {lp.lap: lp.time_s for lp in sess.laps if lp.kind == "full"}
    truth = {lp["lap"]: lp["time_s"] for lp in sim.truth.laps if lp["kind"] == "full"}
    assert full.keys() == truth.keys()
    for lap, t in truth.items():
        assert full[lap] == pytest.approx(t, abs=0.01)
    state.end_session(sid)
    state.writer.flush(30.0)
    row = state.store.session(sid)
    assert row is not None and (row["track_id"], row["track_name"]) == (sess.track.id, sess.track.name)


def test_a_track_pitwall_does_not_know_stays_unknown(state: HotpathState, sim: Any) -> None:
    """The same driving one degree further north is on no known track: no laps, no corner cues, no
    guess, and the stored session says no track."""
    frames = [{**f, "lat": f["lat"] + 1.0} if "lat" in f else f for f in frames_of(sim.wide)]
    sid = state.start_session("d", CAR, None, None, None)
    drive(state, sid, frames)
    sess = state.sessions[sid]
    assert sess.track is None and sess.finder is not None and sess.finder.searches > 0
    assert sess.laps == [] and sess.watcher is None
    state.end_session(sid)
    state.writer.flush(30.0)
    row = state.store.session(sid)
    assert row is not None and row["track_id"] is None


def test_a_car_waiting_beside_the_line_is_not_taken_for_a_lap_of_it(state: HotpathState, sim: Any) -> None:
    """Fixes that have not spread over ``MIN_SPREAD_M`` are never searched: a car parked near the start
    line for minutes matches no track until it drives."""
    first = next(f for f in frames_of(sim.wide) if "lat" in f)
    parked = [
        {**first, "t_s": i * 0.05, "speed_kmh": 0.0, "lat": first["lat"] + (i % 7) * 1e-6}
        for i in range(6000)
    ]
    sid = state.start_session("d", CAR, None, None, None)
    drive(state, sid, parked)
    sess = state.sessions[sid]
    assert MIN_SPREAD_M > 100
    assert sess.track is None and sess.finder is not None and sess.finder.searches == 0


def test_session_start_without_a_track_assumes_none(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(data_dir=tmp_path / "data"))) as c:
        sid = c.post("/session/start", json={}).json()["session_id"]
        view = c.get(f"/sessions/{sid}/live").json()
        assert view["track_name"] is None
        c.post(f"/session/{sid}/end")

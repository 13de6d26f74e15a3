"""Live-frame faults on the real hot path state (a real DuckDB file): a clock jump in one frame is
refused alone, a long pause in the logger's clock is taken once the new time line holds, and an
over-cap NDJSON body is refused before any of it is decoded."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import httpx

from services.hotpath.replay import frames_of
from services.hotpath.state import HotpathState
from services.hotpath.validation import REANCHOR_S
from shared.settings import settings_for
from shared.simulator import simulate
from tests.support.procs import start_hotpath


def _frames(rate_hz: float = 20.0) -> list[dict[str, float]]:
    return list(frames_of(simulate(laps=2, seed=5, rate_hz=rate_hz).wide))


def _stored(state: HotpathState, sid: str) -> tuple[int, float, float]:
    """(telemetry rows, largest t_s, longest lap distance) straight from the DuckDB file."""
    state.writer.flush()
    con: duckdb.DuckDBPyConnection = state.store.con
    n, t_max = con.execute("SELECT count(*), max(t_s) FROM telemetry WHERE session_id = ?", [sid]).fetchone()
    (d_max,) = con.execute("SELECT max(dist_m) FROM laps WHERE session_id = ?", [sid]).fetchone()
    return int(n), float(t_max), float(d_max or 0.0)


def test_one_frame_at_t_1e9_is_refused_alone_and_the_session_goes_on(tmp_path: Path) -> None:
    frames = _frames()
    state = HotpathState(settings_for(tmp_path / "data"))
    try:
        sid = state.start_session("d", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        half = len(frames) // 2
        first = state.ingest(sid, frames[:half])
        glitch = {**frames[half], "t_s": 1e9}
        mixed = state.ingest(sid, [frames[half + 1], glitch, frames[half + 2]])  # inside a batch too
        alone = state.ingest(sid, [{**frames[half + 3], "t_s": 1e9 + 5}])
        rest = state.ingest(sid, frames[half + 4 :])
        assert first == {"accepted": half, "rejected": {}}
        assert mixed == {"accepted": 2, "rejected": {"time_jump": 1}}
        assert alone == {"accepted": 0, "rejected": {"time_jump": 1}}
        assert rest == {"accepted": len(frames) - half - 4, "rejected": {}}
        assert state.health()["rejected"]["time_jump"] == 2
        state.end_session(sid)
        n, t_max, d_max = _stored(state, sid)
        assert n == len(frames) - 2
        assert t_max == frames[-1]["t_s"]
        assert d_max < 5_000, d_max  # Sonoma is 4 km; the glitch once made a lap of 2.78e10 m
    finally:
        state.close()


def test_a_real_clock_break_is_taken_once_the_new_time_line_holds(tmp_path: Path) -> None:
    frames = _frames()[:400]  # 20 s at 20 Hz
    state = HotpathState(settings_for(tmp_path / "data"))
    try:
        sid = state.start_session("d", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        state.ingest(sid, frames[:200])
        odo = state.session(sid).tracker.odo
        later = [{**f, "t_s": f["t_s"] + 5_000.0} for f in frames[200:]]  # the logger's clock ran on
        res = state.ingest(sid, later)
        held = int(REANCHOR_S * 20)  # frames refused until the new time line has held REANCHOR_S
        assert res == {"accepted": len(later) - held, "rejected": {"time_jump": held}}
        assert state.session(sid).last_t == later[-1]["t_s"]
        # no distance is integrated across the 5,000 s gap (at ~100 km/h that would be 140 km)
        assert state.session(sid).tracker.odo - odo < 1_000
    finally:
        state.close()


def test_an_over_cap_ndjson_body_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    """The size check comes first: none of the lines is decoded (so none is counted malformed), and the
    refusal names the cap and its setting."""
    svc = start_hotpath(tmp_path / "data", tmp_path, env={"PITWALL_INGEST_MAX_BATCH_FRAMES": "1000"})
    try:
        c = httpx.Client(base_url=svc.url, timeout=30)
        sid = c.post("/session/start", json={"car": "generic"}).json()["session_id"]
        lines = [json.dumps({"t_s": i / 50, "speed_kmh": 100.0}) for i in range(1500)]
        lines[700] = "{not json"
        r = c.post(f"/ingest/frames?session_id={sid}", content="\n".join(lines))
        assert r.status_code == 413 and "PITWALL_INGEST_MAX_BATCH_FRAMES" in r.text, r.text
        rejected = c.get("/health").json()["rejected"]
        assert rejected["too_large"] == 1500 and rejected["malformed"] == 0, rejected
    finally:
        svc.stop()

"""The predictive delta and the cue deadline (speak_by), in process on simulated sessions.

Wall-clock time is supplied by the test (a replay clock running at 20x session time), so nothing here
depends on how fast this machine runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from services.hotpath import cue_outlet, frame_path
from services.hotpath.clock import SessionClock
from services.hotpath.cue_outlet import SAFETY_SPEAK_WITHIN_S
from services.hotpath.delta import PredictiveDelta, elapsed_at, monotone
from services.hotpath.frame_path import LiveSession
from shared.profiles.car import load_car
from shared.profiles.track import load_track
from shared.simulator.fixtures import cached_sim

SPEED = 20.0  # the replay runs at 20x real time
WALL0 = 1_800_000_000.0


def test_elapsed_at_interpolates_by_distance_and_refuses_outside_the_trace() -> None:
    d, e = monotone([0.0, 10.0, 9.0, 30.0, float("nan")], [0.0, 1.0, 1.1, 3.0, 4.0])
    assert d == [0.0, 10.0, 10.0, 30.0] and e == [0.0, 1.0, 1.1, 3.0]  # GPS jitter cannot go backwards
    assert elapsed_at(d, e, 5.0) == pytest.approx(0.5)
    assert elapsed_at(d, e, 20.0) == pytest.approx(1.1 + 1.9 * 0.5)
    assert elapsed_at(d, e, -1.0) is None and elapsed_at(d, e, 31.0) is None


def test_delta_is_throttled_on_the_wall_clock_and_the_line_is_sent_at_once() -> None:
    pd = PredictiveDelta("s", rate_hz=10.0)
    pd.set_reference("session_best", 2, 100.0, [0.0, 1000.0], [0.0, 100.0])
    sent = [pd.update(WALL0 + i * 0.01, 3, 10.0 * i, 1.02 * i) for i in range(100)]  # 1 s at 100 frames/s
    got = [ev for ev in sent if ev is not None]
    assert len(got) == 10  # 10 a second, however fast frames come
    last = got[-1]
    # the reference takes 0.1 s a metre; this lap 0.102 s: behind by 2 %
    assert last["delta_s"] == pytest.approx(last["lap_time_s"] - last["dist_m"] * 0.1, abs=1e-3)
    assert last["delta_s"] == pytest.approx(0.02 * last["dist_m"] / 10.0, abs=1e-3) and last["delta_s"] > 1.5
    assert last["predicted_s"] == pytest.approx(100.0 + last["delta_s"])
    pd.lap_closed(3, 101.5, "full", True, True)
    line = pd.update(WALL0 + 1.0, 4, 0.5, 0.01)  # within the throttle period, still sent
    assert line is not None and line["crossed"] is True
    assert line["last_lap"] == {"lap": 3, "time_s": 101.5, "kind": "full", "valid": True, "delta_s": 1.5}
    assert pd.update(WALL0 + 1.001, 4, 0.6, 0.02) is None


def test_session_clock_converts_with_the_observed_ratio() -> None:
    c = SessionClock()
    assert c.to_epoch_ms(12.0, 10.0, WALL0) == int((WALL0 + 2.0) * 1000)  # nothing observed: 1x
    for i in range(40):
        c.observe(100.0 + i * 0.1 * SPEED, WALL0 + i * 0.1)
    assert c.ratio == pytest.approx(SPEED)
    assert c.to_epoch_ms(120.0 + 100.0, 100.0, WALL0) == int((WALL0 + 6.0) * 1000)


class ReplayClock:
    """time.time() for the frame path: the wall clock of a replay at SPEED x the session clock."""

    def __init__(self) -> None:
        self.t_s = 0.0

    def time(self) -> float:
        return WALL0 + self.t_s / SPEED

    def perf_counter(self) -> float:
        return self.time()


def _run(
    monkeypatch: pytest.MonkeyPatch,
    laps: int,
    seed: int,
    gold: tuple[Any, ...] | None = None,
    audio_s: dict[str, float] | None = None,
) -> Any:
    clock = ReplayClock()
    monkeypatch.setattr(frame_path, "time", clock)
    monkeypatch.setattr(cue_outlet, "time", clock)
    sim = cached_sim(laps=laps, seed=seed)
    cues: list[tuple[float, Any]] = []
    deltas: list[dict[str, Any]] = []
    sess = LiveSession(
        "s",
        load_car("bmw_e46_m3_aim_mxp"),
        load_track("sonoma"),
        lambda t, r: None,
        on_cue=lambda c: cues.append((clock.time(), c)),
        headset_latency_s=0.2,
        audio_s=audio_s,
    )
    sess.on_delta = deltas.append
    if gold is not None:
        sess.set_gold_reference(*gold)
    w = sim.wide
    keys = [k for k in w if k != "lap"]
    for i in range(len(w["t_s"])):
        clock.t_s = float(w["t_s"][i])
        sess.process({k: float(w[k][i]) for k in keys})
    return sim, sess, cues, deltas


def test_speak_by_is_the_corner_deadline_in_wall_clock_time(monkeypatch: pytest.MonkeyPatch) -> None:
    sim, sess, cues, _ = _run(monkeypatch, laps=6, seed=7)
    speeds = dict(zip(sim.wide["t_s"].tolist(), sim.wide["speed_kmh"].tolist(), strict=True))
    track = load_track("sonoma")
    spoken = [(w, c) for w, c in cues if c.status == "spoken"]
    assert (
        len(spoken) >= 3
        and any(c.priority < 3 for _, c in spoken)
        and any(c.priority == 3 for _, c in spoken)
    )
    assert all(c.speak_by is None for _, c in cues if c.status == "dropped")
    # each cue with its own decision (emitted in the same order): a phrase said on two laps is two decisions
    assert len(sess.decisions) == len(cues)
    for (wall, c), d in zip(cues, sess.decisions, strict=True):
        if c.status != "spoken":
            continue
        assert d.phrase.id == c.phrase_id
        ahead_ms = c.speak_by - wall * 1000
        if c.priority == 3:  # safety: a short fixed deadline in session time
            assert d.deadline_t_s is None
            assert ahead_ms == pytest.approx(SAFETY_SPEAK_WITHIN_S / SPEED * 1000, abs=2)
        else:
            assert d.deadline_t_s is not None and d.deadline_t_s > d.t_s  # still reachable when sent
            # at the deadline there is just time to say the phrase through the headset before the entry
            assert ahead_ms == pytest.approx((d.deadline_t_s - d.t_s) / SPEED * 1000, abs=2)
            assert c.speak_s == pytest.approx(d.phrase.speak_s, abs=0.01)
            # ... computed from the distance to the corner's entry, the speed, the phrase and the headset
            v = speeds[d.t_s] / 3.6
            to_entry = (d.hit.corner.start_m - d.dist_m) % track.length_m
            # (the arbiter's window may end before the entry, so the deadline is never later than this)
            assert d.deadline_t_s <= d.t_s + to_entry / v - d.phrase.speak_s - 0.2 + 0.05


def test_live_delta_predicts_the_lap_against_the_best_lap(monkeypatch: pytest.MonkeyPatch) -> None:
    _, sess, _, deltas = _run(monkeypatch, laps=5, seed=7)
    full = [lp for lp in sess.laps if lp.kind == "full" and lp.valid]
    assert len(full) >= 3
    for prev, lap in zip(full, full[1:], strict=False):
        on_lap = [e for e in deltas if e["lap"] == lap.lap and e["delta_s"] is not None]
        assert on_lap, f"no delta on lap {lap.lap}"
        ref = on_lap[-1]["reference"]
        assert ref["source"] == "session_best"
        best_before = min(lp.time_s for lp in full if lp.lap < lap.lap)
        assert ref["time_s"] == pytest.approx(best_before, abs=1e-3)
        # the prediction near the end of the lap is the lap time (within the last update's gap)
        assert on_lap[-1]["predicted_s"] == pytest.approx(lap.time_s, abs=0.5)
        line = next(e for e in deltas if e["crossed"] and e["last_lap"]["lap"] == lap.lap)
        assert line["last_lap"]["time_s"] == pytest.approx(lap.time_s, abs=1e-3)
        assert prev.lap < lap.lap
    # about ten updates a second of wall time while a lap is timed, however fast the replay runs
    timed = [e for e in deltas if not e["crossed"]]
    span_wall_s = (sess.last_t - sess.laps[0].t_end_s) / SPEED
    assert 9.0 <= len(timed) / span_wall_s <= 10.5


def test_a_gold_lap_stays_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    dist = [float(x) for x in range(0, 4100, 10)]
    gold = (None, 90.0, dist, [x / 4000 * 90.0 for x in dist])
    _, sess, _, deltas = _run(monkeypatch, laps=4, seed=7, gold=gold)
    refs = {(e["reference"] or {}).get("source") for e in deltas if not e["crossed"]}
    assert refs == {"gold"}
    assert all(e["predicted_s"] is None or e["reference"]["time_s"] == 90.0 for e in deltas)


def test_speak_by_allows_for_rendered_audio_longer_than_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, plain, _ = _run(monkeypatch, laps=6, seed=7)
    tech = [c for _, c in plain if c.status == "spoken" and c.priority < 3]
    assert tech
    longer = {c.text: c.speak_s + 0.5 for c in tech}  # each rendered phrase lasts 0.5 s over its budget
    _, _, cues, _ = _run(monkeypatch, laps=6, seed=7, audio_s=longer)
    got = [c for _, c in cues if c.status == "spoken" and c.priority < 3]
    # the same cues in the same order (a phrase may be spoken on several laps): pair them one by one
    assert [c.phrase_id for c in got] == [c.phrase_id for c in tech]
    for c, g in zip(tech, got, strict=True):  # must start 0.5 s of session time (25 ms at 20x) earlier
        assert c.speak_by - g.speak_by == pytest.approx(0.5 / SPEED * 1000, abs=2)


async def test_a_delta_never_pushes_a_cue_out_and_can_be_left_out() -> None:
    import asyncio
    import json

    from services.hotpath.cue_stream import CueHub

    hub = CueHub(maxlen=4)

    async def read(gen: Any, n: int) -> list[tuple[str, dict[str, Any]]]:
        out = []
        while len(out) < n:
            chunk = await asyncio.wait_for(gen.__anext__(), 5)
            if chunk.startswith("id:"):
                lines = chunk.strip().split("\n")
                out.append((lines[1].split(": ", 1)[1], json.loads(lines[2].split(": ", 1)[1])))
        return out

    with_delta, without = hub.stream(None, state=True), hub.stream(None, state=False)
    assert [k for k, _ in await read(with_delta, 1)] == ["hello"]
    assert [k for k, _ in await read(without, 1)] == ["hello"]
    for i in range(50):  # a slow client: 50 deltas and 3 cues arrive before it reads again
        hub.publish_state("delta", {"session_id": "s", "i": i})
        if i % 20 == 0:
            hub.publish("cue", {"session_id": "s", "i": i})
    got = await read(with_delta, 4)
    assert [k for k, _ in got] == ["cue", "cue", "cue", "delta"]
    assert got[-1][1]["i"] == 49 and all("dropped_before" not in d for _, d in got)
    hub.publish("cue", {"session_id": "s", "i": 99})
    assert [k for k, _ in await read(without, 4)] == ["cue", "cue", "cue", "cue"]
    await with_delta.aclose()
    await without.aclose()


def test_a_step_in_the_session_clock_is_a_gap_not_pace() -> None:
    """Live frames at 100 Hz, then the logger's clock steps 25 s (a paused recording) and runs on: 0.5 s
    after the step, a deadline 2 s after the step frame is 1.5 s of wall time away (read as pace, the
    step made the ratio ~9x and the deadline ~0.2 s away), and a step back is a gap too."""
    c = SessionClock()
    for i in range(500):  # 5 s at wall speed
        c.observe(i * 0.01, WALL0 + i * 0.01)
    for i in range(51):  # the step, then 0.5 s at wall speed
        c.observe(30.0 + i * 0.01, WALL0 + 5.01 + i * 0.01)
    now_wall = WALL0 + 5.51
    assert c.to_epoch_ms(32.0, 30.5, now_wall) == int(round((now_wall + 1.5) * 1000))
    for i in range(51):  # the clock set back 20 s
        c.observe(10.0 + i * 0.01, WALL0 + 5.52 + i * 0.01)
    assert c.ratio == pytest.approx(1.0, abs=1e-6)


def test_a_run_of_frames_is_observed_as_each_frame() -> None:
    """``observe_run`` (a chunk of frames read at one wall instant) leaves the clock as ``observe`` on
    each of its frames does: gaps inside a chunk, between chunks, and none."""
    ts = np.concatenate(
        [np.arange(0, 3, 0.01), np.arange(40, 43, 0.01), np.arange(43.005, 48, 0.01), np.arange(90, 95, 0.01)]
    )
    one, run = SessionClock(), SessionClock()
    for k, a in enumerate(range(0, len(ts), 37)):  # chunks that split and straddle the gaps
        wall = WALL0 + k * 0.37
        part = ts[a : a + 37]
        for t in part:
            one.observe(float(t), wall)
        run.observe_run(part, wall)
        assert run.ratio == one.ratio
        now = float(part[-1])
        assert run.to_epoch_ms(now + 2.0, now, wall) == one.to_epoch_ms(now + 2.0, now, wall)

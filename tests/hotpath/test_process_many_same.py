"""``frame_batch.process_many`` gives exactly what ``process`` on each frame in turn gives: every store
record (table and content, wall-clock stamps aside), every cue, decision, lap, delta event, the live view
and the state the next frame starts from, on simulated sessions with every kind of mistake and car event,
GPS held between fixes, a session that finds its track from GPS, slow channels missing or NaN, forced
safety triggers, and real logger files (a VBOX at Sonoma, an XRK on a track built from its own line).

The reference is ``process`` itself, frame by frame, fed the same wall clock (the delta is throttled on
the wall clock, read once per chunk by ``process_many``): a fake ``time.time`` that moves per chunk.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import msgpack
import pyarrow as pa
import pytest

import services.hotpath.corner_summary as corner_summary
import services.hotpath.cue_outlet as cue_outlet
import services.hotpath.frame_batch as frame_batch
import services.hotpath.frame_path as frame_path
import services.hotpath.frame_run as frame_run
from services.hotpath.columns import column_batch, frames_of_matrix, pack_columns
from services.hotpath.frame_path import LiveSession
from services.hotpath.replay import frames_of, load_for_replay
from services.hotpath.track_live import LiveTrackFinder
from services.hotpath.validation import clean_matrix
from shared.profiles.car import load_car
from shared.profiles.track import load_track
from shared.simulator import ALL_KINDS, simulate
from tests.support import require
from tests.support.frames import gps_held

CAR = "bmw_e46_m3_aim_mxp"
Frames = list[dict[str, float]]


class _Wall:
    """``time`` for the frame path: a wall clock the test moves, the real perf_counter."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0
        self.perf_counter = time.perf_counter

    def time(self) -> float:
        return self.now


def _clean(v: Any) -> Any:
    """A record's content, comparable: floats by repr (NaN equals NaN), wall-clock fields dropped."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if k not in ("ts", "latency_ms")}
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    if isinstance(v, float):
        return repr(v)
    if callable(v):  # a batch the store writer builds on its thread: as it will build it
        return _clean(v())
    if isinstance(v, pa.Table):  # column by column: the values' bytes (NaN equals NaN) and the nulls
        cols = [c.combine_chunks() for c in v.columns]
        return ("arrow", str(v.schema), v.num_rows, [_column(c) for c in cols])
    return v


def _column(c: pa.Array) -> tuple[bytes, bytes]:
    nulls = c.is_null().to_numpy(zero_copy_only=False)
    if pa.types.is_string(c.type):
        return repr(c.to_pylist()).encode(), nulls.tobytes()
    filled = c.fill_null(0).to_numpy(zero_copy_only=False)
    return filled.tobytes(), nulls.tobytes()


def _hold(frames: Frames) -> Frames:
    """Every channel held at its last value (a logger's slow channels as the hot path holds them)."""
    held: dict[str, float] = {}
    out = []
    for f in frames:
        held.update(f)
        out.append(dict(held))
    return out


def _run(
    frames: Frames,
    track: Any,
    chunk: int,
    many: bool,
    car: str = CAR,
    finder: bool = False,
    last_lap: bool = False,
    as_columns: bool = False,
) -> dict[str, Any]:
    """``as_columns``: each chunk as the hot path gets a column batch (a float64 bin per channel, NaN for
    no value): decoded, checked and filled with the values held, then ``process_many`` on its matrix."""
    wall = _Wall()
    got: dict[str, list[Any]] = {"sink": [], "cues": [], "returned": [], "delta": [], "laps": [], "found": []}
    got["steps"] = []
    sess = LiveSession("s", load_car(car), track, lambda tbl, rows: got["sink"].append((tbl, _clean(rows))))
    sess.on_cue = lambda c: got["cues"].append(_clean(vars(c)))
    sess.on_delta = lambda e: got["delta"].append(_clean(e))
    sess.on_lap_closed = lambda lp: got["laps"].append(_clean(lp.as_dict()))
    sess.mark = lambda cb: cb()
    sess.last_lap_reference = last_lap
    if finder:
        sess.finder = LiveTrackFinder([load_track("sonoma")])
        sess.on_track_found = lambda tr: got["found"].append(tr.id)
    old = frame_path.time, frame_run.time, cue_outlet.time, frame_batch.process_run
    frame_path.time = frame_run.time = cue_outlet.time = wall  # type: ignore[assignment]
    counted = [0]

    def run_counted(sess: LiveSession, part: Frames, *a: Any) -> Any:
        counted[0] += len(part)
        return old[3](sess, part, *a)

    frame_batch.process_run = run_counted  # type: ignore[assignment]
    try:
        for k in range(0, len(frames), chunk):
            wall.now += 0.07 * chunk / 5  # the wall clock moves between chunks, not within one
            part = frames[k : k + chunk]
            if many and as_columns:
                batch = column_batch(msgpack.unpackb(msgpack.packb(pack_columns(part))))
                m = batch.matrix()
                assert clean_matrix(batch.names, m, sess.last_t, missing=batch.binary)
                fr, matrix = frames_of_matrix(batch.names, m, sess._last_vals)
                got["returned"].append(
                    _clean([vars(c) for c in frame_batch.process_many(sess, fr, 0.0, matrix)])
                )
            elif many:
                got["returned"].append(_clean([vars(c) for c in frame_batch.process_many(sess, part, 0.0)]))
            else:
                got["returned"].append(_clean([vars(c) for f in part for c in sess.process(f, 0.0)]))
            got["steps"].append(_light(sess))
            if (k + chunk) // 350 > k // 350:
                sess.flush_rows()  # the idle flush between chunks, now and then
        state = _state(sess)
        sess.finish()
    finally:
        frame_path.time, frame_run.time, cue_outlet.time, frame_batch.process_run = old
    got["state"] = state
    got["view"] = _clean(sess.live_view())
    got["decisions"] = [repr(d) for d in sess.decisions]
    got["after"] = _state(sess)
    got_columns[0] = counted[0]  # frames that took the column path (process_many)
    return got


got_columns = [0]


def _light(sess: LiveSession) -> Any:
    """The state after each chunk, in short."""
    tr, ev, arb = sess.tracker, sess.events, sess.arbiter
    prof = arb.profile
    return _clean(
        [
            [tr.lap, tr.odo, tr.dist, tr.s_hint, tr._since_fix, len(tr._fixes)],
            [list(ev._dts), ev._last_t, ev._tpms_base, ev._tpms_last, repr(ev._open), dict(ev._on_buf)],
            None
            if prof is None
            else hash((tuple(prof.busy), tuple(prof.speed), tuple(prof.seen), prof._cur)),
            [repr(arb.pending), arb.last_spoken_t, sess.trace.start_t, len(sess.trace.dist), sess.last_t],
            [repr(sess.coach.safety_ctx), sess.pending_frames, sess._buf_since],
        ]
    )


def _state(sess: LiveSession) -> Any:
    """What the next frame starts from."""
    tr, ev, arb = sess.tracker, sess.events, sess.arbiter
    return _clean(
        {
            "tracker": [
                tr.lap,
                tr.odo,
                tr.dist,
                tr.s_hint,
                tr.last_t,
                list(tr._fixes),
                tr._fix_ll,
                tr._pending,
            ],
            "tracker2": [
                tr._since_fix,
                tr._odo_at_dist,
                tr.lap_odo0,
                tr.lap_start_t,
                tr.crossings._speeds,
                tr.crossings._laterals,
            ],
            "events": [
                list(ev._dts),
                ev._last_t,
                ev._tpms_base,
                ev._tpms_last,
                repr(ev._open),
                dict(ev._on_buf),
            ],
            "profile": None
            if arb.profile is None
            else [arb.profile.busy, arb.profile.speed, arb.profile.seen],
            "arbiter": [repr(arb.pending), arb.last_spoken_t, sorted(arb.spoken_groups), arb.lap_counts],
            "session": [
                sess.trace.dist,
                sess.trace.elapsed,
                sess.trace.start_t,
                sess.trace.timed,
                dict(sess._last_vals),
            ],
            "last": [repr(sess._last_st), repr(sess._last_fs), sess.last_t, sess.pending_frames],
            "coach": [repr(sess.coach.safety_ctx), sess.coach.last_fired, sorted(sess.coach.history)],
            "watcher": None if sess.watcher is None else [sess.watcher.active, sess.watcher.lap],
            "clock": list(sess.clock._samples),
            "durable": [sess.durable_t, sess.stored_frames],
        }
    )


def _same(
    frames: Frames,
    track: Any,
    chunks: tuple[int, ...] = (1, 7, 17, 100, 1000),
    columns: float = 0.9,
    **kw: Any,
) -> dict[str, Any]:
    """Per chunk size: ``process`` per frame and ``process_many`` per chunk give the same; at least
    ``columns`` of the frames took the column path (chunks of ``MIN_RUN`` and more; shorter ones go
    through ``process``)."""
    ref: dict[str, Any] = {}
    for chunk in chunks:
        ref = _run(frames, track, chunk, many=False, **kw)
        got = _run(frames, track, chunk, many=True, **kw)
        for key in ref:
            assert got[key] == ref[key], f"chunk {chunk}: {key} differs"
        if chunk >= frame_batch.MIN_RUN:
            assert got_columns[0] >= columns * len(frames), (
                f"chunk {chunk}: {got_columns[0]} frames as columns"
            )
    return ref


def _sim(seed: int, laps: int = 5, rate_hz: float = 50.0) -> Frames:
    return list(frames_of(simulate(laps=laps, seed=seed, rate_hz=rate_hz, kinds=ALL_KINDS).wide))


def _safety(frames: Frames) -> Frames:
    """Safety triggers the simulator does not make: ABS/DSC/MIL edges, coolant over temperature, a
    slow TPMS drop, oil pressure lost under load, and a lockup."""
    out = [dict(f) for f in frames]
    n = len(out)
    for a, b, key, val in (
        (0.10, 0.11, "abs_active", 1.0),
        (0.20, 0.205, "dsc_active", 1.0),
        (0.30, 0.35, "mil", 1.0),
        (0.40, 0.45, "water_temp_c", 112.0),
        (0.70, 0.72, "oil_press_bar", 0.3),
    ):
        for f in out[int(a * n) : int(b * n)]:
            f[key] = val
            if key == "oil_press_bar":
                f["rpm"], f["throttle_pct"] = 5000.0, 80.0
    for k, f in enumerate(out[int(0.5 * n) : int(0.8 * n)]):
        f["tpms_press_rl_bar"] = round(f.get("tpms_press_rl_bar", 2.2) - 0.0004 * k, 2)
    for f in out[int(0.85 * n) : int(0.86 * n)]:  # slips without ABS or DSC (the simulator sets them)
        f["brake_bar"], f["wheel_speed_fl_kmh"] = 60.0, f["speed_kmh"] - 30.0
    for f in out[int(0.9 * n) : int(0.905 * n)]:
        f["brake_bar"], f["throttle_pct"], f["wheel_speed_rr_kmh"] = 0.0, 90.0, f["speed_kmh"] + 20.0
    return out


def _slow_channels(frames: Frames) -> Frames:
    """Slow channels only every tenth frame (missing between), some NaN; brake missing for a stretch."""
    slow = ("water_temp_c", "oil_temp_c", "oil_press_bar", "fuel_level_l", "battery_v", "tpms_press_fl_bar")
    out = []
    for i, f in enumerate(frames):
        g = dict(f)
        if i % 10:
            for k in slow:
                g.pop(k, None)
        elif i % 70 == 0:
            g["water_temp_c"] = math.nan
            g["tpms_press_fl_bar"] = math.nan
        if 2000 <= i < 2400:
            g.pop("brake_bar", None)
        out.append(g)
    return out


def test_simulated_every_kind_every_chunk_size() -> None:
    ref = _same(_sim(4, laps=6, rate_hz=25.0), load_track("sonoma"), last_lap=True)
    assert len(ref["laps"]) >= 6 and ref["delta"] and ref["decisions"] and ref["cues"]
    kinds = {r["kind"] for t, rows in ref["sink"] if t == "driver_events" for r in rows}
    assert {"lockup", "wheelspin", "oil_pressure", "tpms_alarm"} <= kinds
    assert {t for t, _rows in ref["sink"]} >= {"telemetry", "laps", "corner_results", "coaching_notes"}


def test_gps_held_between_fixes() -> None:
    frames = _sim(7, laps=6)
    _same(gps_held(frames, 5), load_track("sonoma"), chunks=(17, 1000))
    _same(gps_held(frames, 2), load_track("sonoma"), chunks=(100,))


def test_fast_logger_and_safety_triggers() -> None:
    frames = _safety(_sim(11, laps=3, rate_hz=100.0))
    ref = _same(frames, load_track("sonoma"), chunks=(17, 1000))
    rules = {c["rule"] for c in ref["cues"]}
    assert {"abs_event", "dsc_event", "mil_on", "coolant_hot", "tyre_warning", "oil_pressure_low"} <= rules
    kinds = {r["kind"] for t, rows in ref["sink"] if t == "driver_events" for r in rows}
    assert {"abs", "dsc", "mil", "coolant", "tpms_drop", "oil_pressure", "lockup", "wheelspin"} <= kinds


def test_track_found_from_gps() -> None:
    ref = _same(_sim(5, laps=3), None, chunks=(17, 100, 1000), columns=0.5, finder=True)
    assert ref["found"] == ["sonoma"] and ref["laps"]


def test_column_batches_with_slow_channels_through_the_matrix() -> None:
    """Column batches, a slow channel NaN between its samples: filled with the value it holds, every frame
    has every channel and the batch goes through ``process_many`` as one matrix, the same as ``process``
    on the frame objects (which leave the channel out)."""
    # validated frames hold no NaN (the ingest drops a sent NaN and counts it): the channel is left out
    frames = [{k: v for k, v in f.items() if v == v} for f in _slow_channels(_sim(9, laps=3))]
    for chunk in (17, 100):
        ref = _run(frames, load_track("sonoma"), chunk, many=False)
        got = _run(frames, load_track("sonoma"), chunk, many=True, as_columns=True)
        for key in ref:
            assert got[key] == ref[key], f"chunk {chunk}: {key} differs"
        assert got_columns[0] >= 0.9 * len(frames), f"chunk {chunk}: {got_columns[0]} frames as columns"
    every = _safety(_sim(11, laps=3, rate_hz=100.0))
    ref = _run(every, load_track("sonoma"), 100, many=False)
    got = _run(every, load_track("sonoma"), 100, many=True, as_columns=True)
    for key in ref:
        assert got[key] == ref[key], f"safety triggers: {key} differs"


def test_missing_and_nan_slow_channels() -> None:
    frames = _slow_channels(_sim(9, laps=3))
    _same(frames, load_track("sonoma"), chunks=(17, 1000), columns=0.0)  # runs of 9: through process
    _same(_hold(frames), load_track("sonoma"), chunks=(100,))
    # long runs that send different channels (a channel stops, another starts): held values stored
    switching = []
    for i, f in enumerate(_hold(frames)):
        g = dict(f)
        if (i // 700) % 3 == 1:
            g.pop("water_temp_c")
            g.pop("tpms_press_rr_bar")
        elif (i // 700) % 3 == 2:
            g.pop("rpm")
        switching.append(g)
    _same(switching, load_track("sonoma"), chunks=(1000, 2500))


@pytest.fixture(scope="module")
def real(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("real")
    out = {}
    for name, rel in (
        ("vbox", "data/vbox/sonoma_vbox0240.csv"),
        ("xrk", "data/aim/scut_fsev_agx.xrk"),
        ("kart", "data/aim/mychron_kart_sskc_2022-06-19.csv"),
    ):
        path = shared_dir / rel
        if not path.is_file():
            require.missing(require.SHARED, f"{path} is not present")
        wide, car_id, track = load_for_replay(path, data_dir=data)
        out[name] = (list(frames_of(wide)), car_id, track)
    return out


def test_real_vbox_at_sonoma(real: dict[str, Any]) -> None:
    frames, car_id, track = real["vbox"]
    assert track is not None and track.id == "sonoma"
    ref = _same(frames, track, chunks=(17, 100, 1000, 5000), columns=0.7, car=car_id)
    assert len(ref["laps"]) >= 3


def test_real_kart_on_its_own_track(real: dict[str, Any]) -> None:
    """A kart at SSKC (an AiM CSV): the track is built from its own driven line at import."""
    frames, car_id, track = real["kart"]
    assert track is not None and track.id.startswith("auto-") and track.corners
    ref = _same(frames, track, chunks=(100,), columns=0.0, car=car_id)
    assert len(ref["laps"]) >= 3
    _same(_hold(frames), track, chunks=(17, 1000), car=car_id)


def test_real_xrk(real: dict[str, Any]) -> None:
    """An XRK with no lap (no track found): as the hot path sees it, and on a track it is not on (every
    fix off the line: distance by the speed, the search lost)."""
    frames, car_id, track = real["xrk"]
    assert track is None
    _same(frames[:20000], None, chunks=(100,), columns=0.0, car=car_id)
    _same(_hold(frames[:20000]), real["kart"][2], chunks=(17, 1000), car=car_id)


def _corners(ref: dict[str, Any]) -> list[Any]:
    return [r for t, rows in ref["sink"] if t == "corner_results" for r in rows]


def test_corner_summaries_spread_over_frames_and_one_finished_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every corner's summary split over its exit frame and the next two (``SPLIT_ROWS`` lowered so a
    50 Hz window counts as long): the same outputs frame by frame and by chunk, across chunk edges; a
    session that ends one frame after an exit still stores that corner (``finish`` drains it)."""
    frames = _sim(6, laps=3)
    track = load_track("sonoma")
    exits: list[tuple[int, int, str]] = []  # (frame, lap, corner) of each exit, summarised at once
    sess = LiveSession("s", load_car(CAR), track, lambda tbl, rows: None)
    store = sess._store_corner
    at = [0]
    sess._store_corner = lambda obs: (exits.append((at[0], obs.lap, obs.corner.id)), store(obs))  # type: ignore[method-assign]
    for f in frames:
        sess.process(f, 0.0)
        at[0] += 1
    last = [e for e in exits if e[1] == 2][3]  # an exit in the middle of lap 2
    cut = frames[: last[0] + 2]  # the session ends on the frame after that exit
    whole = _same(cut, track, chunks=(1000,))
    monkeypatch.setattr(corner_summary, "SPLIT_ROWS", 100)
    split = _same(cut, track, chunks=(1, 7, 17, 1000))
    assert _corners(split) == _corners(whole)
    assert [(r["lap"], r["corner_id"]) for r in _corners(split)][-1] == (2, last[2])
    assert len(_corners(split)) == len([e for e in exits if e[0] <= last[0]])

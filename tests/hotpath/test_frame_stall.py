"""Nothing slow on the frame path at a lap close or a corner exit (issue 37), with the same outputs.

A lap close must not pass over the lap's frames on the frame path (that was 40-100 ms at 1 kHz: the lap's
trace copied through numpy and a Python loop for the delta's reference): what it allocates is measured
(``tracemalloc``, around ``_close_lap`` only) and must not grow with the lap's length, and the frames'
Arrow batch is handed to the store writer as the call that builds it. The reference the delta gets is
checked against the lap's own stored rows. A corner's exit converts at most ``BLOCK_ROWS`` rows (the
watcher writes rows into its window's column store as they come), allocates no new store once the
watcher's stores have grown to the longest window, and its observation is the one the whole window's
rows give at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from services.hotpath import corner_frames, corner_summary
from services.hotpath.corner_frames import BLOCK_ROWS, CHANNELS
from services.hotpath.corner_live import CornerWatcher
from services.hotpath.frame_path import LiveSession
from services.hotpath.replay import frames_of
from services.hotpath.rules.coach import reference_from_trace
from services.hotpath.rules.thresholds import thresholds_for
from shared.laps import Lap
from shared.profiles.car import load_car
from shared.profiles.track import load_track
from shared.simulator import simulate

CAR = "bmw_e46_m3_aim_mxp"


def _session(rate_hz: float, laps: int = 3) -> dict[str, Any]:
    """A simulated session through ``process`` frame by frame: per lap close, the bytes it allocated at
    its peak and what it handed to the sink; the delta's reference after each close; every sunk item."""
    sunk: list[tuple[str, Any]] = []
    sess = LiveSession("s", load_car(CAR), load_track("sonoma"), lambda t, r: sunk.append((t, r)))
    sess.last_lap_reference = True  # every valid full lap becomes the delta's reference at its close
    closes: list[dict[str, Any]] = []
    close = sess._close_lap

    def traced(lap: Lap) -> None:
        n = len(sunk)
        tracemalloc.start()
        try:
            close(lap)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        ref = sess.delta.reference
        closes.append(
            {
                "lap": lap,
                "peak": peak,
                "sunk": sunk[n:],
                "ref": None if ref is None else (ref.source, ref.lap, list(ref.dist), list(ref.elapsed)),
            }
        )

    sess._close_lap = traced  # type: ignore[method-assign]
    frames = list(frames_of(simulate(laps=laps, seed=3, rate_hz=rate_hz).wide))
    for f in frames:
        sess.process(f, 0.0)
    sess.finish()
    return {"closes": closes, "sunk": sunk, "frames": len(frames)}


def _telemetry(sunk: list[tuple[str, Any]]) -> pa.Table:
    parts = [r() if callable(r) else r for t, r in sunk if t == "telemetry"]
    return pa.concat_tables(parts)


def test_a_lap_close_does_not_pass_over_the_lap() -> None:
    got = _session(200.0)
    full = [c for c in got["closes"] if c["lap"].kind == "full"]
    assert len(full) >= 2
    for c in got["closes"]:
        lap: Lap = c["lap"]
        # a close allocates a lap row and the writer's job: under 4 KiB; a copy of a full lap's trace at
        # 200 Hz (one float a frame) is 150 KiB
        assert c["peak"] < 4096, (lap.lap, c["peak"])
        if lap.kind == "full":
            assert 8 * 200 * lap.time_s > 30 * 4096
        # the frames' Arrow batch is built on the writer's thread: the sink gets the call, not the table
        tele = [r for t, r in c["sunk"] if t == "telemetry"]
        assert tele and all(callable(r) and not isinstance(r, pa.Table) for r in tele)


def test_the_reference_handed_over_is_the_lap_as_stored() -> None:
    """After each valid full lap the delta's reference is that lap: from (0 m, 0 s) at the line, then each
    of its stored frames' distance as a running maximum and time since the line (from the stored rows)."""
    got = _session(100.0)
    tele = _telemetry(got["sunk"])
    lap_col = tele.column("lap").to_numpy()
    t_col = tele.column("t_s").to_numpy()
    d_col = tele.column("dist_m").to_numpy()
    checked = 0
    for c in got["closes"]:
        lap: Lap = c["lap"]
        if lap.kind != "full" or not lap.valid:
            continue
        mine = lap_col == lap.lap
        assert mine.sum() > 1000
        want_d = [0.0, *np.maximum.accumulate(d_col[mine]).tolist()]
        want_e = [0.0, *(t_col[mine] - lap.t_start_s).tolist()]
        assert c["ref"] is not None
        source, ref_lap, dist, elapsed = c["ref"]
        assert (source, ref_lap) == ("last_lap", lap.lap)
        assert dist == want_d
        assert elapsed == want_e
        checked += 1
    assert checked >= 2
    # and every frame was stored once, built by the writer's calls
    assert tele.num_rows == got["frames"]


def _corner_rows(rate_hz: float) -> list[tuple[int, dict[str, float]]]:
    """(lap, row) of every frame as the frame path feeds the corner watcher."""
    sess = LiveSession("s", load_car(CAR), load_track("sonoma"), lambda t, r: None)
    fed: list[tuple[int, dict[str, float]]] = []
    watcher = sess.watcher
    assert watcher is not None
    feed = watcher.feed

    def keep(lap: int, row: dict[str, float]) -> Any:
        fed.append((lap, row))
        return feed(lap, row)

    watcher.feed = keep  # type: ignore[method-assign]
    for f in frames_of(simulate(laps=2, seed=5, rate_hz=rate_hz).wide):
        sess.process(f, 0.0)
    return fed


def test_a_corner_exit_converts_few_rows_reuses_its_stores_and_observes_the_same(monkeypatch: Any) -> None:
    fed = _corner_rows(500.0)
    th = thresholds_for({})
    track = load_track("sonoma")
    w = CornerWatcher(track, th)
    obs: list[Any] = []
    most_loose = 0
    stores: list[set[int]] = [set(), set(), set()]  # per pass: the column memory of every store it holds
    for rnd in (0, 1, 2):  # the session three times (laps renumbered): each store grows to the longest window
        for lap, row in fed:
            o = w.feed(lap + 100 * rnd, row)
            most_loose = max(most_loose, len(w.kept.loose))
            stores[rnd] |= {id(k.buf) for k in w.stores()}
            if o is not None and not rnd:
                obs.append(o)
    assert most_loose < BLOCK_ROWS  # what an exit turns into columns, however long the window
    # once both have grown to the longest window, every window fills memory already held: the same two arrays
    # (the window being fed, the one its exit's summary reads), none allocated at an exit
    assert len(stores[2]) == 2 and stores[2] <= stores[1] and len(stores[0]) > 2  # (they grew in pass 1)
    # the window's rows all at once (none written as columns before the exit): the same observations
    monkeypatch.setattr(corner_frames, "BLOCK_ROWS", 10**9)
    whole = CornerWatcher(track, th)
    ref = [o for lap, row in fed if (o := whole.feed(lap, row)) is not None]
    assert len(ref) == len(obs) >= 2 * len(track.corners) - 2
    assert repr(obs) == repr(ref)


def test_a_window_store_keeps_rows_and_runs_in_order_and_is_read_in_place() -> None:
    """Rows and a run's columns go in in order (a channel a frame lacks is NaN); the columns read are
    views of the store's memory (nothing joined at the exit); the tail past a distance is copied into
    another store; a store grows past its capacity keeping its frames."""
    k = corner_frames.Kept(capacity=4)
    rows = [{c: float(i) for c in CHANNELS} for i in range(3)]
    del rows[1]["steer_deg"]
    for r in rows:
        k.add_row(r)
    run = {c: np.arange(10.0, 16.0) for c in CHANNELS}
    k.add_cols(run, 1, 4)  # frames 11, 12, 13 of the run
    cols = k.columns()
    assert cols["dist_m"].tolist() == [0.0, 1.0, 2.0, 11.0, 12.0, 13.0] and len(k) == 6
    assert np.isnan(cols["steer_deg"][1]) and cols["steer_deg"][2] == 2.0
    assert all(np.shares_memory(cols[c], k.buf) for c in CHANNELS)
    other = corner_frames.Kept(capacity=2)
    k.tail_into(other, 2.0)
    assert other.columns()["t_s"].tolist() == [2.0, 11.0, 12.0, 13.0]
    k.clear()
    assert len(k) == 0 and k.columns()["t_s"].tolist() == []


_IMPORT_PROBE = """
import json, sys
from services.hotpath.frame_path import LiveSession
from services.hotpath.replay import frames_of
from services.hotpath.rules.coach import reference_from_trace
from shared.profiles.car import load_car
from shared.profiles.track import load_track
from shared.simulator import simulate
sess = LiveSession("s", load_car("bmw_e46_m3_aim_mxp"), load_track("sonoma"), lambda t, r: None)
sess.last_lap_reference = True
exits = []
store = sess._store_corner
sess._store_corner = lambda obs: (exits.append(obs.corner.id), store(obs))
late = []
for k, f in enumerate(frames_of(simulate(laps=2, seed=3, rate_hz=50.0).wide)):
    before = set(sys.modules)
    sess.process(f, 0.0)
    if set(sys.modules) - before:
        late.append([k, sorted(set(sys.modules) - before)])
print(json.dumps({"late": late, "exits": len(exits), "laps": len(sess.laps)}))
"""


def test_no_frame_imports_a_module() -> None:
    """In a fresh interpreter that has imported the frame path, no frame imports a module: the first
    corner exit imported ``numpy.ma`` (``np.nanpercentile``'s first call), 12-15 ms in that frame."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE], capture_output=True, text=True, env=env, check=True
    ).stdout
    got = json.loads(out.strip().splitlines()[-1])
    assert got["late"] == []
    track = load_track("sonoma")
    assert got["laps"] >= 2 and got["exits"] >= 2 * len(track.corners) - 2  # corner exits did happen


def test_a_long_window_is_summarised_over_its_exit_frame_and_the_next_two(monkeypatch: Any) -> None:
    """At 1 kHz a corner's summary (4-10 ms of thread CPU in one frame) is spread over three frames: the
    observation comes exactly two frames after the exit for a window of ``SPLIT_ROWS`` frames or more (in
    the exit's frame for a shorter one), and it is the observation the whole summary gives at the exit."""
    fed = _corner_rows(1000.0)
    th = thresholds_for({})
    track = load_track("sonoma")

    def observe(split_rows: int) -> tuple[list[tuple[int, Any]], list[int]]:
        monkeypatch.setattr(corner_summary, "SPLIT_ROWS", split_rows)
        w = CornerWatcher(track, th)
        got, kept = [], []
        for k, (lap, row) in enumerate(fed):
            held = len(w.kept)
            o = w.feed(lap, row)
            if o is not None:
                got.append((k, o))
                kept.append(held + 1)  # the window's frames, the one past the exit included
        return got, kept

    split, _ = observe(corner_summary.SPLIT_ROWS)
    whole, kept = observe(10**9)
    assert len(split) == len(whole) >= 2 * len(track.corners) - 2
    assert [repr(o) for _k, o in split] == [repr(o) for _k, o in whole]
    late = [2 if n >= 2000 else 0 for n in kept]
    assert late.count(2) >= len(track.corners)  # most windows at 1 kHz are long
    assert [k for k, _o in split] == [k + d for (k, _o), d in zip(whole, late, strict=True)]


def test_a_dense_gold_trace_ending_just_past_its_last_exit_keeps_that_corner(monkeypatch: Any) -> None:
    """A saved lap as a 1 kHz distance trace that ends one sample past its last corner's exit: that
    corner's summary, still under way at the trace's end, is finished (``reference_from_trace`` drains
    the watcher) and every corner's reference is the one the whole summary at the exit gives."""
    track = load_track("sonoma")
    th = thresholds_for({})
    rows = [row for lap, row in _corner_rows(1000.0) if lap == 1]
    last = max(track.corners, key=lambda c: c.end_m)
    k = next(i for i, r in enumerate(rows) if r["dist_m"] > last.end_m)
    rows = rows[: k + 1]
    t0 = rows[0]["t_s"]
    trace = {c: np.array([r.get(c, np.nan) for r in rows]) for c in CHANNELS if c not in ("t_s",)}
    trace["time_s"] = np.array([r["t_s"] - t0 for r in rows])
    got = reference_from_trace(trace, track, th)
    monkeypatch.setattr(corner_summary, "SPLIT_ROWS", 10**9)
    whole = reference_from_trace(trace, track, th)
    assert last.id in got and len(got) >= len(track.corners) - 1
    assert repr(got) == repr(whole)

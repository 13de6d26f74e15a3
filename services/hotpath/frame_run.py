"""``process_run``: one run of frames with the same channels through the frame path at once, as one float
matrix, with exactly the outputs of ``process`` on each frame in turn (``frame_batch`` cuts a chunk into runs).

What is pure per frame is computed with numpy: the GPS fixes projected onto the gate and onto the
stretch of track line they can reach (``LiveLapTracker.feed_many``), which frames may hold an event
condition (``LiveEvents.maybe``, conservative), the corner windows (``CornerWatcher.feed_run``) and the
arbiter's quiet profile (``QuietProfile.observe_many``). A lean loop then does the stateful part frame by
frame: a frame on which no condition may hold, with no event run open and no flag left on, needs only the
event detector's bookkeeping; every other frame runs today's exact per-frame code. Stored rows are kept
as column slices and written as one Arrow batch.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from services.hotpath import records
from services.hotpath.arbiter import BUSY_BRAKE_BAR, BUSY_G_LAT, FrameState
from services.hotpath.corner_frames import CHANNELS
from services.hotpath.cue import Cue
from services.hotpath.frame_columns import ColumnBlock, RunColumns
from services.hotpath.frame_path import LiveSession
from services.hotpath.phrases import render
from shared.event_conditions import is_flag_on
from shared.laps_live import LiveLapState
from shared.signals import WHEELS

_NAN = float("nan")


def process_run(
    sess: LiveSession, frames: list[dict[str, float]], keys: tuple[str, ...], arr: np.ndarray, arrived: float
) -> list[Cue]:
    n = len(frames)
    kidx = {k: j for j, k in enumerate(keys)}
    base = sess._last_vals  # the values held before this run (frames of a run all send the same channels)
    held = {k: v for k, v in base.items() if k not in kidx and k not in ("lap", "dist_m")}
    src = RunColumns(arr, kidx, held)

    cols: dict[str, np.ndarray | None] = {}

    def col(k: str) -> np.ndarray | None:
        """Channel ``k`` on each frame as ``process`` holds it (float; None when no frame has had it)."""
        got = cols.get(k, cols)
        if got is not cols:
            return got  # type: ignore[return-value]
        j = kidx.get(k)
        v = held.get(k)
        c = arr[:, j] if j is not None else None if v is None else np.full(n, float(v))
        cols[k] = c
        return c

    def py(k: str, default: Any = None) -> list[Any]:
        """``vals.get(k, default)`` on each frame."""
        j = kidx.get(k)
        return arr[:, j].tolist() if j is not None else [held.get(k, default)] * n

    t = arr[:, kidx["t_s"]]
    ts = t.tolist()
    wall = time.time()
    # one wall-clock reading for the chunk: after the first frame (or its last gap), no sample is kept
    sess.clock.observe_run(t, wall)
    track = sess.track
    assert track is not None
    tracker = sess.tracker
    lap_l, dist_l, crossed_at, source = tracker.feed_many(t, col("lat"), col("lon"), py("speed_kmh"))
    src.lap = np.asarray(lap_l, dtype=np.int64)
    src.dist = dist = np.asarray(dist_l, dtype=np.float64)
    obs_at: dict[int, Any] = {}
    if sess.watcher is not None:
        nan_col = np.full(n, _NAN)
        wcols = {k: dist if k == "dist_m" else _nan_if_none(col(k), nan_col) for k in CHANNELS}
        obs_at = dict(sess.watcher.feed_run(lap_l, dist_l, wcols))
    ev = sess.events
    maybe = ev.maybe(col, n)
    maybe[0] = True  # the first frame of a run runs the exact code (it compares with what came before)
    maybe_l = maybe.tolist()
    press = _press_changes(kidx, arr, maybe)
    pk = 0  # press[pk:] not applied yet
    q0 = 0  # frames from here on that took no exact path have not had the event bookkeeping yet

    def quiet_to(k: int) -> None:
        nonlocal q0, pk
        if k > q0:
            while pk < len(press) and press[pk][0] < q0:
                pk += 1
            p0 = pk
            while pk < len(press) and press[pk][0] < k:
                pk += 1
            ev.quiet(ts[q0:k], [(w, v) for _i, w, v in press[p0:pk]])
        q0 = k

    spd_l, brk_l, glat_l = py("speed_kmh", 0.0), py("brake_bar", 0.0), py("g_lat", 0.0)
    profile = sess.arbiter.profile
    spd_a = np.asarray(spd_l, dtype=np.float64)
    batch_profile = profile is not None and bool(np.isfinite(spd_a).all())
    v_a = np.maximum(spd_a, 1.0) / 3.6
    with np.errstate(invalid="ignore"):
        busy_a = (np.asarray(brk_l, dtype=np.float64) > BUSY_BRAKE_BAR) | (
            np.abs(np.asarray(glat_l, dtype=np.float64)) >= BUSY_G_LAT
        )
    prof0 = 0  # frames before this one are in the quiet profile

    def observe_to(k: int) -> None:
        nonlocal prof0
        if profile is not None and k > prof0:
            if batch_profile:
                profile.observe_many(dist[prof0:k], busy_a[prof0:k], v_a[prof0:k])
            else:
                for m in range(prof0, k):
                    profile.observe(dist_l[m], bool(busy_a[m]), max(spd_l[m], 1.0) / 3.6)
            prof0 = k

    arb, coach, sink, sid = sess.arbiter, sess.coach, sess.sink, sess.session_id
    delta, delta_on = sess.delta, sess.on_delta is not None
    flags = coach.safety_ctx.last_flags if coach.safety_ctx is not None else {}
    exact = bool(ev._open) or any(is_flag_on(v) for v in flags.values())
    cues: list[Cue] = []
    trace = sess.trace
    seg0 = 0  # the current lap's frames from here on are not in its trace yet
    buf0 = 0  # frames from here on are not in the session's buffer yet
    nb = sess._nbuf  # frames waiting for the store, counting this run's from buf0
    last = n - 1
    fs: FrameState | None = None
    idle_until = 0  # tick has nothing to do before this frame (nothing waiting, or all still ahead)
    recheck = True  # what waits changed: idle_until is to be found again

    def make_fs(i: int) -> FrameState:
        d = dist_l[i]
        nxt, to_next = track.next_corner(d)
        ti = ts[i]
        return FrameState(
            ti,
            lap_l[i],
            d,
            spd_l[i],
            brk_l[i],
            glat_l[i],
            nxt,
            to_next,
            bool(arb.pending) and trace.on_pb_pace(d, ti),
        )

    for i in range(n):
        ti = ts[i]
        fs = None
        cr = crossed_at.get(i) if crossed_at else None
        if cr is not None:
            sess.last_t = ti
            trace.add_block(dist[seg0:i], t[seg0:i])
            if i > buf0:
                sess._buf.append(ColumnBlock(src, buf0, i))
                sess._nbuf += i - buf0
                buf0 = i
            sess._close_lap(cr)
            nb = 0
        if trace.start_t is None or cr is not None:
            trace.restart(cr.t_end_s if cr is not None else ti, cr is not None)
            seg0 = i
        if i == last:
            fs = make_fs(i)
        if exact or maybe_l[i]:
            sess.last_t = ti
            quiet_to(i)
            q0 = i + 1
            row = dict(base)
            row.update(frames[i])
            row["lap"] = lap_l[i]
            row["dist_m"] = dist_l[i]
            ended = ev.feed(row)
            hits = coach.on_frame(row, ti, ev.conditions)
            if hits:
                fs = fs or make_fs(i)
                for h in hits:
                    d = arb.safety(h, render(h.template, None, h.wheel), fs)
                    cues.append(sess._emit(d, arrived))
            if ended:
                sink(*records.events(sid, ended))
            exact = bool(ev._open) or any(is_flag_on(v) for v in flags.values())
        obs = obs_at.get(i) if obs_at else None
        if obs is not None:
            sess.last_t = ti
            sess._store_corner(obs)
            hits = coach.on_corner(obs)
            if hits:
                fs = fs or make_fs(i)
                observe_to(i)
                for h in hits:
                    for d in arb.schedule(h, render(h.template, h.corner, h.wheel), fs):
                        cues.append(sess._emit(d, arrived))
                recheck, idle_until = True, i
        if arb.pending and i >= idle_until:
            if recheck and batch_profile:  # frames tick would pass over: skipped (their profile kept)
                idle_until = i + arb.idle_frames(dist[i:], spd_a[i:])
                recheck = False
            if i >= idle_until:
                sess.last_t = ti
                fs = fs or make_fs(i)
                observe_to(i)
                before = [(id(p), p.armed) for p in arb.pending.values()]
                for d in arb.tick(fs):
                    cues.append(sess._emit(d, arrived))
                prof0 = i + 1
                recheck = before != [(id(p), p.armed) for p in arb.pending.values()]
        if delta_on and trace.timed and delta.due(wall):
            pit = sess.tracker.pit_at.get(lap_l[i])  # as process: the lap's pit-lane time, if reached
            e = delta.update(wall, lap_l[i], dist_l[i], trace.since_start(ti), pit is not None and ti >= pit)
            if e is not None and sess.on_delta is not None:
                sess.on_delta(e)
        if nb == 0:
            sess._buf_since = arrived
        nb += 1
        if nb >= 500 or arrived - sess._buf_since >= sess.buffer_s:
            sess._buf.append(ColumnBlock(src, buf0, i + 1))
            sess._nbuf += i + 1 - buf0
            buf0 = i + 1
            sess.flush_rows()
            nb = 0
    trace.add_block(dist[seg0:n], t[seg0:n])
    quiet_to(n)
    if n > buf0:
        sess._buf.append(ColumnBlock(src, buf0, n))
        sess._nbuf += n - buf0
    observe_to(n)
    vals = sess._last_vals
    vals.update(frames[last])
    vals["lap"] = lap_l[last]
    vals["dist_m"] = dist_l[last]
    sess.last_t = ts[last]
    d_last = dist_l[last]
    nxt, to_next = track.next_corner(d_last)
    sess._last_st = LiveLapState(
        lap_l[last], d_last, crossed_at.get(last), track.corner_at(d_last), nxt, to_next, source
    )
    sess._last_fs = fs
    return [c for c in cues if c.status == "spoken"] if cues else cues


def _nan_if_none(a: np.ndarray | None, nan_col: np.ndarray) -> np.ndarray:
    return nan_col if a is None else a


def _press_changes(kidx: dict[str, int], arr: np.ndarray, maybe: np.ndarray) -> list[tuple[int, str, float]]:
    """(frame, wheel, pressure) where a TPMS pressure the run sends differs from the frame before (on
    frames not run exactly anyway), in frame order: what the event detector's baseline must see."""
    sent = [(w, kidx[f"tpms_press_{w}_bar"]) for w in WHEELS if f"tpms_press_{w}_bar" in kidx]
    if not sent or len(arr) < 2:
        return []
    p = arr[:, [j for _w, j in sent]]
    with np.errstate(invalid="ignore"):
        changed = (p[1:] != p[:-1]) & ~maybe[1:, None]
    rows, cols = np.nonzero(changed)  # row-major: by frame, then wheel
    if not len(rows):
        return []
    names = [w for w, _j in sent]
    vals = p[rows + 1, cols].tolist()
    return [(i, names[c], v) for i, c, v in zip((rows + 1).tolist(), cols.tolist(), vals, strict=True)]

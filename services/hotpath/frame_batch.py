"""``process_many(session, frames, ...)``: a chunk of frames through the frame path at once, with exactly the outputs
of ``process`` on each frame in turn (cues, laps, events, corner observations, stored rows, delta events).

A chunk is cut into runs of frames with the same channels (a validated ingest chunk is one run); each run
of at least ``MIN_RUN`` frames goes through ``frame_run.process_run`` as one float matrix, shorter ones
and a session still looking for its track through ``process`` frame by frame.
"""

from __future__ import annotations

import operator
import time
from itertools import chain

import numpy as np

from services.hotpath.cue import Cue
from services.hotpath.frame_path import LiveSession
from services.hotpath.frame_run import process_run

MIN_RUN = 16  # shorter runs of same-channel frames go through ``process`` one by one (the column path's
# fixed cost per run, about 0.3 ms, is that of ~16 frames through ``process``: bench/hotpath.py)


def _matrix(frames: list[dict[str, float]], keys: tuple[str, ...]) -> np.ndarray | None:
    """The frames as a float matrix (rows: frames, columns: ``keys``), or None when a frame lacks one of
    the keys, has others, or holds something that is not a number."""
    nk = len(keys)
    if any(len(f) != nk for f in frames):
        return None
    try:
        flat = (
            chain.from_iterable(map(operator.itemgetter(*keys), frames))
            if nk > 1
            else (f[keys[0]] for f in frames)
        )
        return np.fromiter(flat, np.float64, count=len(frames) * nk).reshape(len(frames), nk)
    except (KeyError, TypeError, ValueError):
        return None


def process_many(
    sess: LiveSession,
    frames: list[dict[str, float]],
    arrived: float | None = None,
    matrix: tuple[tuple[str, ...], np.ndarray] | None = None,
) -> list[Cue]:
    """Validated frames in order: exactly what ``sess.process`` on each in turn would give and do (same
    cues, laps, events, corner observations, stored rows, delta events), at a fraction of the CPU per
    frame. ``arrived``: when the chunk arrived (one reading for all its frames); ``matrix``: the frames
    as (keys, float matrix) when the caller has it already (every frame has exactly these keys: a
    validated batch), so it is not built again."""
    arrived = arrived if arrived is not None else time.perf_counter()
    if matrix is not None and sess.track is not None and len(frames) >= MIN_RUN:
        given_keys, given = matrix
        if "t_s" in given_keys and given.shape == (len(frames), len(given_keys)):
            return process_run(sess, frames, given_keys, given, arrived)
    out: list[Cue] = []
    i, n = 0, len(frames)
    while i < n:
        if sess.track is None:  # a session still looking for its track: frame by frame
            out.extend(sess.process(frames[i], arrived))
            i += 1
            continue
        keys = tuple(frames[i])
        arr = _matrix(frames[i:], keys) if n - i >= MIN_RUN and "t_s" in keys else None
        j = n
        if arr is None:  # not one run: the frames from i with the same channels as frame i
            keyset = frames[i].keys()
            j = i + 1
            while j < n and frames[j].keys() == keyset:
                j += 1
            arr = _matrix(frames[i:j], keys) if j - i >= MIN_RUN and "t_s" in keys else None
        if arr is None:
            for f in frames[i:j]:
                out.extend(sess.process(f, arrived))
        else:
            out.extend(process_run(sess, frames[i:j], keys, arr, arrived))
        i = j
    return out

"""The live sessions by id and the frames into them: a batch validated at once when it is clean, else
frame by frame with every problem named and counted; buffered frames flushed to the writer when idle."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from services.hotpath.columns import ColumnBatch, frames_of_matrix
from services.hotpath.frame_batch import process_many
from services.hotpath.frame_path import LiveSession
from services.hotpath.metrics import RateMeter
from services.hotpath.validation import (
    Counters,
    FrameRejected,
    batch_matrix,
    clean_frame,
    clean_matrix,
    map_source_names,
)
from shared.store.writer import StoreWriter

# a batch validated at once: its frames as objects and (every frame with every channel) their matrix
CleanBatch = tuple[list[dict[str, Any]], tuple[tuple[str, ...], np.ndarray] | None]


class UnknownSession(KeyError):
    pass


class FrameIntake:
    """The live sessions and the frames into them (``HotpathState`` is one)."""

    writer: StoreWriter

    def __init__(self) -> None:
        self.sessions: dict[str, LiveSession] = {}
        self.active: str | None = None
        self.counters = Counters()
        self.rate = RateMeter()

    def session(self, sid: str | None) -> LiveSession:
        sid = sid or self.active
        if sid is None or sid not in self.sessions:
            raise UnknownSession(sid or "(no active session)")
        return self.sessions[sid]

    def clean(self, sid: str | None, frames: list[Any] | ColumnBatch) -> CleanBatch | None:
        """A batch validated at once when it is clean (known channels, plain finite numbers in range, time
        increasing): its frames as objects and, when every frame has every channel, their matrix. None
        when anything is off: ``ingest`` then goes frame by frame, naming and counting every problem."""
        sess = self.session(sid)
        if isinstance(frames, ColumnBatch):  # columns: checked as one matrix
            m = frames.matrix() if frames.numeric else None
            if m is not None and clean_matrix(frames.names, m, sess.last_t, missing=frames.binary):
                return frames_of_matrix(frames.names, m, sess._last_vals)
            return None
        matrix = batch_matrix(frames, sess.last_t) if len(frames) >= 8 else None
        return (frames, matrix) if matrix is not None else None

    def ingest(
        self,
        sid: str | None,
        frames: list[Any] | ColumnBatch,
        arrived: float | None = None,
        clean: CleanBatch | None = None,
    ) -> dict[str, Any]:
        """Frames into the session. ``clean``: the same frames as ``clean`` gave them (a slice of a whole
        message validated at once), so they are not validated again."""
        sess = self.session(sid)
        arrived = arrived if arrived is not None else time.perf_counter()
        accepted = 0
        rejected: dict[str, int] = {}
        if self.writer.blocked:  # nothing is acknowledged that cannot be stored
            self.reject("disk_full", len(frames))
            return {"accepted": 0, "rejected": {"disk_full": len(frames)} if frames else {}}
        if clean is None:
            clean = self.clean(sid, frames)
        if clean is not None:  # a clean batch of canonical channels: validated column-wise in one go
            fast, matrix = clean
            self.counters.frames_total += len(fast)
            sess.jump.reset()
            process_many(sess, fast, arrived, matrix)
            accepted = len(fast)
        else:  # frame by frame: every problem named and counted
            car = sess.car
            for raw in frames.rows() if isinstance(frames, ColumnBatch) else frames:
                self.counters.frames_total += 1
                try:
                    if isinstance(raw, dict):
                        raw = map_source_names(car, raw, self.counters)
                    frame = clean_frame(raw, sess.last_t, self.counters)
                except FrameRejected as exc:
                    if exc.reason == "time_jump" and sess.jump.confirms(float(raw["t_s"])):
                        frame = clean_frame(raw, None, self.counters)  # the new time line holds
                        sess.time_break()
                    else:
                        self.counters.rejected[exc.reason] += 1
                        rejected[exc.reason] = rejected.get(exc.reason, 0) + 1
                        continue
                else:
                    sess.jump.reset()
                sess.process(frame, arrived)
                accepted += 1
        self.rate.add(accepted)
        return {"accepted": accepted, "rejected": rejected}

    def flush_idle(self) -> None:
        """On a timer: frames that waited in a session buffer for ``buffer_s`` go to the writer, which
        writes them at once, even when no later frame arrives (a stream that stopped)."""
        now = time.perf_counter()
        flushed = False
        for sess in self.sessions.values():
            if sess.pending_frames and now - sess.buffered_since >= sess.buffer_s:
                sess.flush_rows()
                flushed = True
        if flushed:
            self.writer.wake()

    def buffered_s(self) -> float:
        """Age of the oldest frame not yet handed to the writer."""
        now = time.perf_counter()
        return max((now - s.buffered_since for s in self.sessions.values() if s.pending_frames), default=0.0)

    def reject(self, reason: str, n: int = 1) -> None:
        self.counters.frames_total += n
        self.counters.rejected[reason] += n

"""A live session's frames on their way to the store: buffered as row dicts (``process``) or column blocks
(``process_many``), handed to the writer as one Arrow batch built on its thread, and how far the store's
durability reaches once the writer has committed them (``durable_t``, ``stored_frames``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from services.hotpath.frame_columns import ColumnBlock, telemetry_table
from shared.signals import telemetry_schema

_ROW_SCHEMA = telemetry_schema().remove(0)  # without session_id

# (table, rows or an Arrow table or a call that builds one on the writer's thread) -> enqueue for the store
Sink = Callable[[str, Any], None]


class FrameBuffer:
    """The frames of one session not yet handed to the store writer (``LiveSession`` is one)."""

    def __init__(self, session_id: str, sink: Sink, buffer_s: float) -> None:
        self.session_id = session_id
        self.buffer_s = buffer_s  # frames wait at most this long (wall clock) before going to the writer
        self.sink = sink
        self._buf: list[Any] = []  # frames for the store: row dicts (process), column blocks (process_many)
        self._nbuf = 0  # frames in _buf
        self._buf_since = 0.0
        # the writer's ``mark``: a callback once what was submitted before it is committed
        self.mark: Callable[[Callable[[], None]], None] | None = None
        self.durable_t: float | None = None  # t_s of the last frame committed to the store
        self.stored_frames = 0

    def flush_rows(self) -> None:
        """Hand the buffered frames to the store. The Arrow batch is built on the writer's thread (the
        sink gets the call that builds it): 2-3 ms for 500 rows at 1 kHz, off the frame path."""
        if not self._nbuf:
            return
        rows, self._buf, n, self._nbuf = self._buf, [], self._nbuf, 0
        last = rows[-1]
        self.sink("telemetry", partial(telemetry_table, self.session_id, rows, _ROW_SCHEMA))
        if self.mark is not None:
            t_last = last.t_last if type(last) is ColumnBlock else float(last["t_s"])
            self.mark(lambda: self._stored(t_last, n))

    def _stored(self, t: float, n: int) -> None:  # on the writer thread
        self.durable_t = t
        self.stored_frames += n

    @property
    def pending_frames(self) -> int:
        return self._nbuf

    @property
    def buffered_since(self) -> float:
        return self._buf_since

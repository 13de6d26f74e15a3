"""Column batches on the live ingest: ``{"session_id"?, "columns": {"t_s": [...], "speed_kmh": [...], ...}}``.

The same frames as ``{"frames": [{...}, ...]}``, one list per channel instead of one object per frame: a
client that already holds its samples as columns (a logger file being replayed, a phone buffering a
second of CAN frames) sends them without building an object per frame, and the hot path decodes them
without one either. In msgpack a column may also be a ``bin`` of little-endian float64s.

A value that is ``null`` (JSON, msgpack ``nil``) or NaN in a binary column is "no value in this frame",
as a channel left out of a frame object is: the channel holds its last value, never 0. Anything else
(ragged columns, a column that is not a list of numbers) is refused naming the column.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_NAME = 64


class BadColumns(ValueError):
    """A column batch that cannot be read; the message names the column."""


class ColumnBatch:
    """Frames as columns: ``names`` and, per name, a float64 array or (when it holds anything but plain
    numbers) the list as sent, validated frame by frame. ``binary``: the columns sent as float64 bytes,
    where NaN is "no value in this frame"."""

    __slots__ = ("names", "cols", "n", "binary")

    def __init__(self, names: list[str], cols: list[Any], n: int, binary: frozenset[str]) -> None:
        self.names = names
        self.cols = cols
        self.n = n
        self.binary = binary

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, s: slice) -> ColumnBatch:
        return ColumnBatch(self.names, [c[s] for c in self.cols], len(range(*s.indices(self.n))), self.binary)

    @property
    def numeric(self) -> bool:
        """Every column a float64 array."""
        return all(isinstance(c, np.ndarray) for c in self.cols)

    def matrix(self) -> np.ndarray:
        """(frames, channels) float64 of a numeric batch."""
        return np.column_stack(self.cols) if self.cols else np.empty((self.n, 0))

    def rows(self) -> list[dict[str, Any]]:
        """One object per frame, as a ``frames`` batch would have sent them (a missing value left out)."""
        lists = []
        for k, c in zip(self.names, self.cols, strict=True):
            vals = c.tolist() if isinstance(c, np.ndarray) else c
            lists.append([None if v != v else v for v in vals] if k in self.binary else vals)
        names = self.names
        return [
            {k: v for k, v in zip(names, vals, strict=True) if v is not None}
            for vals in zip(*lists, strict=True)
        ]


def held(col: np.ndarray, before: float | None) -> np.ndarray:
    """A channel over a run of frames with each NaN (no value in that frame) replaced by the value it holds
    then: the last one before it, or ``before`` (held from earlier frames; None: NaN stays, nothing yet)."""
    nan = np.isnan(col)
    if not nan.any():
        return col
    ext = np.concatenate(([np.nan if before is None else float(before)], col))
    idx = np.where(np.concatenate(([True], ~nan)), np.arange(len(ext)), 0)
    return ext[np.maximum.accumulate(idx)][1:]


def frames_of_matrix(
    names: list[str], m: np.ndarray, before: dict[str, Any]
) -> tuple[list[dict[str, float]], tuple[tuple[str, ...], np.ndarray] | None]:
    """Validated columns as the frame path's input: the frames as objects and, when every frame has every
    channel, the (channels, matrix) behind them. A NaN takes the value the channel holds there (from
    ``before``, the values the session holds, or an earlier frame): the same frame for the frame path,
    which holds a channel a frame leaves out. A channel with nothing to hold yet is left out."""
    if np.isnan(m).any():
        m = m.copy()
        for j in np.flatnonzero(np.isnan(m).any(axis=0)):
            m[:, j] = held(m[:, j], before.get(names[j]))
        if np.isnan(m).any():
            return [{k: v for k, v in zip(names, r, strict=True) if v == v} for r in m.tolist()], None
    keys = tuple(names)
    return [dict(zip(keys, r, strict=True)) for r in m.tolist()], (keys, m)


def _column(name: str, v: Any) -> Any:
    """A float64 array for bytes or a list of plain numbers; the list itself otherwise."""
    if isinstance(v, bytes | bytearray):
        if len(v) % 8:
            raise BadColumns(f"column {name!r}: {len(v)} bytes is not a whole number of float64 values")
        return np.frombuffer(v, dtype="<f8").astype(np.float64)
    if not isinstance(v, list):
        raise BadColumns(f"column {name!r} must be a list of numbers, got {type(v).__name__}")
    try:
        arr = np.asarray(v)
    except (ValueError, OverflowError):  # ragged nesting
        return v
    if arr.ndim != 1 or arr.dtype.kind not in "fiub":  # None, strings, objects, nested: frame by frame
        return v
    try:
        return arr.astype(np.float64)
    except OverflowError:
        return v


def column_batch(spec: Any) -> ColumnBatch:
    """The ``columns`` object of a message as a ``ColumnBatch``; raises BadColumns naming the problem."""
    if not isinstance(spec, dict) or not spec:
        raise BadColumns("columns must be an object of channel name -> list of values")
    if "t_s" not in spec:
        raise BadColumns("columns need t_s")
    names, cols, binary = [], [], set()
    n: int | None = None
    for name, v in spec.items():
        if not isinstance(name, str) or len(name) > MAX_NAME:
            raise BadColumns(f"column names must be strings of at most {MAX_NAME} characters")
        col = _column(name, v)
        if n is None:
            n = len(col)
        elif len(col) != n:
            raise BadColumns(f"column {name!r} has {len(col)} values, t_s has {n}: columns must be equal")
        if isinstance(v, bytes | bytearray):
            binary.add(name)
        names.append(name)
        cols.append(col)
    return ColumnBatch(names, cols, n or 0, frozenset(binary))


def pack_columns(frames: list[dict[str, float]]) -> dict[str, bytes]:
    """Frame objects as the ``columns`` of a batch: one little-endian float64 ``bin`` per channel, NaN
    where a frame has no value for it (a client's side: the replay sender, the benches, the tests)."""
    names = list(dict.fromkeys(k for f in frames for k in f))
    nan = float("nan")
    return {k: np.array([f.get(k, nan) for f in frames], "<f8").tobytes() for k in names}

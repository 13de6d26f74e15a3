"""The frames of ``process_many`` runs as columns, waiting for the store: column blocks in the session's
buffer in place of row dicts, and the Arrow batch built from them (``telemetry_table``: the same table as
from the same frames' rows: same columns, same values, nulls where a channel was never sent)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

# row dicts converted per pyarrow call: one call holds the GIL throughout (the frame path's thread waits
# for it), about 0.2 ms for 100 rows as a struct array; the whole 500-row batch in one ``from_pylist``
# held it 1.1 ms at no less total cost (bench/gil_hold.py)
ROWS_PER_CALL = 100


class RunColumns:
    """One run's frames as columns: the frame matrix, the held values of channels the run does not send,
    and the lap and distance the tracker gave each frame."""

    __slots__ = ("arr", "kidx", "held", "lap", "dist")

    def __init__(self, arr: np.ndarray, kidx: dict[str, int], held: dict[str, Any]) -> None:
        self.arr, self.kidx, self.held = arr, kidx, held
        self.lap = np.zeros(0, dtype=np.int64)
        self.dist = np.zeros(0)

    def column(self, name: str, a: int, b: int) -> Any:
        """Frames a..b of a stored column: an array; or ``(value,)``, a held value (None: null); or None,
        a column no frame has had."""
        if name == "lap":
            return self.lap[a:b]
        if name == "dist_m":
            return self.dist[a:b]
        j = self.kidx.get(name)
        if j is not None:
            return self.arr[a:b, j]
        if name in self.held:
            return (self.held[name],)
        return None


class ColumnBlock:
    """Frames a..b of a run, waiting in the session's buffer for the store (in place of their rows)."""

    __slots__ = ("src", "a", "b")

    def __init__(self, src: RunColumns, a: int, b: int) -> None:
        self.src, self.a, self.b = src, a, b

    @property
    def n(self) -> int:
        return self.b - self.a

    @property
    def t_last(self) -> float:
        return float(self.src.arr[self.b - 1, self.src.kidx["t_s"]])


def telemetry_table(session_id: str, items: list[Any], schema: pa.Schema) -> pa.Table:
    """Stored frames as one Arrow batch: rows (canonical names plus ``lap``, ``dist_m``) and column
    blocks, in order (nulls where a channel was never sent). The frame path hands this call to the store
    writer, which runs it on its own thread (``LiveSession.flush_rows``)."""
    tables: list[pa.Table] = []
    rows: list[dict[str, Any]] = []
    blocks: list[ColumnBlock] = []
    for it in items:
        if type(it) is ColumnBlock:
            if rows:
                tables.append(_rows_table(rows, schema))
                rows = []
            blocks.append(it)
        else:
            if blocks:
                tables.append(_block_table(blocks, schema))
                blocks = []
            rows.append(it)
    if rows:
        tables.append(_rows_table(rows, schema))
    if blocks:
        tables.append(_block_table(blocks, schema))
    tbl = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    sid = pa.array([session_id] * tbl.num_rows, pa.string())
    return tbl.add_column(0, "session_id", sid)


def _rows_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Row dicts as a table of ``schema`` (a missing key is null), ROWS_PER_CALL rows per pyarrow call."""
    st = pa.struct(list(schema))
    parts = [pa.array(rows[i : i + ROWS_PER_CALL], type=st) for i in range(0, len(rows), ROWS_PER_CALL)]
    return pa.Table.from_struct_array(pa.chunked_array(parts, type=st)).replace_schema_metadata(
        schema.metadata
    )


def _block_table(blocks: list[ColumnBlock], schema: pa.Schema) -> pa.Table:
    src0 = blocks[0].src
    if all(b.src.kidx == src0.kidx and b.src.held == src0.held for b in blocks):
        return _same_channels_table(blocks, schema)
    n = sum(b.n for b in blocks)
    arrays = []
    for field in schema:
        parts = [b.src.column(field.name, b.a, b.b) for b in blocks]
        if all(p is None for p in parts):
            arrays.append(pa.nulls(n, field.type))
            continue
        vals, masks, any_null = [], [], False
        for p, b in zip(parts, blocks, strict=True):
            if isinstance(p, np.ndarray):
                vals.append(p)
                masks.append(np.zeros(b.n, dtype=bool))
            elif p is None or p[0] is None:
                vals.append(np.zeros(b.n))
                masks.append(np.ones(b.n, dtype=bool))
                any_null = True
            else:
                vals.append(np.full(b.n, p[0], dtype=np.float64))
                masks.append(np.zeros(b.n, dtype=bool))
        v = vals[0] if len(vals) == 1 else np.concatenate(vals)
        mask = np.concatenate(masks) if any_null else None
        arrays.append(pa.array(v, type=field.type, mask=mask))
    return pa.Table.from_arrays(arrays, schema=schema)


def _same_channels_table(blocks: list[ColumnBlock], schema: pa.Schema) -> pa.Table:
    """Blocks of runs that send the same channels and hold the same others (the usual case): one matrix."""
    src0 = blocks[0].src
    m = np.concatenate([b.src.arr[b.a : b.b] for b in blocks]).T.copy()  # a row per channel
    lap = np.concatenate([b.src.lap[b.a : b.b] for b in blocks])
    dist = np.concatenate([b.src.dist[b.a : b.b] for b in blocks])
    n = len(lap)
    kidx, held = src0.kidx, src0.held
    arrays = []
    for field in schema:
        name = field.name
        j = kidx.get(name)
        if name == "lap":
            arrays.append(pa.array(lap, type=field.type))
        elif name == "dist_m":
            arrays.append(pa.array(dist, type=field.type))
        elif j is not None:
            arrays.append(pa.array(m[j], type=field.type))
        elif held.get(name) is not None:
            arrays.append(pa.array(np.full(n, held[name], dtype=np.float64), type=field.type))
        else:
            arrays.append(pa.nulls(n, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)

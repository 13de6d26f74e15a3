"""What the frame path hands to the store: (table, rows) pairs built from its own objects.

The frame path knows laps, corners, decisions and events; this module alone knows the store's table
and column names (``shared/store/schema.py``) for them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from shared.corners import corner_result_row
from shared.signals import telemetry_schema

if TYPE_CHECKING:
    from services.hotpath.arbiter import Decision
    from services.hotpath.corner_live import CornerObservation
    from shared.laps import Lap

Record = tuple[str, Any]  # (table, rows or an Arrow table)


def _row_schema() -> pa.Schema:
    return telemetry_schema().remove(0)  # without session_id


def telemetry(session_id: str, rows: list[dict[str, Any]], schema: pa.Schema | None = None) -> Record:
    """Frames (canonical names plus ``lap``, ``dist_m``) as one Arrow batch."""
    tbl = pa.Table.from_pylist(rows, schema=schema or _row_schema())
    sid = pa.array([session_id] * tbl.num_rows, pa.string())
    return "telemetry", tbl.add_column(0, "session_id", sid)


def held(col: np.ndarray, before: float | None) -> np.ndarray:
    """A channel's stored values over a run of frames: NaN (no value in that frame) holds the last value,
    from ``before`` (held from earlier frames; None: nothing yet, stored as NULL) at the start."""
    nan = np.isnan(col)
    if not nan.any():
        return col
    first = np.float64(np.nan if before is None else before)
    ext = np.concatenate(([first], col))
    idx = np.where(np.concatenate(([True], ~nan)), np.arange(len(ext)), 0)
    return ext[np.maximum.accumulate(idx)][1:]


def telemetry_columns(
    session_id: str,
    names: list[str],
    m: np.ndarray,
    before: dict[str, float],
    lap: np.ndarray,
    dist_m: np.ndarray,
    schema: pa.Schema | None = None,
) -> Record:
    """Frames given as columns (``m``: frames x ``names``, NaN: no value) as the same Arrow batch
    ``telemetry`` builds from the frame path's rows: each channel holds its last value (``before``: the
    values held when these frames began), ``lap`` and ``dist_m`` from the frame path."""
    schema = schema or _row_schema()
    n = len(m)
    at = {k: j for j, k in enumerate(names)}
    cols = []
    for f in schema:
        k = f.name
        if k == "lap":
            arr = pa.array(lap, f.type)
        elif k == "dist_m":
            arr = pa.array(dist_m, f.type)
        elif k in at:
            v = held(m[:, at[k]], before.get(k))
            arr = pa.array(v, f.type, from_pandas=True)  # NaN left (nothing held yet): NULL
        elif before.get(k) is not None:
            arr = pa.array(np.full(n, before[k], dtype=np.float64), f.type)
        else:
            arr = pa.nulls(n, f.type)
        cols.append(arr)
    tbl = pa.Table.from_arrays(cols, schema=schema)
    return "telemetry", tbl.add_column(0, "session_id", pa.array([session_id] * n, pa.string()))


def lap(session_id: str, lp: Lap, is_best: bool) -> Record:
    return "laps", [{"session_id": session_id, **lp.as_dict(), "is_best": is_best}]


def corner(session_id: str, obs: CornerObservation) -> Record:
    return "corner_results", [
        {"session_id": session_id, **corner_result_row(obs.lap, obs.corner, obs.metrics)}
    ]


def events(session_id: str, rows: list[dict[str, Any]]) -> Record:
    """Events from the one detector (``shared.events.LiveEvents``), as an import would store them."""
    return "driver_events", [{"session_id": session_id, **r} for r in rows]


def note(session_id: str, d: Decision, latency_ms: float) -> Record:
    row = {
        "session_id": session_id,
        "ts": datetime.now(UTC).replace(tzinfo=None),
        "t_s": d.t_s,
        "lap": d.lap,
        "dist_m": d.dist_m,
        "corner": d.hit.corner.id if d.hit.corner else None,
        "rule": d.hit.rule,
        "phrase_id": d.phrase.id,
        "text": d.phrase.text,
        "priority": d.hit.priority,
        "status": d.status,
        "reason": d.reason,
        "latency_ms": latency_ms,
        "source_lap": d.hit.source_lap,
        "superseded_by": d.superseded_by,
    }
    return "coaching_notes", [row]

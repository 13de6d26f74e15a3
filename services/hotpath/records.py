"""What the frame path hands to the store: (table, rows) pairs built from its own objects.

The frame path knows laps, corners, decisions and events; this module alone knows the store's table
and column names (``shared/store/schema.py``) for them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from services.hotpath.frame_columns import telemetry_table
from shared.corners import corner_result_row
from shared.signals import telemetry_schema

if TYPE_CHECKING:
    from services.hotpath.arbiter import Decision
    from services.hotpath.corner_live import CornerObservation
    from shared.laps import Lap

Record = tuple[str, Any]  # (table, rows or an Arrow table)


def _row_schema() -> pa.Schema:
    return telemetry_schema().remove(0)  # without session_id


def telemetry(session_id: str, rows: list[Any], schema: pa.Schema | None = None) -> Record:
    """Frames (rows: canonical names plus ``lap``, ``dist_m``; or column blocks) as one Arrow batch."""
    return "telemetry", telemetry_table(session_id, rows, schema or _row_schema())


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

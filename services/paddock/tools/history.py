"""A driver's history at one session's track in its car: the sessions the cross-session tools compare."""

from __future__ import annotations

from typing import Any

from services.paddock.lake import get_lake
from services.paddock.tools.base import rows, same_origin, session_row


def same_track(
    session_id: str, n: int, tables: tuple[str, ...] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the session, up to ``n`` of its driver's own sessions at its track in its car, oldest first, ending
    with it; :func:`same_origin`). Their small tables (or ``tables``, the ones the caller reads) are
    fetched in parallel first."""
    s = session_row(session_id)
    if not s["track_id"]:  # an unknown track: nothing else is comparable
        return s, [s]
    own, own_params = same_origin(s)  # a friend's bundle under the same name is never "yours"
    sess = rows(
        f"""SELECT * FROM sessions WHERE driver_id = ? AND track_id = ? AND car_id = ? AND {own}
           AND (session_id = ? OR ? IS NULL OR started_at IS NULL OR started_at <= ?)
           ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT ?""",
        [
            s["driver_id"],
            s["track_id"],
            s["car_id"],
            *own_params,
            s["session_id"],
            s["started_at"],
            s["started_at"],
            n + 1,
        ],
    )
    others = [x for x in sess if x["session_id"] != s["session_id"]][: max(0, n - 1)]
    history = [*reversed(others), s]
    if tables != ():
        get_lake().prefetch([x["session_id"] for x in history], set(tables) if tables is not None else None)
    return s, history


def history_scope(s: dict[str, Any], sess: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "track": s["track_id"],
        "car": s["car_id"],
        "sessions_compared": len(sess),
        "note": f"only {s['driver_id']}'s sessions at {s['track_id'] or 'this track'} in {s['car_id']}",
    }


def other_sessions(session_id: str) -> list[dict[str, Any]]:
    """The session's driver's own other sessions at its track (any car), newest first: "my other session".
    A friend's bundle, even under the same name, is never one (:func:`same_origin`); an unknown track
    has none."""
    s = session_row(session_id)
    if not s["track_id"]:
        return []
    own, own_params = same_origin(s)
    return rows(
        f"""SELECT session_id, started_at, car_id FROM sessions
            WHERE driver_id IS NOT DISTINCT FROM ? AND track_id = ? AND session_id <> ? AND {own}
            ORDER BY started_at DESC NULLS LAST, session_id DESC""",
        [s["driver_id"], s["track_id"], s["session_id"], *own_params],
    )

"""A question's laps as lap numbers of the lake's sessions, and the names a session's track gives its
corners (for ``parse``): the only part of the question layer that reads data. Runs SQL (call it in a
worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.model import LapRef, Question
from services.paddock.tools.base import ToolError, rows, session_row, track_corners
from services.paddock.tools.history import other_sessions


def other_session(session_id: str) -> str | None:
    """The driver's other session at this session's track, the newest of them ("my other session"); a
    friend's shared session is never "mine"; None when there is none (or no such session)."""
    try:
        got = other_sessions(session_id)
    except ToolError:
        return None
    return str(got[0]["session_id"]) if got else None


def session_of(ref: LapRef, session_id: str) -> str | None:
    """The session a lap reference is in: this one, the other one, or the id it names."""
    if ref.session == "this":
        return session_id
    if ref.session == "other":
        return other_session(session_id)
    return ref.session


def lap_numbers(q: Question, session_id: str) -> list[int]:
    """The question's laps as numbers, in the order named, each in its own session: a number as named
    (the family says when the session lacks it); fastest / slowest over the valid full laps with a time;
    first / last the first and last full lap. A lap that cannot be named (no such session, no such lap)
    is left out, as is a session named without a lap."""
    out: list[int] = []
    for ref in q.laps:
        if ref.number is not None:
            out.append(ref.number)
            continue
        sid = session_of(ref, session_id)
        if ref.pick is None or sid is None:
            continue
        n = _pick(sid, ref.pick)
        if n is not None:
            out.append(n)
    return out


def _pick(sid: str, pick: str) -> int | None:
    try:
        laps = rows(
            "SELECT lap, valid, time_s FROM laps WHERE session_id = ? AND kind = 'full' ORDER BY lap", [sid]
        )
    except ToolError:
        return None
    timed = [x for x in laps if x["valid"] and x["time_s"] is not None]
    if pick in ("fastest", "slowest"):
        if not timed:
            return None
        x = (min if pick == "fastest" else max)(timed, key=lambda y: (y["time_s"], y["lap"]))
        return int(x["lap"])
    if not laps:
        return None
    return int(laps[-1 if pick == "last" else 0]["lap"])


def corner_names(session_id: str) -> dict[str, tuple[str, ...]]:
    """Each corner id of the session's track -> the names the track gives it (name, landmark, aliases):
    ``parse``'s ``corners``. An unknown track or session: no corners."""
    try:
        s: dict[str, Any] = session_row(session_id)
    except ToolError:
        return {}
    return {
        c.id: tuple(x for x in (c.name, c.landmark or "", *c.aliases) if x)
        for c in track_corners(s["track_id"])
    }

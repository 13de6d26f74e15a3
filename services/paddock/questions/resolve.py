"""A question's laps as lap numbers of the lake's sessions, and the names a session's track gives its
corners (for ``parse``): the only part of the question layer that reads data. Runs SQL (call it in a
worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.questions import session_dates as dates
from services.paddock.questions import session_words
from services.paddock.questions.model import LapRef, Question
from services.paddock.tools.base import ToolError, rows, session_row, track_corners
from services.paddock.tools.history import other_sessions
from services.paddock.tools.session_compare import own_sessions_here


def other_session(session_id: str) -> str | None:
    """The driver's other session at this session's track, the newest of them ("my other session"); a
    friend's shared session is never "mine"; None when there is none (or no such session)."""
    try:
        got = other_sessions(session_id)
    except ToolError:
        return None
    return str(got[0]["session_id"]) if got else None


def session_of(ref: LapRef, session_id: str) -> str | None:
    """The session a lap reference is in: this one, the other one, one named by when or which, or the id it
    names (``which_session``)."""
    return which_session(ref.session, session_id)[0]


def which_session(said: str, session_id: str) -> tuple[str | None, str | None]:
    """The one resolver of "which session": (the session ``said`` names, None), or (None, why none, in
    driver words, with the driver's sessions here). ``said``: "this", "other" (the newest other own session
    here), a description (``session_words``: by day, part of the day, place in the day or in order, best,
    track, weather; "today" is this session's day, never the clock's), or an id or a driver's name."""
    if said == "this":
        return session_id, None
    if said == "other":
        return other_session(session_id), None
    if not session_words.described(said):
        return said, None
    try:
        s = session_row(session_id)
    except ToolError:
        return None, None
    return dates.pick(said.removeprefix(session_words.PREFIX), s, own_sessions_here(s))


def lap_numbers(q: Question, session_id: str) -> list[int]:
    """The question's laps as numbers, in the order named, each in its own session: a number as named
    (the family says when the session lacks it); fastest / slowest over the valid full laps with a time;
    first / last the first and last full laps; "previous" the full lap before the lap named before it
    (else the last); a pick's ``count`` laps from its ``rank``; each moved by its ``offset`` ("the lap
    after my best": the best's number plus one). A lap that cannot be named (no such session, no such
    lap) is left out, as is a session named without a lap."""
    out: list[int] = []
    for ref in q.laps:
        if ref.number is not None:
            out.append(ref.number + ref.offset)
            continue
        sid = session_of(ref, session_id)
        if ref.pick is None or sid is None:
            continue
        out += [n + ref.offset for n in _pick(sid, ref, out[-1] if out else None)]
    return out


def _pick(sid: str, ref: LapRef, before: int | None) -> list[int]:
    """The laps a pick names: the out or in laps ("my out lap") are every lap of that kind."""
    kind = ref.pick if ref.pick in ("out", "in") else "full"
    try:
        laps = rows(
            "SELECT lap, valid, time_s FROM laps WHERE session_id = ? AND kind = ? ORDER BY lap", [sid, kind]
        )
    except ToolError:
        return []
    if ref.pick in ("fastest", "slowest"):
        order = sorted(
            (x for x in laps if x["valid"] and x["time_s"] is not None), key=lambda y: (y["time_s"], y["lap"])
        )
        order = order if ref.pick == "fastest" else order[::-1]
    elif ref.pick == "previous":
        order = [x for x in laps[::-1] if before is None or x["lap"] < before]
    elif kind != "full":
        return [int(x["lap"]) for x in laps]
    else:
        order = laps[::-1] if ref.pick == "last" else laps
    got = [int(x["lap"]) for x in order[ref.rank - 1 : ref.rank - 1 + ref.count]]
    return sorted(got) if ref.count > 1 and ref.pick in ("last", "first") else got


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

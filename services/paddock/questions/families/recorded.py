"""What this session's file records, in driver words ("what channels are there?", "what data do you have?"):
each measure with a column holding a value, once per column, then the file's channels of a measure the list
lacks that Pitwall does not read, by their own names. Runs SQL (worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.measures import MEASURES
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import rows
from services.paddock.tools.unread import unread_all
from shared.display import listed

MEASURE = "recorded"
TOOL = "telemetry"


def _shown() -> list[str]:
    """The measures named in the list: channels and events with columns, the first of each column set (speed,
    not also top speed; engine temperatures are their two channels)."""
    seen: set[str] = set()
    out = []
    for key, m in MEASURES.items():
        if not m.columns or m.kind not in ("channel", "event") or set(m.columns) <= seen or key == "temps":
            continue
        seen |= set(m.columns)
        out.append(key)
    return out


def recorded_measures(sid: str) -> list[str]:
    """The measures of ``_shown`` whose columns hold a value in this session (one query); [] when the lake
    cannot say."""
    shown = _shown()
    cols = sorted({c for m in shown for c in MEASURES[m].columns})
    try:
        got = rows(
            f"SELECT {', '.join(f'count({c}) AS {c}' for c in cols)} FROM telemetry WHERE session_id = ?",
            [sid],
        )
    except Exception:  # a lake without one of the columns: name nothing rather than guess
        return []
    filled = {c for c, n in (got[0] if got else {}).items() if n}
    return [m for m in shown if filled & set(MEASURES[m].columns)]


def _missing(measure: str, got: list[str]) -> bool:
    """A measure of the car the list lacks (a file's own clock or distance, or a second lateral g beside the
    one read, is no news)."""
    m = MEASURES.get(measure)
    covered = {c for g in got for c in MEASURES[g].columns}
    return m is not None and m.kind in ("channel", "event") and not set(m.columns) & covered


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    if q.measure != MEASURE:
        return None
    sid = str(s["session_id"])
    got = recorded_measures(sid)
    unread = sorted({n for m, names in unread_all(sid).items() if _missing(m, got) for n in names})
    args: dict[str, Any] = {"session_id": sid}
    res: dict[str, Any] = {"recorded": got, "unread": unread}
    if not got:
        return Answer("I cannot tell which channels this session's file records.", TOOL, args, res)
    text = f"This session's file records {listed([MEASURES[m].label for m in got])}."
    if unread:
        text += f" It also has channels Pitwall does not read yet: {listed(unread[:8])}."
    return Answer(text, TOOL, args, res)

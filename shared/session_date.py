"""When a session was driven, as people are told it: the file's own date when it carries one; else a guess,
said as one wherever a date is shown (the CLI's ``sessions``, the tablet, ``report.html``, threads): the
file's modification time kept at import, else the import time."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

GUESSED_FROM = {"file": "from the file's modification time", "import": "from when it was imported"}


def date_guess(path: Path, source_path: str | None = None) -> dict[str, str]:
    """For a file without a date: its modification time (local, as loggers keep time), read from where the
    driver keeps it when the import got a copy (through the hot path); the copy's own time is the import's."""
    for p, source in ((Path(source_path), "file") if source_path else (path, "file"), (path, "import")):
        try:
            at = datetime.fromtimestamp(p.stat().st_mtime)
        except OSError:
            continue
        return {"at": at.isoformat(timespec="seconds"), "from": source}
    return {"at": datetime.now().isoformat(timespec="seconds"), "from": "import"}


def _when(v: Any) -> datetime | None:
    if isinstance(v, datetime):
        return v.replace(tzinfo=None)
    if isinstance(v, str) and v:
        try:
            return datetime.fromisoformat(v).replace(tzinfo=None)
        except ValueError:
            return None
    return None


def session_date(row: Mapping[str, Any]) -> tuple[datetime | None, str | None]:
    """(time, None) when the session's file says when it was driven; (time, how it was guessed) when the
    file carries no date (a VBOX CSV); (None, None) when nothing is known."""
    at = _when(row.get("started_at"))
    if at is not None:
        return at, None
    meta = row.get("meta_json")
    try:
        meta = json.loads(meta) if isinstance(meta, str) else meta
    except ValueError:
        meta = None
    guess = meta.get("date_guess") if isinstance(meta, dict) else None
    at = _when(guess.get("at")) if isinstance(guess, dict) else None
    if at is not None and isinstance(guess, dict):
        return at, GUESSED_FROM.get(str(guess.get("from")), GUESSED_FROM["import"])
    at = _when(row.get("created_at"))
    return (at, GUESSED_FROM["import"]) if at is not None else (None, None)


def date_text(row: Mapping[str, Any], with_time: bool = True, short: bool = False) -> str:
    """``21 Nov 2026 10:00``, or ``21 Nov 2026 10:00 (no date in the file: guessed from …)``; ``short``:
    ``21 Nov 2026 10:00 (guess: file time)`` / ``(guess: import time)``, for a table with a note under it."""
    at, how = session_date(row)
    if at is None:
        return "date unknown"
    text = at.strftime("%d %b %Y %H:%M" if with_time else "%d %b %Y").lstrip("0")
    if how is None:
        return text
    if short:
        return f"{text} (guess: {'file' if how == GUESSED_FROM['file'] else 'import'} time)"
    return f"{text} (no date in the file: guessed {how})"


def dated(row: Mapping[str, Any]) -> dict[str, Any]:
    """A session row for the tablet: ``date_at`` (ISO, to the minute) and ``date_guessed`` (how, or None)."""
    at, how = session_date(row)
    return {"date_at": at.isoformat(timespec="minutes") if at else None, "date_guessed": how}

"""The track's corners in a driver's words, for every family: one name per corner (``T6 Carousel``, as
``agents.fmt.corner_label`` writes it) and the one sentence for a corner the track does not have."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.fmt import corner_label
from services.paddock.tools.base import ToolError, track_corners


def corner_names(s: dict[str, Any]) -> dict[str, str]:
    """Corner id -> the name a driver reads, in driving order, for the session ``s``'s track."""
    return {c.id: corner_label(c.id, c.name) for c in track_corners(s.get("track_id"))}


def no_such_corner(corner: str | None, names: dict[str, str]) -> str:
    """The answer to a question about a corner the track does not have (or a track without corners)."""
    if not names:
        return "This session's track has no corners Pitwall knows, so I can't answer for one corner."
    return f"This track has no corner {str(corner).upper()}: its corners are {', '.join(names.values())}."


def corner_error(exc: ToolError, corner: str | None, names: dict[str, str], what: str) -> str | None:
    """The answer to a corner tool's error: a corner the track does not have, a track without corners
    (so no ``what``); None for any other error (the caller raises it)."""
    if exc.code == "unknown_corner" or (exc.code == "no_corners" and corner):
        return no_such_corner(corner, names)
    if exc.code == "no_corners":
        return f"This session's track has no corners Pitwall knows, so no {what}."
    return None

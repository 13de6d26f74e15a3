"""How the command line names things for people: one lap-time format and one corner name everywhere
(``1:48.222``, ``Turn 11``), so the demo, ``pitwall sessions``, ``laps`` and the tablet agree."""

from __future__ import annotations

import math
from functools import cache


def lap_time(s: float | None) -> str:
    """``108.2224`` -> ``"1:48.222"``; missing -> ``"-"``."""
    if s is None or not math.isfinite(s):
        return "-"
    ms = round(s * 1000)
    m, rest = divmod(ms, 60_000)
    return f"{m}:{rest / 1000:06.3f}"


@cache
def _names(track_id: str) -> dict[str, str]:
    from shared.profiles.track import load_track

    try:
        return {c.id: c.name for c in load_track(track_id).corners}
    except (KeyError, ValueError, OSError):
        return {}


def corner_name(corner_id: str | None, track_id: str | None = None) -> str:
    """``"t11"`` -> ``"Turn 11"`` (the track profile's name when the track is known)."""
    if not corner_id:
        return "-"
    if track_id:
        name = _names(track_id).get(corner_id)
        if name:
            return name
    if corner_id[:1].lower() == "t" and corner_id[1:2].isdigit():
        return f"Turn {corner_id[1:].upper()}"
    return corner_id

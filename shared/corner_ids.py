"""The one spelling rule of a corner id (``"T3A"``, ``"t3a"``, ``"T 3a"`` -> ``"t3a"``), shared by the track
profiles and how Pitwall names corners (``shared.display``)."""

from __future__ import annotations

import re

CORNER_ID = re.compile(r"^\s*([tc])\s*(\d+)\s*([a-z]?)\s*$", re.IGNORECASE)


def corner_id(text: str) -> str:
    """Any spelling of a corner id -> its stored form: ``"T3A"``, ``"t3a"``, ``"T 3a"`` -> ``"t3a"``;
    anything else is returned stripped (landmarks and names are matched elsewhere)."""
    m = CORNER_ID.match(text or "")
    if not m:
        return (text or "").strip()
    return f"{m.group(1).lower()}{int(m.group(2))}{m.group(3).lower()}"

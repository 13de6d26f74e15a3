"""The names a logger file gives its session: driver, car, track, championship.

AiM CSV header rows (``Racer``, ``Vehicle``, ``Session``/``Venue``, ``Championship``), XRK metadata via
libxrk (``Driver``, ``Vehicle``, ``Venue``, ``Series``) — both land in ``RawLog.meta`` as ``racer``,
``vehicle``, ``venue``, ``championship``. Race Studio writes GPS coordinates as the venue when it knows
no track (``23.077°N, 113.530°E``): that is not a name. Command-line flags override all of these.
"""

from __future__ import annotations

import re
from typing import Any

# "23.077°N, 113.530°E", "-33.8, 151.2": a position, not a place name
_COORDS = re.compile(
    r"[+-]?\d+(\.\d+)?\s*°?\s*[NSns]?\s*[,;]\s*[+-]?\d+(\.\d+)?\s*°?\s*[EWew]?"
    r"|[+-]?\d+(\.\d+)?\s*°\s*[NSEWnsew]?"
)
_MAX = 80


def clean_name(value: Any) -> str | None:
    """A printable, trimmed name (a kart's ``143`` included), or None when there is none."""
    if not isinstance(value, str | int) or isinstance(value, bool):
        return None
    s = "".join(ch if ch.isprintable() else " " for ch in str(value))
    s = " ".join(s.split())[:_MAX].strip()
    return s or None


def track_name(value: Any) -> str | None:
    """A venue's name; GPS coordinates (what Race Studio writes when it knows no track) are none."""
    s = clean_name(value)
    return None if s is None or _COORDS.fullmatch(s) else s


def file_names(meta: dict[str, Any]) -> dict[str, str | None]:
    """``driver``, ``car``, ``track``, ``championship`` as the file names them (None when it does not)."""
    return {
        "driver": clean_name(meta.get("racer") or meta.get("driver")),
        "car": clean_name(meta.get("vehicle")),
        "track": track_name(meta.get("venue") or meta.get("track")),
        "championship": clean_name(meta.get("championship")),
    }

"""The names a logger file gives its session: driver, car, track, championship.

AiM CSV header rows (``Racer``, ``Vehicle``, ``Session``/``Venue``, ``Championship``), XRK metadata via
libxrk (``Driver``, ``Vehicle``, ``Venue``, ``Series``) — both land in ``RawLog.meta`` as ``racer``,
``vehicle``, ``venue``, ``championship``. Race Studio writes GPS coordinates as the venue when it knows
no track (``23.077°N, 113.530°E``): that is not a name. Command-line flags override all of these.
"""

from __future__ import annotations

import re
from typing import Any

_COORDS = re.compile(r"[\d\s.,°'\"NSEWnsew+-]*")
_MAX = 80


def clean_name(value: Any) -> str | None:
    """A printable, trimmed name, or None when there is none (blank, or only coordinates)."""
    if not isinstance(value, str):
        return None
    s = "".join(ch if ch.isprintable() else " " for ch in value)
    s = " ".join(s.split())[:_MAX].strip()
    if not s or _COORDS.fullmatch(s):
        return None
    return s


def file_names(meta: dict[str, Any]) -> dict[str, str | None]:
    """``driver``, ``car``, ``track``, ``championship`` as the file names them (None when it does not)."""
    return {
        "driver": clean_name(meta.get("racer") or meta.get("driver")),
        "car": clean_name(meta.get("vehicle")),
        "track": clean_name(meta.get("venue") or meta.get("track")),
        "championship": clean_name(meta.get("championship")),
    }

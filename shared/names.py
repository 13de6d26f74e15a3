"""Names. Driver names: any Unicode name a person has ("Zoë Smith", "佐藤 健", "O'Brien", "🏁 Ana") is a valid
driver id everywhere. It is only ever a value (SQL parameter, JSON string, ADK user id), and where it must
become part of a file name it goes through :func:`file_stem`, which is injective and never a path.

The names a logger file gives its session (driver, car, track, championship): AiM CSV header rows
(``Racer``, ``Vehicle``, ``Session``/``Venue``, ``Championship``), XRK metadata via libxrk (``Driver``,
``Vehicle``, ``Venue``, ``Series``) — both land in ``RawLog.meta`` as ``racer``, ``vehicle``, ``venue``,
``championship``. Race Studio writes GPS coordinates as the venue when it knows no track
(``23.077°N, 113.530°E``): that is not a name. Command-line flags override all of these.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import AfterValidator, Field

MAX_LEN = 64
_PLAIN = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$")  # kept as is: the file names gold laps had


def check_name(name: object, what: str = "a name", max_len: int = MAX_LEN) -> str:
    """``name`` when it is a usable name: a string of 1-``max_len`` characters, not blank, no control
    characters; else ValueError saying which rule it breaks."""
    if not isinstance(name, str) or not name or len(name) > max_len:
        raise ValueError(f"{what} is 1-{max_len} characters")
    if not name.strip():
        raise ValueError(f"{what} cannot be blank")
    bad = [c for c in name if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")]
    if bad:
        raise ValueError(f"{what} cannot contain control characters ({ascii(''.join(bad))})")
    return name


def check_driver_id(name: str) -> str:
    """``name`` when it is a usable driver name: 1-64 characters, not blank, no control characters."""
    return check_name(name, "a driver name")


DriverId = Annotated[
    str,
    Field(
        min_length=1, max_length=MAX_LEN, description="the driver's name; any Unicode, no control characters"
    ),
    AfterValidator(check_driver_id),
]


def file_stem(name: str) -> str:
    """A file-name part for ``name``: plain ASCII names as they are, others percent-encoded (so no '/',
    no leading '.', and two names never share a file); very long encodings are cut and made unique with
    a hash. The result is 1-120 characters of ``[A-Za-z0-9_.%~-]``."""
    if _PLAIN.match(name):
        return name
    enc = quote(name, safe="").replace(".", "%2E")
    if len(enc) > 120:
        enc = f"{enc[:100]}%%{hashlib.sha256(name.encode()).hexdigest()[:16]}"
    return enc


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

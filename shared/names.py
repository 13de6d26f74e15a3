"""Driver names: any Unicode name a person has ("Zoë Smith", "佐藤 健", "O'Brien", "🏁 Ana") is a valid
driver id everywhere. It is only ever a value (SQL parameter, JSON string, ADK user id), and where it must
become part of a file name it goes through :func:`file_stem`, which is injective and never a path."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Annotated
from urllib.parse import quote

from pydantic import AfterValidator, Field

MAX_LEN = 64
_PLAIN = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$")  # kept as is: the file names gold laps had


def check_driver_id(name: str) -> str:
    """``name`` when it is a usable driver name: 1-64 characters, not blank, no control characters."""
    if not name or len(name) > MAX_LEN:
        raise ValueError(f"a driver name is 1-{MAX_LEN} characters")
    if not name.strip():
        raise ValueError("a driver name cannot be blank")
    bad = [c for c in name if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")]
    if bad:
        raise ValueError(f"a driver name cannot contain control characters ({ascii(''.join(bad))})")
    return name


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

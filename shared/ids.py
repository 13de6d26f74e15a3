"""Ids: the one pattern every session, track and car id passes before it names anything.

An id is 1-80 characters of ``[A-Za-z0-9_.-]`` that does not start with a dot: never a path (no ``/``,
no ``..``, nothing absolute), never control bytes, never empty. Routes (``ID_PATTERN`` in a pydantic
field or query), command-line arguments and a bundle's contents all check ids here. Driver names are
not ids (any Unicode name, :mod:`shared.names`); where one names a file it goes through
:func:`shared.names.file_stem`.
"""

from __future__ import annotations

import re

ID_MAX = 80
ID_BODY = rf"[A-Za-z0-9_-][A-Za-z0-9_.-]{{0,{ID_MAX - 1}}}"
ID_PATTERN = rf"^{ID_BODY}$"  # ID_BODY inside larger patterns; this for pydantic / FastAPI (its regex: '$' is the end of the text)
_ID = re.compile(ID_BODY)  # used with fullmatch: a trailing newline is not an id either


class BadIdError(ValueError):
    """A value that is not an id: the message names what it was meant to be and why it is not one."""


def is_id(value: object) -> bool:
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def check_id(value: object, what: str = "id") -> str:
    """``value`` when it is an id; else :class:`BadIdError` saying what was wrong (shown safely)."""
    if is_id(value):
        return str(value)
    shown = ascii(value)
    if len(shown) > 60:
        shown = shown[:60] + "…"
    raise BadIdError(
        f"{what} {shown} is not an id: 1-{ID_MAX} letters, digits, '_', '-' or '.', not starting with '.'"
    )

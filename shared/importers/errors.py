"""The one error type importers raise: it names the file, where in it, and what was expected."""

from __future__ import annotations

import re
from pathlib import Path

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def printable(text: str, limit: int = 160) -> str:
    """File content made safe for a terminal: control characters (NUL, ESC, …) shown as ``\\xNN``."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if len(text) <= limit else text[:limit] + "…"


class ImportFormatError(ValueError):
    def __init__(self, path: Path | str, location: str, expected: str, found: str = "") -> None:
        self.path = Path(path)
        self.location = location
        self.expected = expected
        self.found = found
        where = f" at {location}" if location else ""
        got = f"; found {printable(found, 200)}" if found else ""
        # file content never reaches a terminal raw
        super().__init__(f"{printable(str(self.path), 300)}{where}: expected {printable(expected, 200)}{got}")

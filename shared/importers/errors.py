"""The one error type importers raise: it names the file, where in it, and what was expected."""

from __future__ import annotations

from pathlib import Path


class ImportFormatError(ValueError):
    def __init__(self, path: Path | str, location: str, expected: str, found: str = "") -> None:
        self.path = Path(path)
        self.location = location
        self.expected = expected
        self.found = found
        from shared.importers.limits import printable  # file content never reaches a terminal raw

        where = f" at {location}" if location else ""
        got = f"; found {printable(found, 200)}" if found else ""
        super().__init__(f"{printable(str(self.path), 300)}{where}: expected {printable(expected, 200)}{got}")

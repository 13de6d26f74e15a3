"""The import guards one by one (in process): error text, CSV line location, the decompression cap."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from shared.importers.errors import ImportFormatError
from shared.importers.limits import ImportLimitError, first_bad_csv_line, inflate, limits_scope, printable
from shared.settings import settings_for


def test_error_text_never_carries_control_bytes() -> None:
    exc = ImportFormatError(Path("/x/a\x1b]0;b.csv"), "line 3", "a number\x07", "\x00\x1b[31mboom\r")
    text = str(exc)
    assert not any(ord(ch) < 32 for ch in text), repr(text)
    assert "\\x00" in text and "\\x1b" in text and "line 3" in text
    assert printable("a\tb\nc") == "a\tb\\x0ac"


def test_first_bad_csv_line_counts_from_the_top_of_the_file() -> None:
    head = ['"Format","AiM CSV File"', "", '"Time","A","B"', '"s","u","v"']
    rows = [f'"{i}","1","2"' for i in range(10)]
    start = len(head)
    lines = head + rows
    assert first_bad_csv_line(lines[:-1] + ['"9","1"'], start, 3, ",").startswith(f"line {len(lines)}")
    assert "cut short" in first_bad_csv_line(lines[:-1] + ['"9","1"'], start, 3, ",")
    mid = lines.copy()
    mid[start + 4] = '"4","x","2"'
    assert first_bad_csv_line(mid, start, 3, ",") == f"line {start + 5}"
    wide = lines.copy()
    wide[start + 2] = '"2","1","2","3"'
    assert first_bad_csv_line(wide, start, 3, ",") == f"line {start + 3}"
    short = lines.copy()
    short[start + 1] = '"1","1"'
    assert first_bad_csv_line(short, start, 3, ",") == f"line {start + 2}"


def test_inflate_caps_and_names_the_setting(tmp_path: Path) -> None:
    s = settings_for(tmp_path, import_max_decompressed_bytes=2**20)
    p = tmp_path / "bomb.xrz"
    with limits_scope(s):
        assert inflate(p, zlib.compress(b"a" * 2**20)) == b"a" * 2**20
        with pytest.raises(ImportLimitError) as ei:
            inflate(p, zlib.compress(b"a" * (2**20 + 1)))
        assert "PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES" in str(ei.value) and str(p) in str(ei.value)
        with pytest.raises(ImportFormatError, match="truncated"):
            inflate(p, zlib.compress(b"abc" * 1000)[:20])
        with pytest.raises(ImportFormatError, match="zlib"):
            inflate(p, b"\x78\x9c" + b"\xff" * 50)

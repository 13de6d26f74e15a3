"""Importers: the format is sniffed from the file's content, never from its extension."""

from __future__ import annotations

import re
from pathlib import Path

from shared.importers.base import Progress, RawChannel, RawLog
from shared.importers.errors import ImportFormatError

__all__ = ["ImportFormatError", "RawChannel", "RawLog", "read_log", "sniff_format"]

_CANDUMP_RE = re.compile(
    rb"^\s*(\(\d+\.\d+\)\s+\S+\s+[0-9A-Fa-f]{3,8}#[0-9A-Fa-f]*|\S+\s+[0-9A-Fa-f]{3,8}\s+\[\d\])"
)


def sniff_format(path: Path) -> str:
    from shared.importers.limits import checked_path

    path = checked_path(path)  # a directory, FIFO, device, symlink loop or oversized file is named as such
    with path.open("rb") as fh:
        head = fh.read(8192)
    if not head.strip():
        raise ImportFormatError(
            path, "byte 0", "a logger file (AiM XRK/XRZ/CSV, VBOX CSV/.vbo, candump)", "empty file"
        )
    from shared.importers.aim_csv import sniff_delimiter
    from shared.importers.aim_xrk import XRK_MAGIC
    from shared.importers.vbox import looks_like_vbox_csv

    if head.startswith(XRK_MAGIC):
        return "aim_xrk"
    if head[:2] in (b"\x78\x9c", b"\x78\x01", b"\x78\xda", b"\x78\x5e"):
        return "aim_xrz"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    first = text.splitlines()[0] if text.splitlines() else ""
    if sniff_delimiter(first) is not None:
        return "aim_csv"
    if looks_like_vbox_csv(first):
        return "vbox_csv"
    if first.lower().startswith("file created on") or "[header]" in text.lower():
        return "vbo"
    if _CANDUMP_RE.match(head.lstrip(b"\xef\xbb\xbf")):
        return "candump"
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in head) / len(head)
    kind = "text" if printable > 0.95 else "binary data"
    raise ImportFormatError(
        path,
        "byte 0",
        "an AiM XRK/XRZ, AiM CSV, VBOX CSV/.vbo or candump log",
        f"unrecognised {kind} {head[:24]!r}",
    )


def read_log(path: Path | str, progress: Progress | None = None, car_id: str | None = None) -> RawLog:
    """Read any supported logger file into a :class:`RawLog` (source channels, unmapped), within the
    import limits (:mod:`shared.importers.limits`)."""
    from shared.importers.limits import check_raw, read_scope

    with read_scope():  # one time budget per read, also outside an import (pitwall replay)
        return check_raw(_read_log(Path(path), progress, car_id))


def _read_log(path: Path, progress: Progress | None, car_id: str | None) -> RawLog:
    fmt = sniff_format(path)
    if fmt in ("aim_xrk", "aim_xrz"):
        from shared.importers.aim_xrk import read_xrk

        return read_xrk(path, progress)
    if fmt == "aim_csv":
        from shared.importers.aim_csv import read_aim_csv

        return read_aim_csv(path, progress)
    if fmt == "vbox_csv":
        from shared.importers.vbox import read_vbox_csv

        return read_vbox_csv(path, progress)
    if fmt == "vbo":
        from shared.importers.vbox import read_vbo

        return read_vbo(path, progress)
    from shared.importers.candump import read_candump_log

    return read_candump_log(path, car_id or "bmw_e46_m3_aim_mxp", progress)

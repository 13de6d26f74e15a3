"""AiM XRK / XRZ logger files, read with ``libxrk``. Channels keep their native timestamps and rates."""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import logging
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from shared.importers.base import Progress, RawChannel, RawLog, estimate_rate, file_sha256
from shared.importers.errors import ImportFormatError
from shared.importers.limits import printable

XRK_MAGIC = b"<hCNF"
XRZ_MAGICS = (b"\x78\x9c", b"\x78\x01", b"\x78\xda", b"\x78\x5e")  # zlib headers

log = logging.getLogger(__name__)
_FD_LOCK = threading.Lock()


# a Python bytes literal a library prints (libxrk: "Unknown units[100] for b'Master Clk\x00\x00...'")
_BYTES_REPR = re.compile(r"""\bb(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")""")


def decoded(line: str) -> str:
    """A library's line as a driver reads it: each bytes literal as its text (NUL padding dropped,
    quoted), any other control character shown as ``\\xNN``."""

    def text(m: re.Match[str]) -> str:
        try:
            raw = ast.literal_eval(m.group(0))
        except (ValueError, SyntaxError):
            return m.group(0)
        return "'" + raw.split(b"\x00", 1)[0].decode("utf-8", errors="replace").strip() + "'"

    return printable(_BYTES_REPR.sub(text, line), 300)


@contextlib.contextmanager
def parser_output_to_log(what: str) -> Iterator[None]:
    """Whatever a parsing library prints, from Python or from native code straight to file
    descriptor 1, goes to the log (INFO: heard with ``pitwall -v``), decoded, so stdout stays one clean
    JSON document and a default import prints only Pitwall's own words."""
    py_out = io.StringIO()
    with _FD_LOCK, tempfile.TemporaryFile() as tmp:
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            os.dup2(tmp.fileno(), 1)
            with contextlib.redirect_stdout(py_out):
                yield
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            native = tmp.read().decode("utf-8", errors="replace")
            for line in (py_out.getvalue() + native).splitlines():
                if line.strip():
                    log.info("%s: %s", what, decoded(line.strip()))


def display_name(xrk_name: str) -> str:
    """XRK channel names use underscores where Race Studio's CSV export shows spaces."""
    return xrk_name.replace("_", " ")


def _parse(data: bytes, name: str) -> tuple[dict[str, RawChannel], list[str], Any, dict[str, Any]]:
    """libxrk's parse of XRK bytes as plain picklable values (runs in a bounded child process); what the
    library prints goes to the log, never to stdout."""
    from libxrk import aim_xrk

    with parser_output_to_log(f"libxrk reading {name}"):
        xlog = aim_xrk(data)
    channels: dict[str, RawChannel] = {}
    empty: list[str] = []
    for cname, table in (xlog.channels or {}).items():
        if table.num_rows == 0:
            empty.append(display_name(cname))
            continue
        tc = table.column(0).to_numpy().astype(np.float64) / 1000.0
        vals = table.column(1).to_numpy(zero_copy_only=False).astype(np.float64)
        field = table.schema.field(1)
        md = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
        dname = display_name(cname)
        channels[dname] = RawChannel(
            dname, md.get("units", ""), tc, vals, estimate_rate(tc), "aim_xrk", md.get("function", "")
        )
    return channels, empty, _lap_table(xlog.laps), dict(xlog.metadata or {})


def read_xrk(path: Path, progress: Progress | None = None) -> RawLog:
    import libxrk  # noqa: F401  heavy import, only when an XRK is read (before the fork: the child has it)

    from shared.importers.limits import checked_path, inflate, printable, run_bounded

    data = checked_path(path).read_bytes()
    xrz = data[:2] in XRZ_MAGICS
    if xrz:
        data = inflate(path, data)
    if not data.startswith(XRK_MAGIC):  # checked before parsing: libxrk takes minutes over junk
        what = "the XRZ's inflated content" if xrz else "the file"
        raise ImportFormatError(
            path,
            "byte 0",
            f"an AiM XRK header ({XRK_MAGIC!r})",
            f"{what} starts {printable(repr(data[:12]))}",
        )
    try:
        channels, empty, (beacons, logger_laps), lmd = run_bounded(
            path, functools.partial(_parse, name=path.name), data
        )
    except ImportFormatError:
        raise
    except Exception as exc:  # libxrk raises assorted errors on corrupt input
        raise ImportFormatError(
            path, "", "a readable AiM XRK/XRZ file", printable(f"{type(exc).__name__}: {exc}")
        ) from exc
    if progress:
        progress(1.0)
    if not channels:
        raise ImportFormatError(path, "", "at least one channel in the XRK", "none")
    meta: dict[str, Any] = {
        "venue": lmd.get("Venue", ""),
        "vehicle": lmd.get("Vehicle", ""),
        "racer": lmd.get("Driver", ""),
        "championship": lmd.get("Series", ""),
        "session": lmd.get("Session", ""),
        "date": lmd.get("Log Date", ""),
        "time": lmd.get("Log Time", ""),
        "logger_id": lmd.get("Logger ID"),
        "device": lmd.get("Device Name", ""),
        "logger_laps": logger_laps,
        "empty_channels": empty,
        # the logger writes its lap messages last: without them the file was cut short (or a
        # corrupt block stopped the reader) and the session went on past the data
        "file_complete": bool(logger_laps),
        "declared_duration_s": max((r["end_s"] for r in logger_laps), default=None),
    }
    started = None
    try:
        started = datetime.strptime(f"{meta['date']} {meta['time']}", "%m/%d/%Y %H:%M:%S")
    except (ValueError, TypeError):
        started = None
    return RawLog("aim_xrk", path, file_sha256(path), meta, channels, beacons, started)


def _lap_table(laps: Any) -> tuple[list[float] | None, list[dict[str, Any]]]:
    """The logger's own lap table: every lap start and end is a boundary (so the first lap is not
    stretched back to the start of the recording), and each lap's start, end and libxrk type."""
    if laps is None or not laps.num_rows:
        return None, []
    starts = laps.column("start_time").to_numpy().astype(np.float64) / 1000.0
    ends = laps.column("end_time").to_numpy().astype(np.float64) / 1000.0
    kinds = [str(k) for k in laps.column("lap_type").to_pylist()]
    rows = [
        {"start_s": round(float(a), 3), "end_s": round(float(b), 3), "kind": k}
        for a, b, k in zip(starts, ends, kinds, strict=True)
    ]
    bounds = [round(float(x), 3) for x in ends if x > 0]
    # a lap start that is not (within the table's ms rounding) the previous lap's end is a crossing too
    bounds += [round(float(a), 3) for a in starts if a > 0 and all(abs(a - b) > 0.5 for b in ends)]
    return sorted(set(bounds)), rows

"""AiM Race Studio "AiM CSV File" exports (RS3 quoted/LF and MyChron unquoted/CRLF/padded layouts)."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from shared.importers.base import Progress, RawChannel, RawLog, file_sha256
from shared.importers.errors import ImportFormatError

SIGNATURE = ["Format", "AiM CSV File"]
_LIST_KEYS = {"Beacon Markers", "Segment Times"}


def _decode(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    return text.lstrip("\ufeff")


def sniff_delimiter(first_line: str) -> str | None:
    for delim in (",", ";", "\t"):
        cells = next(csv.reader([first_line], delimiter=delim), [])
        cells = [c.strip() for c in cells]
        while cells and cells[-1] == "":
            cells.pop()
        if cells[:2] == SIGNATURE:
            return delim
    return None


def parse_lap_time(text: str) -> float:
    """``m:ss.sss`` (or ``h:mm:ss.sss`` or plain seconds) to seconds."""
    parts = text.strip().split(":")
    total = 0.0
    for p in parts:
        total = total * 60 + float(p)
    return total


def _parse_started_at(date: str | None, time: str | None) -> datetime | None:
    if not date:
        return None
    for dfmt in ("%A, %B %d, %Y", "%m/%d/%Y", "%d/%m/%Y", "%Y-%m-%d"):
        for tfmt in ("%I:%M %p", "%H:%M:%S", "%H:%M", "%I:%M:%S %p"):
            try:
                return datetime.strptime(f"{date} {time or '00:00'}", f"{dfmt} {tfmt}")
            except ValueError:
                continue
    return None


def read_aim_csv(path: Path, progress: Progress | None = None) -> RawLog:
    raw = path.read_bytes()
    if not raw.strip():
        raise ImportFormatError(path, "byte 0", "an AiM CSV export", "an empty file")
    text = _decode(raw)
    lines = text.splitlines()
    delim = sniff_delimiter(lines[0])
    if delim is None:
        raise ImportFormatError(path, "line 1", '"Format","AiM CSV File"', repr(lines[0][:60]))

    header: dict[str, Any] = {}
    i = 0
    rows = csv.reader(lines, delimiter=delim)
    names: list[str] | None = None
    units: list[str] | None = None
    data_start = None
    in_header = True
    for i, cells in enumerate(rows):
        cells = [c.strip() for c in cells]
        while cells and cells[-1] == "":
            cells.pop()
        if names is None:
            if not cells:
                in_header = False
                continue
            if not in_header or (cells[0] == "Time" and len(cells) > 2):
                if cells[0] != "Time":
                    raise ImportFormatError(
                        path, f"line {i + 1}", 'a channel-name row starting with "Time"', repr(cells[0][:40])
                    )
                names = cells
                continue
            key = cells[0]
            vals = cells[1:]
            # an unquoted value with commas ("23.077°N, 113.530°E") spans cells: join them back
            header[key] = vals if key in _LIST_KEYS else ", ".join(v for v in vals if v)
            continue
        if units is None:
            if not cells:
                continue
            try:
                float(cells[0])
            except ValueError:
                units = cells
                continue
            units = [""] * len(names)
            data_start = i
            break
        if not cells:
            continue
        data_start = i
        break
    if names is None:
        raise ImportFormatError(path, f"line {i + 1}", 'a channel-name row starting with "Time"')
    if data_start is None:
        raise ImportFormatError(path, f"line {i + 1}", "data rows after the units row", "end of file")

    assert units is not None
    n = len(names)
    body = "\n".join(lines[data_start:]).encode("utf-8")
    col_names = [f"c{k}" for k in range(n)]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(column_names=col_names, use_threads=True),
            parse_options=pacsv.ParseOptions(
                delimiter=delim,
                invalid_row_handler=lambda row: "skip" if not row.text.strip(delim + '" \r') else "error",
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.float64() for c in col_names},
                include_columns=col_names,
                quoted_strings_can_be_null=True,
                strings_can_be_null=True,
            ),
        )
    except (pa.ArrowInvalid, ValueError) as exc:
        msg = str(exc)
        from shared.importers.limits import first_bad_csv_line

        where = first_bad_csv_line(lines, data_start, n, delim)
        raise ImportFormatError(
            path, where, f"{n} numeric cells per data row", msg.splitlines()[0][:160]
        ) from exc
    if table.num_rows == 0:
        raise ImportFormatError(path, f"line {data_start + 1}", "at least one data row", "none")
    if progress:
        progress(1.0)

    cols = [table.column(k).to_numpy(zero_copy_only=False).astype(np.float64) for k in range(n)]
    t = cols[0]
    if np.isnan(t).any():
        bad = int(np.argmax(np.isnan(t)))
        raise ImportFormatError(path, f"line {data_start + bad + 1}", "a Time value in the first column")
    if len(t) > 1 and np.any(np.diff(t) <= 0):
        bad = int(np.argmax(np.diff(t) <= 0)) + 1
        raise ImportFormatError(path, f"line {data_start + bad + 1}", "increasing Time values", f"{t[bad]}")

    rate = None
    try:
        rate = float(header.get("Sample Rate", "") or 0) or None
    except ValueError:
        rate = None
    channels: dict[str, RawChannel] = {}
    for k in range(1, n):
        name = names[k]
        if not name:
            name = f"col_{k}"
        unit = (units[k] if k < len(units) else "").strip()
        channels[name] = RawChannel(name, unit, t, cols[k], rate, "aim_csv")

    beacons = None
    seg = header.get("Segment Times")
    if isinstance(seg, list) and seg:
        try:
            beacons = [float(x) for x in np.round(np.cumsum([parse_lap_time(s) for s in seg if s]), 3)]
        except ValueError as exc:
            raise ImportFormatError(path, "Segment Times row", "m:ss.sss durations", str(seg)[:80]) from exc
    elif isinstance(header.get("Beacon Markers"), list):
        beacons = [float(x) for x in header["Beacon Markers"] if x]

    venue = header.get("Session") or header.get("Venue") or ""
    meta: dict[str, Any] = {
        "venue": venue,
        "vehicle": header.get("Vehicle", ""),
        "racer": header.get("Racer", ""),
        "championship": header.get("Championship", ""),
        "comment": header.get("Comment", ""),
        "date": header.get("Date", ""),
        "time": header.get("Time", ""),
        "sample_rate_hz": rate,
        "duration_s": header.get("Duration", ""),
        "beacon_markers": header.get("Beacon Markers", []),
        "segment_times": header.get("Segment Times", []),
    }
    return RawLog(
        source_format="aim_csv",
        path=path,
        sha256=file_sha256(path),
        meta=meta,
        channels=channels,
        beacons_s=beacons,
        started_at=_parse_started_at(meta["date"], meta["time"]),
    )

"""Racelogic VBOX data: the CSV export (``Name (unit)`` header) and the native ``.vbo`` text format."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from shared.importers.base import Progress, RawChannel, RawLog, estimate_rate, file_sha256
from shared.importers.errors import ImportFormatError

_HEADER_RE = re.compile(r"^(?P<name>.*?)\s*\((?P<unit>[^()]*(?:\([^()]*\))?[^()]*)\)\s*$")
_DM_RE = re.compile(r"^\s*(?P<deg>\d+)\s*°\s*(?P<min>\d+(?:\.\d+)?)\s*(?P<hemi>[NSEW])\s*$")
VBOX_CSV_MARKERS = ("Satellites", "Latitude", "Longitude")


def split_name_unit(header: str) -> tuple[str, str]:
    m = _HEADER_RE.match(header.strip())
    if not m:
        return header.strip(), ""
    unit = m.group("unit").strip()
    if unit == "(null)":
        unit = ""
    return m.group("name").strip(), unit


def parse_dm(value: str) -> float:
    """``38°9.631176 N`` → 38.1605196; west and south are negative."""
    m = _DM_RE.match(value)
    if not m:
        raise ValueError(value)
    deg = float(m.group("deg")) + float(m.group("min")) / 60.0
    return -deg if m.group("hemi") in "SW" else deg


def _parse_dm_column(values: list[str | None], path: Path, first_line: int, name: str) -> np.ndarray:
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        if v is None or v == "":
            continue
        try:
            out[i] = parse_dm(v)
        except ValueError:
            raise ImportFormatError(
                path,
                f"line {first_line + i}",
                f"{name} as degrees and decimal minutes like 38°9.631176 N",
                repr(v),
            ) from None
    return out


def _hhmmss_to_s(x: np.ndarray) -> np.ndarray:
    hh = np.floor(x / 10000)
    mm = np.floor((x - hh * 10000) / 100)
    ss = x - hh * 10000 - mm * 100
    return hh * 3600 + mm * 60 + ss


def looks_like_vbox_csv(first_line: str) -> bool:
    cells = [c.strip() for c in first_line.lstrip("\ufeff").split(",")]
    return len(cells) > 5 and all(any(c.startswith(m) for c in cells) for m in VBOX_CSV_MARKERS)


def read_vbox_csv(path: Path, progress: Progress | None = None) -> RawLog:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    first_nl = text.find("\n")
    header_line = text[: first_nl if first_nl >= 0 else len(text)].rstrip("\r")
    headers = [h for h in header_line.split(",")]
    while headers and not headers[-1].strip():
        headers.pop()
    if not looks_like_vbox_csv(header_line):
        raise ImportFormatError(path, "line 1", "a VBOX CSV header with Satellites, Latitude and Longitude")
    body = text[first_nl + 1 :].encode("utf-8") if first_nl >= 0 else b""
    if not body.strip():
        raise ImportFormatError(path, "line 2", "VBOX data rows", "none")
    names = [f"c{i}" for i in range(len(headers))]
    lat_i = next(i for i, h in enumerate(headers) if h.startswith("Latitude"))
    lon_i = next(i for i, h in enumerate(headers) if h.startswith("Longitude"))
    types: dict[str, pa.DataType] = {n: pa.float64() for n in names}
    types[names[lat_i]] = pa.string()
    types[names[lon_i]] = pa.string()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(
                invalid_row_handler=lambda row: "skip" if not row.text.strip(", \r") else "error"
            ),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=names),
        )
    except (pa.ArrowInvalid, ValueError) as exc:
        msg = str(exc).splitlines()[0]
        m = re.search(r"[Rr]ow #?(\d+)", msg)
        where = f"line {int(m.group(1)) + 1}" if m else "after line 1"
        raise ImportFormatError(
            path, where, f"{len(headers)} comma-separated numeric cells", msg[:160]
        ) from exc
    if progress:
        progress(1.0)
    n = table.num_rows
    lat = _parse_dm_column(table.column(lat_i).to_pylist(), path, 2, "Latitude")
    lon = _parse_dm_column(table.column(lon_i).to_pylist(), path, 2, "Longitude")

    cols: dict[int, np.ndarray] = {}
    for i in range(len(headers)):
        if i in (lat_i, lon_i):
            continue
        cols[i] = table.column(i).to_numpy(zero_copy_only=False).astype(np.float64)
    time_i = next((i for i, h in enumerate(headers) if h.lower().startswith("utc time")), None)
    elapsed_i = next((i for i, h in enumerate(headers) if h.lower().startswith("elapsed time")), None)
    if elapsed_i is not None and not np.isnan(cols[elapsed_i]).any():
        t = cols[elapsed_i] - cols[elapsed_i][0]
    elif time_i is not None:
        utc = _hhmmss_to_s(cols[time_i])
        utc = np.where(utc < utc[0] - 43200, utc + 86400, utc)  # past midnight
        t = utc - utc[0]
    else:
        raise ImportFormatError(path, "line 1", "a UTC time or Elapsed time column")
    if n > 1 and np.any(np.diff(t) < 0):
        bad = int(np.argmax(np.diff(t) < 0)) + 1
        raise ImportFormatError(path, f"line {bad + 2}", "non-decreasing sample times", f"{t[bad]:.3f} s")
    rate = estimate_rate(t)
    channels: dict[str, RawChannel] = {}
    for i, h in enumerate(headers):
        name, unit = split_name_unit(h)
        if i == lat_i:
            channels[name] = RawChannel(name, "deg", t, lat, rate, "vbox")
            continue
        if i == lon_i:
            channels[name] = RawChannel(name, "deg", t, lon, rate, "vbox")
            continue
        channels[name] = RawChannel(name, unit, t, cols[i], rate, "vbox")
    meta: dict[str, Any] = {"sample_rate_hz": rate, "rows": n, "columns": len(headers)}
    if time_i is not None:
        meta["utc_start_hhmmss"] = float(cols[time_i][0])
    return RawLog("vbox_csv", path, file_sha256(path), meta, channels, None, None)


def read_vbo(path: Path, progress: Progress | None = None) -> RawLog:
    """Racelogic ``.vbo``: ``[header]`` channel list, ``[column names]``, ``[data]`` rows separated by spaces.

    Latitude/longitude are in minutes (positive = north / **west**), time is ``HHMMSS.ss`` UTC.
    """
    text = path.read_bytes().decode("latin-1")
    section = ""
    colnames: list[str] = []
    header_names: list[str] = []
    data_lines: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1].strip().lower()
            continue
        if section == "header":
            header_names.append(s)
        elif section == "column names":
            colnames = s.split()
        elif section == "data":
            data_lines.append((lineno, s))
    if not colnames:
        raise ImportFormatError(path, "", "a [column names] section")
    if not data_lines:
        raise ImportFormatError(path, "", "a [data] section with rows")
    ncol = len(colnames)
    arr = np.full((len(data_lines), ncol), np.nan)
    for r, (lineno, s) in enumerate(data_lines):
        parts = s.split()
        if len(parts) != ncol:
            raise ImportFormatError(path, f"line {lineno}", f"{ncol} space-separated values", f"{len(parts)}")
        try:
            arr[r] = [float(p.replace("+", "")) if p not in ("", "-") else np.nan for p in parts]
        except ValueError:
            raise ImportFormatError(path, f"line {lineno}", "numeric values", s[:60]) from None
    if progress:
        progress(1.0)
    lower = [c.lower() for c in colnames]
    if "time" not in lower:
        raise ImportFormatError(path, "[column names]", "a time column")
    utc = _hhmmss_to_s(arr[:, lower.index("time")])
    utc = np.where(utc < utc[0] - 43200, utc + 86400, utc)
    t = utc - utc[0]
    rate = estimate_rate(t)
    channels: dict[str, RawChannel] = {}
    units = {"velocity": "km/h", "height": "m", "heading": "deg", "lat": "deg", "long": "deg", "sats": ""}
    for j, c in enumerate(colnames):
        v = arr[:, j]
        lc = c.lower()
        if lc == "lat":
            v = v / 60.0
        elif lc == "long":
            v = -v / 60.0  # VBO longitude: minutes, positive west
        channels[c] = RawChannel(c, units.get(lc, ""), t, v, rate, "vbo")
    return RawLog("vbo", path, file_sha256(path), {"sample_rate_hz": rate, "header": header_names}, channels)

"""AiM XRK / XRZ logger files, read with ``libxrk``. Channels keep their native timestamps and rates."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from shared.importers.base import Progress, RawChannel, RawLog, estimate_rate, file_sha256
from shared.importers.errors import ImportFormatError

XRK_MAGIC = b"<hCNF"
XRZ_MAGICS = (b"\x78\x9c", b"\x78\x01", b"\x78\xda", b"\x78\x5e")  # zlib headers


def display_name(xrk_name: str) -> str:
    """XRK channel names use underscores where Race Studio's CSV export shows spaces."""
    return xrk_name.replace("_", " ")


def _parse(data: bytes) -> tuple[dict[str, RawChannel], list[float] | None, dict[str, Any]]:
    """libxrk's parse of XRK bytes, as plain picklable values (runs in a bounded child process)."""
    from libxrk import aim_xrk

    log = aim_xrk(data)
    channels: dict[str, RawChannel] = {}
    for name, table in (log.channels or {}).items():
        if table.num_rows == 0:
            continue
        tc = table.column(0).to_numpy().astype(np.float64) / 1000.0
        vals = table.column(1).to_numpy(zero_copy_only=False).astype(np.float64)
        field = table.schema.field(1)
        md = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
        dname = display_name(name)
        channels[dname] = RawChannel(dname, md.get("units", ""), tc, vals, estimate_rate(tc), "aim_xrk")
    beacons = None
    if log.laps is not None and log.laps.num_rows:
        ends = log.laps.column("end_time").to_numpy().astype(np.float64) / 1000.0
        beacons = [float(x) for x in ends]
    return channels, beacons, dict(log.metadata or {})


def read_xrk(path: Path, progress: Progress | None = None) -> RawLog:
    import libxrk  # noqa: F401  heavy import, only when an XRK is read (before the fork: the child has it)

    from shared.importers.limits import checked_path, inflate, printable, run_bounded

    data = checked_path(path).read_bytes()
    if data[:2] in XRZ_MAGICS:
        data = inflate(path, data)
    try:
        channels, beacons, lmd = run_bounded(path, _parse, data)
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
    }
    started = None
    try:
        started = datetime.strptime(f"{meta['date']} {meta['time']}", "%m/%d/%Y %H:%M:%S")
    except (ValueError, TypeError):
        started = None
    return RawLog("aim_xrk", path, file_sha256(path), meta, channels, beacons, started)

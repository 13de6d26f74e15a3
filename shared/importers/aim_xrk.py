"""AiM XRK / XRZ logger files, read with ``libxrk``. Channels keep their native timestamps and rates."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from shared.importers.base import Progress, RawChannel, RawLog, estimate_rate, file_sha256
from shared.importers.errors import ImportFormatError

XRK_MAGIC = b"<hCNF"


def display_name(xrk_name: str) -> str:
    """XRK channel names use underscores where Race Studio's CSV export shows spaces."""
    return xrk_name.replace("_", " ")


def read_xrk(path: Path, progress: Progress | None = None) -> RawLog:
    from libxrk import aim_xrk  # heavy import, only when an XRK is read

    cb = (lambda done, total: progress(done / total if total else 1.0)) if progress else None
    try:
        log = aim_xrk(str(path), progress=cb)
    except Exception as exc:  # libxrk raises assorted errors on corrupt input
        raise ImportFormatError(
            path, "", "a readable AiM XRK/XRZ file", f"{type(exc).__name__}: {exc}"
        ) from exc
    if not log.channels:
        raise ImportFormatError(path, "", "at least one channel in the XRK", "none")
    channels: dict[str, RawChannel] = {}
    for name, table in log.channels.items():
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
    lmd: dict[str, Any] = dict(log.metadata or {})
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

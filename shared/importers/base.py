"""What every importer returns: the source channels as they are in the file, plus its header facts."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

Progress = Callable[[float], None]


@dataclass
class RawChannel:
    name: str  # as in the source (display name, DBC signal name, VBOX header)
    unit: str
    t_s: np.ndarray  # float64 seconds since the first sample of the log
    values: np.ndarray  # float64; sentinels still present (the car profile drops them)
    rate_hz: float | None
    source: str  # "aim_csv", "aim_xrk", "vbox", "candump:0x420", ...
    function: str = ""  # what the file says the channel measures (an XRK/XRZ channel's function), if it says


@dataclass
class RawLog:
    source_format: str  # aim_xrk | aim_csv | vbox_csv | vbo | candump
    path: Path
    sha256: str
    meta: dict[str, Any] = field(default_factory=dict)
    channels: dict[str, RawChannel] = field(default_factory=dict)
    beacons_s: list[float] | None = None  # cumulative lap-boundary times, exact when available
    started_at: datetime | None = None

    @property
    def duration_s(self) -> float:
        ends = [float(c.t_s[-1]) for c in self.channels.values() if len(c.t_s)]
        return max(ends) if ends else 0.0


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def estimate_rate(t_s: np.ndarray) -> float | None:
    if len(t_s) < 2:
        return None
    dt = np.diff(t_s)
    dt = dt[dt > 0]
    if not len(dt):
        return None
    return float(round(1.0 / float(np.median(dt)), 3))

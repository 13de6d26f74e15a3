"""What an import makes of a wide session: its laps, lap distance, corners and events (``analyse``), and the
session and lap rows the store keeps (the best valid full lap marked)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.corners import auto_corners, corner_results
from shared.event_detect import detect_events
from shared.laps import Lap
from shared.laps_recorded import assign_laps, detect_laps
from shared.profiles.car import CarProfile
from shared.profiles.track import TrackProfile
from shared.signals import MutableWide, Wide


@dataclass
class Analysed:
    wide: Wide
    laps: list[Lap]
    track: TrackProfile | None
    corners: list[dict[str, Any]]
    events: list[dict[str, Any]]


def analyse(
    wide: MutableWide,
    car: CarProfile,
    track: TrackProfile | None,
    beacons: list[float] | None,
    off_line_s: list[float] | None = None,
    alarms: Mapping[str, np.ndarray] | None = None,
) -> Analysed:
    """Laps, lap distance, corners and events for a wide session (in place on ``wide``); ``alarms``: the
    file's alarm channels on the session's time grid (``shared.alarms.alarm_signals``)."""
    laps = detect_laps(wide, track, beacons, off_line_s)
    assign_laps(wide, laps, track)
    corner_defs = track.corners if track is not None else auto_corners(wide, laps)
    corners = corner_results(wide, laps, corner_defs)
    events = detect_events(wide, corner_defs, car.thresholds, alarms)
    return Analysed(wide, laps, track, corners, events)


def session_row(
    sid: str,
    driver_id: str,
    car: CarProfile,
    track: TrackProfile | None,
    source_format: str,
    laps: list[Lap],
    wide: Wide,
    channels: int,
    **extra: Any,
) -> dict[str, Any]:
    full = [lp for lp in laps if lp.kind == "full" and lp.valid]
    best = min(full, key=lambda lp: lp.time_s) if full else None
    t = wide["t_s"]
    rate = float(round(1 / np.median(np.diff(t)), 3)) if len(t) > 1 else None
    return {
        "session_id": sid,
        "driver_id": driver_id,
        "car_id": car.id,
        "track_id": track.id if track else None,
        "track_name": track.name if track else None,
        "car_name": car.name,
        "source_format": source_format,
        "status": "imported",
        "n_laps": len([lp for lp in laps if lp.kind == "full"]),
        "best_lap_s": best.time_s if best else None,
        "best_lap": best.lap if best else None,
        "rows": len(t),
        "channels": channels,
        "sample_rate_hz": rate,
        **extra,
    }


def lap_rows(laps: list[Lap]) -> list[dict[str, Any]]:
    full = [lp for lp in laps if lp.kind == "full" and lp.valid]
    best = min(full, key=lambda lp: lp.time_s).lap if full else None
    return [{**lp.as_dict(), "is_best": lp.lap == best} for lp in laps]

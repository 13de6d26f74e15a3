"""Which track a logger file was driven on: one rule for ``pitwall import``, ``replay`` and ``demo``.

An explicit track id wins (an unknown one is an error naming what exists). Otherwise the GPS trace is
matched against the shipped profiles and the tracks stored under ``<data>/tracks/``; failing that, the
track is built from the session's own driven line (its fastest full lap: start/finish line, centreline,
corners C1..Cn from the line's curvature) and stored there, named from the file when it names the venue.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from shared.corners import auto_corners, reference_lap
from shared.importers import RawLog
from shared.laps import Lap
from shared.laps_recorded import assign_laps, detect_laps
from shared.names import file_names
from shared.profiles.track import TrackProfile, load_track, save_track, saved_tracks
from shared.profiles.track_detect import detect_track, make_track
from shared.signals import Wide


def logger_in_lap_ends(raw: RawLog) -> list[float]:
    """End times of the laps the logger's own table calls ``in`` (it found the car away from the line)."""
    return [float(r["end_s"]) for r in raw.meta.get("logger_laps") or () if r.get("kind") == "in"]


def venue_of(raw: RawLog) -> str:
    """The track's name as the file gives it (AiM ``Venue``/``Track``, XRK metadata; GPS coordinates are
    no name: ``shared.names``), or ``""``."""
    return file_names(raw.meta)["track"] or ""


def detected_track(wide: Wide, laps: list[Lap], venue: str) -> TrackProfile | None:
    """A track profile from the session's own driven line (``wide`` has ``lap`` and ``dist_m``), when it
    has a full lap with GPS and corners can be found on it."""
    ref = reference_lap(laps)
    if ref is None or ref.kind != "full" or "lat" not in wide:
        return None
    corners = auto_corners(wide, laps)
    if not corners:
        return None
    m = wide["lap"] == ref.lap
    lat, lon = wide["lat"][m], wide["lon"][m]
    if not np.isfinite(lat).any():
        return None
    named = venue.strip() and not re.fullmatch(r"[\d\s.,°NSEWnsew+-]*", venue.strip())
    first = np.where(np.isfinite(lat))[0][0]
    name = venue.strip() if named else f"Track at {lat[first]:.4f}, {lon[first]:.4f}"
    return make_track(name, lat, lon, float(ref.dist_m or 0.0), corners)


def find_track(raw: RawLog, wide: Wide, data_dir: Path, track_id: str | None = None) -> TrackProfile | None:
    """The session's track (see the module's docstring); None only without GPS or a full lap to build
    one from. ``wide`` is not changed. Raises ``KeyError`` for an unknown ``track_id``."""
    if track_id:
        return load_track(track_id, data_dir)
    if "lat" not in wide or "lon" not in wide:
        return None
    lat, lon = wide["lat"], wide["lon"]
    found = detect_track(lat, lon) or detect_track(lat, lon, candidates=saved_tracks(data_dir))
    if found is not None:
        return found
    w = dict(wide)  # the lap columns go on a copy
    laps = detect_laps(w, None, raw.beacons_s, logger_in_lap_ends(raw))
    assign_laps(w, laps, None)
    built = detected_track(w, laps, venue_of(raw))
    if built is not None:  # stored, so this and every later session there share C1..Cn
        save_track(data_dir, built)
    return built

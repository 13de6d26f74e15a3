"""The analysis of a stored session: read from any DuckDB holding ``sessions``, ``laps`` and
``telemetry`` (the hot store when the session is published; the lake for a session published without
it), with the session's track and its car's thresholds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from shared.analysis.session import SessionAnalysis, analyse_session
from shared.analysis.trace import CHANNELS, WHEEL_CHANNELS
from shared.profiles.track import load_track
from shared.signals import Wide
from shared.thresholds import car_thresholds

ANALYSIS_CHANNELS = (*CHANNELS, *WHEEL_CHANNELS)
LAP_FIELDS = "lap, kind, valid, t_start_s, t_end_s"


def analyse(
    wide: Wide,
    laps: Sequence[Mapping[str, Any]],
    track_id: str | None,
    car_id: str | None,
    data_dir: Path | None = None,
) -> SessionAnalysis:
    """The session's analysis with its track's corners and its car's thresholds."""
    try:
        track = load_track(track_id, data_dir) if track_id else None
    except KeyError:
        track = None
    if track is None or not track.corners:
        return SessionAnalysis(reason="no track profile with corners for this track")
    return analyse_session(wide, laps, track.corners, track.length_m, car_thresholds(car_id))


def analyse_stored(
    con: duckdb.DuckDBPyConnection, session_id: str, data_dir: Path | None = None
) -> SessionAnalysis:
    found = con.execute("SELECT track_id, car_id FROM sessions WHERE session_id = ?", [session_id]).fetchall()
    if not found:
        return SessionAnalysis(reason="no such session")
    got = found[0]
    cols = ", ".join(("t_s", "lap", "dist_m", *ANALYSIS_CHANNELS))
    tbl = con.sql(
        f"SELECT {cols} FROM telemetry WHERE session_id = ? ORDER BY t_s", params=[session_id]
    ).to_arrow_table()
    wide = {
        c: np.asarray(tbl.column(c).to_numpy(zero_copy_only=False), dtype=np.float64)
        for c in tbl.column_names
    }
    rel = con.execute(f"SELECT {LAP_FIELDS} FROM laps WHERE session_id = ? ORDER BY lap", [session_id])
    names = [d[0] for d in rel.description or []]
    laps = [dict(zip(names, r, strict=True)) for r in rel.fetchall()]
    return analyse(wide, laps, got[0], got[1], data_dir)

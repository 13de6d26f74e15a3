"""Where the hot path publishes immutable Parquet, and how readers find it.

    <data>/lake/sessions/<session_id>/session.parquet      1 row of ``sessions``
    <data>/lake/sessions/<session_id>/laps.parquet         ``laps`` rows so far
    <data>/lake/sessions/<session_id>/corners.parquet      ``corner_results``
    <data>/lake/sessions/<session_id>/notes.parquet        ``coaching_notes``
    <data>/lake/sessions/<session_id>/events.parquet       ``driver_events``
    <data>/lake/sessions/<session_id>/signals.parquet      ``telemetry_signals`` (at session end / import)
    <data>/lake/sessions/<session_id>/registry.parquet     ``signal_registry``
    <data>/lake/sessions/<session_id>/quality.parquet      ``session_quality`` (imports: the data-quality report)
    <data>/lake/sessions/<session_id>/telemetry/lap_0007.parquet   wide rows of lap 7

Every file is written to a temporary name in the same directory and moved into place with
``os.replace``, so a reader sees either the old file or the new one, never a partial file.
The small per-session files are republished whole at every lap close; lap files never change.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from shared.ids import check_id
from shared.paths import inside


def session_dir(lake_dir: Path, session_id: str) -> Path:
    """The session's folder; an id that is not one (``..``, ``/abs``, NUL) or a folder that would leave
    ``lake_dir`` (a symlink) is refused (:class:`shared.ids.BadIdError`, :class:`shared.paths.PathEscapeError`)."""
    return inside(lake_dir, "sessions", check_id(session_id, "session id"))


def table_path(lake_dir: Path, session_id: str, stem: str) -> Path:
    return session_dir(lake_dir, session_id) / f"{stem}.parquet"


def lap_path(lake_dir: Path, session_id: str, lap: int) -> Path:
    return session_dir(lake_dir, session_id) / "telemetry" / f"lap_{lap:04d}.parquet"


def glob_for(lake_dir: Path, stem: str) -> str:
    """Glob over all sessions for one per-session file (``telemetry`` globs lap files)."""
    if stem == "telemetry":
        return str(lake_dir / "sessions" / "*" / "telemetry" / "lap_*.parquet")
    return str(lake_dir / "sessions" / "*" / f"{stem}.parquet")


def write_parquet_atomic(table: pa.Table, path: Path, compression: str = "zstd") -> Path:
    """Write ``table`` to ``path`` via a temporary file and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression=compression)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path

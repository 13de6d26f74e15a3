"""Gold laps: a driver's saved reference lap per track (own lap or a coach's), as a distance trace.

Stored at ``<data>/gold/<track_id>/<driver_id>.parquet`` with a JSON sidecar, written atomically,
so the hot path (RuleCoach) and the paddock (tools) can both read it without a database lock.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from shared.resample import DEFAULT_CHANNELS, by_distance
from shared.settings import Settings
from shared.store.lake_layout import lap_path, table_path, write_parquet_atomic

_SAFE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
GOLD_CHANNELS = (*DEFAULT_CHANNELS, "lat", "lon")


def _check(name: str, what: str) -> str:
    if not _SAFE.match(name) or name.startswith("."):
        raise ValueError(f"{what} {name!r} must be 1-64 letters, digits, '_', '-' or '.'")
    return name


def gold_path(settings: Settings, track_id: str, driver_id: str) -> Path:
    return settings.gold_dir / _check(track_id, "track id") / f"{_check(driver_id, 'driver id')}.parquet"


def _lap_wide(settings: Settings, session_id: str, lap: int) -> dict[str, np.ndarray]:
    p = lap_path(settings.lake_dir, session_id, lap)
    if not p.is_file():
        raise FileNotFoundError(f"lap {lap} of session {session_id} is not in the lake ({p})")
    tbl = pq.read_table(p)
    return {
        c: tbl.column(c).to_numpy(zero_copy_only=False).astype(float)
        for c in tbl.column_names
        if c not in ("session_id",)
    }


def save_gold_lap(
    settings: Settings, track_id: str, driver_id: str, session_id: str, lap: int, source: str = "own lap"
) -> Path:
    wide = _lap_wide(settings, session_id, lap)
    trace = by_distance(wide, lap, 5.0, GOLD_CHANNELS)
    con = duckdb.connect()
    try:
        laps_file = table_path(settings.lake_dir, session_id, "laps")
        r = con.execute(f"SELECT time_s FROM read_parquet('{laps_file}') WHERE lap = ?", [lap]).fetchone()
        sess_file = table_path(settings.lake_dir, session_id, "session")
        car = (
            con.execute(f"SELECT car_id FROM read_parquet('{sess_file}')").fetchone()
            if sess_file.is_file()
            else None
        )
    finally:
        con.close()
    meta = {
        "track_id": track_id,
        "driver_id": driver_id,
        "session_id": session_id,
        "lap": lap,
        "time_s": r[0] if r else float(trace["time_s"][-1]),
        "car_id": car[0] if car else None,  # RuleCoach uses a gold lap only in the car it was driven in
        "source": source,
    }
    path = gold_path(settings, track_id, driver_id)
    tbl = pa.table({k: pa.array(v, pa.float64()) for k, v in trace.items()})
    tbl = tbl.replace_schema_metadata({"pitwall_gold": json.dumps(meta)})
    write_parquet_atomic(tbl, path)
    return path


def import_gold_lap(
    settings: Settings, path: Path, track_id: str, driver_id: str, lap: int | None = None
) -> Path:
    """A coach's lap from any importable file: its fastest valid lap unless ``lap`` is given."""
    from shared.ingest import import_file

    res = import_file(path, settings, driver_id=f"coach-{driver_id}", track_id=track_id)
    full = [lp for lp in res.laps if lp["kind"] == "full" and lp["valid"]]
    if lap is None:
        if not full:
            raise ValueError(f"{path}: no valid full lap to use as a gold lap")
        lap = int(min(full, key=lambda lp: lp["time_s"])["lap"])
    return save_gold_lap(
        settings, track_id, driver_id, res.session_id, lap, source=f"imported from {Path(path).name}"
    )


def load_gold_lap(
    settings: Settings, track_id: str, driver_id: str
) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    path = gold_path(settings, track_id, driver_id)
    if not path.is_file():
        return None
    tbl = pq.read_table(path)
    meta = json.loads((tbl.schema.metadata or {}).get(b"pitwall_gold", b"{}"))
    return {c: tbl.column(c).to_numpy() for c in tbl.column_names}, meta

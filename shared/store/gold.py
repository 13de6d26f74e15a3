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


class GoldConflict(ValueError):
    """Saving would replace or mislabel a gold lap: the message says why and how to go ahead."""


def session_facts(settings: Settings, session_id: str) -> dict[str, Any]:
    """The lake's row for a session: track, car, driver (FileNotFoundError when it is not in the lake)."""
    p = table_path(settings.lake_dir, session_id, "session")
    if not p.is_file():
        raise FileNotFoundError(f"session {session_id} is not in the lake; see `pitwall sessions`")
    rows = pq.read_table(p, columns=["track_id", "car_id", "driver_id"]).to_pylist()
    if not rows:
        raise FileNotFoundError(f"session {session_id} has no session row in the lake ({p})")
    return dict(rows[0])


def save_gold_lap(
    settings: Settings,
    track_id: str | None,
    driver_id: str,
    session_id: str,
    lap: int,
    source: str = "own lap",
    force: bool = False,
) -> Path:
    """Save a stored lap as ``driver_id``'s gold lap. The track is the session's own (``track_id`` may
    only confirm it); a gold lap from a different car is replaced only with ``force``."""
    facts = session_facts(settings, session_id)
    own_track, car_id = facts.get("track_id"), facts.get("car_id")
    if track_id is None:
        if not own_track:
            raise GoldConflict(f"session {session_id} has no known track; give the track id (--track)")
        track_id = own_track
    elif own_track and track_id != own_track and not force:
        raise GoldConflict(
            f"session {session_id} was driven at {own_track!r}, not {track_id!r}; "
            "leave the track out to use the session's own, or force it (--force)"
        )
    path = gold_path(settings, track_id, driver_id)
    if path.is_file() and not force:
        old = load_gold_lap(settings, track_id, driver_id)
        meta = old[1] if old is not None else {}
        old_car = meta.get("car_id")
        if not old_car and meta.get("session_id"):  # saved before gold laps recorded their car
            try:
                old_car = session_facts(settings, str(meta["session_id"])).get("car_id")
            except FileNotFoundError:
                old_car = None
        if old_car and car_id and old_car != car_id:
            raise GoldConflict(
                f"{driver_id}'s gold lap at {track_id} is from car {old_car!r} (session {meta.get('session_id')}, "
                f"lap {meta.get('lap')}); this lap is from {car_id!r}. Replace it with --force"
            )
    wide = _lap_wide(settings, session_id, lap)
    trace = by_distance(wide, lap, 5.0, GOLD_CHANNELS)
    con = duckdb.connect()
    try:
        laps_file = table_path(settings.lake_dir, session_id, "laps")
        r = con.execute(f"SELECT time_s FROM read_parquet('{laps_file}') WHERE lap = ?", [lap]).fetchone()
    finally:
        con.close()
    meta = {
        "track_id": track_id,
        "driver_id": driver_id,
        "session_id": session_id,
        "lap": lap,
        "time_s": r[0] if r else float(trace["time_s"][-1]),
        "source": source,
        "car_id": car_id,  # RuleCoach uses a gold lap only in the car it was driven in
    }
    tbl = pa.table({k: pa.array(v, pa.float64()) for k, v in trace.items()})
    tbl = tbl.replace_schema_metadata({"pitwall_gold": json.dumps(meta)})
    write_parquet_atomic(tbl, path)
    return path


def import_gold_lap(
    settings: Settings,
    path: Path,
    track_id: str | None,
    driver_id: str,
    lap: int | None = None,
    force: bool = False,
) -> Path:
    """A coach's lap from any importable file: its fastest valid lap unless ``lap`` is given."""
    from shared.hotpath_link import import_anywhere

    res = import_anywhere(Path(path), settings, driver=f"coach-{driver_id}", track=track_id)
    full = [lp for lp in res.laps if lp["kind"] == "full" and lp["valid"]]
    if lap is None:
        if not full:
            raise ValueError(f"{path}: no valid full lap to use as a gold lap")
        lap = int(min(full, key=lambda lp: lp["time_s"])["lap"])
    return save_gold_lap(
        settings,
        track_id or res.track,
        driver_id,
        res.session_id,
        lap,
        source=f"imported from {Path(path).name}",
        force=force,
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

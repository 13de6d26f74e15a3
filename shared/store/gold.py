"""Gold laps: a driver's saved reference lap per track (own lap or a coach's), as a distance trace.

Stored at ``<data>/gold/<track_id>/<driver>.parquet`` (the driver's name through
:func:`shared.names.file_stem`: any Unicode name, never a path) with the metadata in the file, written atomically,
so the hot path (RuleCoach) and the paddock (tools) can both read it without a database lock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from shared.bundle_read import foreign
from shared.display import lap_time
from shared.ids import check_id
from shared.names import check_driver_id, file_stem
from shared.paths import inside
from shared.resample import DEFAULT_CHANNELS, by_distance
from shared.settings import Settings
from shared.store.lake_layout import write_parquet_atomic
from shared.store.lake_read import SessionFiles, open_session

GOLD_CHANNELS = (*DEFAULT_CHANNELS, "lat", "lon")


def gold_path(settings: Settings, track_id: str, driver_id: str) -> Path:
    stem = file_stem(check_driver_id(driver_id))
    return inside(settings.gold_dir, check_id(track_id, "track id"), f"{stem}.parquet")


def _files(settings: Settings, session_id: str) -> SessionFiles:
    """The session's files, on the local lake or the S3 lake (FileNotFoundError when in neither)."""
    got = open_session(settings, session_id)
    if got is None:
        raise FileNotFoundError(f"session {session_id} is not in the lake; see `pitwall sessions`")
    return got


def _lap_wide(files: SessionFiles, lap: int) -> dict[str, np.ndarray]:
    tbl = files.lap(lap)
    if tbl is None:
        raise FileNotFoundError(f"lap {lap} of session {files.session_id} is not in the lake ({files.where})")
    return {
        c: tbl.column(c).to_numpy(zero_copy_only=False).astype(float)
        for c in tbl.column_names
        if c not in ("session_id",)
    }


class GoldConflict(ValueError):
    """Saving would replace or mislabel a gold lap: the message says why and how to go ahead."""


def session_facts(settings: Settings, session_id: str) -> dict[str, Any]:
    """The lake's row for a session: track, car, driver (FileNotFoundError when it is not in the lake)."""
    return _facts(_files(settings, session_id))


def _facts(files: SessionFiles) -> dict[str, Any]:
    got = files.table("session", ["track_id", "car_id", "driver_id"])
    if got is None or got.num_rows == 0:
        raise FileNotFoundError(f"session {files.session_id} has no session row in the lake ({files.where})")
    return dict(got.to_pylist()[0])


def _lap_row(files: SessionFiles, lap: int) -> dict[str, Any]:
    laps = files.table("laps")
    if laps is None:
        raise FileNotFoundError(f"session {files.session_id} has no laps in the lake ({files.where})")
    rows = [r for r in laps.to_pylist() if int(r["lap"]) == int(lap)]
    if not rows:
        sid = files.session_id
        raise FileNotFoundError(f"session {sid} has no lap {lap}; see `pitwall laps {sid}`")
    return dict(rows[0])


def describe(meta: dict[str, Any] | None) -> str:
    """One line a driver reads: which lap, of which session, how fast."""
    if not meta:
        return "nothing"
    t = meta.get("time_s")
    when = f" ({lap_time(float(t))})" if isinstance(t, int | float) else ""
    return f"lap {meta.get('lap')} of session {meta.get('session_id')}{when}, {meta.get('source', 'own lap')}"


@dataclass(frozen=True)
class GoldSaved:
    """What a gold command did: the file, the lap it now holds, and the lap it replaced (if any)."""

    path: Path
    saved: dict[str, Any]
    replaced: dict[str, Any] | None

    def summary(self) -> dict[str, Any]:
        t, d = self.saved["track_id"], self.saved["driver_id"]
        line = f"saved {describe(self.saved)} as {d}'s gold lap at {t}"
        line += f"; replaced {describe(self.replaced)}" if self.replaced else "; there was none before"
        return {"message": line, "path": str(self.path), "saved": self.saved, "replaced": self.replaced}


def save_gold_lap(
    settings: Settings,
    track_id: str | None,
    driver_id: str,
    session_id: str,
    lap: int,
    source: str = "own lap",
    force: bool = False,
    keep_own: bool = False,
) -> GoldSaved:
    """Save a stored lap as ``driver_id``'s gold lap. The track is the session's own (``track_id`` may
    only confirm it). Without ``force`` it refuses an out-, in- or invalid lap, a lap slower than the gold
    lap it would replace, and a gold lap from a different car; it says what it replaced."""
    files = _files(settings, session_id)
    facts = _facts(files)
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
    row = _lap_row(files, lap)
    if not force and (row["kind"] != "full" or not row["valid"]):
        why = row.get("invalid_reason") or (f"an {row['kind']} lap" if row["kind"] != "full" else "not valid")
        raise GoldConflict(
            f"lap {lap} of session {session_id} is not a valid full lap ({why}); "
            "a gold lap must be one you could drive again. Use it anyway with --force"
        )
    old = load_gold_lap(settings, track_id, driver_id) if path.is_file() else None
    replaced = old[1] if old is not None else None
    if replaced is not None and not force:
        if keep_own and replaced.get("source", "own lap") == "own lap":
            raise GoldConflict(
                f"{driver_id}'s own gold lap at {track_id} stays ({describe(replaced)}); the imported lap is "
                f"stored as lap {lap} of session {session_id} to compare with. Make it the gold lap with --force"
            )
        old_car = replaced.get("car_id")
        if not old_car and replaced.get("session_id"):  # saved before gold laps recorded their car
            try:
                old_car = session_facts(settings, str(replaced["session_id"])).get("car_id")
            except FileNotFoundError:
                old_car = None
        if old_car and car_id and old_car != car_id:
            raise GoldConflict(
                f"{driver_id}'s gold lap at {track_id} is from car {old_car!r} ({describe(replaced)}); "
                f"this lap is from {car_id!r}. Replace it with --force"
            )
        old_t = replaced.get("time_s")
        if isinstance(old_t, int | float) and float(row["time_s"]) > float(old_t):
            raise GoldConflict(
                f"{driver_id}'s gold lap at {track_id} is faster: {describe(replaced)}; this lap is "
                f"{lap_time(float(row['time_s']))}. Keep it, or replace it with --force"
            )
    # timed from the lap's line crossing, so the gold lap against itself reads 0.000 all the way
    trace = by_distance(_lap_wide(files, lap), lap, 5.0, GOLD_CHANNELS, t_start_s=float(row["t_start_s"]))
    meta = {
        "track_id": track_id,
        "driver_id": driver_id,
        "session_id": session_id,
        "lap": lap,
        "time_s": float(row["time_s"]),
        "source": source,
        "car_id": car_id,  # RuleCoach uses a gold lap only in the car it was driven in
    }
    tbl = pa.table({k: pa.array(v, pa.float64()) for k, v in trace.items()})
    tbl = tbl.replace_schema_metadata({"pitwall_gold": json.dumps(meta)})
    write_parquet_atomic(tbl, path)
    return GoldSaved(path, meta, replaced)


def import_gold_lap(
    settings: Settings,
    path: Path,
    track_id: str | None,
    driver_id: str,
    lap: int | None = None,
    force: bool = False,
) -> GoldSaved:
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
        keep_own=True,
    )


def lap_reference(
    settings: Settings, session_id: str, lap: int
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Any stored lap of any session (a friend's, another logger's) as a reference trace, like a gold lap
    but saved nowhere: for the live delta and RuleCoach of one session (``reference`` at session start)."""
    files = _files(settings, session_id)
    facts = _facts(files)
    row = _lap_row(files, lap)
    trace = by_distance(_lap_wide(files, lap), lap, 5.0, GOLD_CHANNELS, t_start_s=float(row["t_start_s"]))
    meta = {
        "track_id": facts.get("track_id"),
        "driver_id": facts.get("driver_id"),
        "session_id": session_id,
        "lap": lap,
        "time_s": float(row["time_s"]),
        "source": "chosen lap",
        "car_id": facts.get("car_id"),
    }
    return trace, meta


def all_time_best(
    settings: Settings, driver_id: str, track_id: str, car_id: str, exclude: str | None = None
) -> tuple[str, int] | None:
    """The driver's fastest valid lap at this track in this car over every session in the lake. A session
    imported from a ``.pitwall`` bundle is never counted (unless imported with ``--mine``): it may be a
    friend's under the same default driver name (choose it as ``SESSION:LAP`` instead)."""
    best: tuple[float, str, int] | None = None
    for p in sorted((settings.lake_dir / "sessions").glob("*/session.parquet")):
        sid = p.parent.name
        if sid == exclude:
            continue
        try:
            have = set(pq.read_schema(p).names)  # only the columns read: meta_json is absent in older files
            wanted = ("driver_id", "track_id", "car_id", "best_lap", "best_lap_s", "meta_json")
            row = pq.read_table(p, columns=[c for c in wanted if c in have]).to_pylist()
        except (OSError, ValueError, KeyError):  # a damaged or older file: not a candidate
            continue
        if not row:
            continue
        r = row[0]
        if (r["driver_id"], r["track_id"], r["car_id"]) != (driver_id, track_id, car_id):
            continue
        if r["best_lap"] is None or r["best_lap_s"] is None or foreign(r.get("meta_json")):
            continue
        cand = (float(r["best_lap_s"]), sid, int(r["best_lap"]))
        if best is None or cand < best:
            best = cand
    return (best[1], best[2]) if best else None


def load_gold_lap(
    settings: Settings, track_id: str, driver_id: str
) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    path = gold_path(settings, track_id, driver_id)
    if not path.is_file():
        return None
    tbl = pq.read_table(path)
    meta = json.loads((tbl.schema.metadata or {}).get(b"pitwall_gold", b"{}"))
    return {c: tbl.column(c).to_numpy() for c in tbl.column_names}, meta

"""The import pipeline: any logger file (or a simulator session) into the hot store and the lake.

read_log -> car profile to_wide -> track detection -> laps -> lap distance -> corners -> events (the
file's alarm channels among them) ->
one transaction in the hot DuckDB file -> Parquet lake. A failure leaves the store and lake unchanged.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shared.alarms import alarm_signals
from shared.bundle import import_bundle, is_bundle
from shared.channel_map import UserMap
from shared.channel_user import load_user_map
from shared.importers import RawLog, read_log
from shared.importers.base import Progress
from shared.importers.limits import ImportLimits, limits_scope
from shared.ingest_store import StoreRun, mapping_of, own_store, store_and_publish, stored_mapping
from shared.laps import Lap
from shared.names import file_names
from shared.profiles.car import guess_car, load_car
from shared.profiles.track import load_track
from shared.quality import quality_report
from shared.session_build import analyse, lap_rows, session_row
from shared.session_date import date_guess
from shared.settings import Settings
from shared.store.hot import (
    HotStore,
    SessionBundle,
    new_session_id,
    registry_to_arrow,
    signals_to_arrow,
    wide_to_arrow,
)
from shared.store.lake_mirror import mirror_for
from shared.store.publisher import LakePublisher
from shared.track_find import find_track, logger_in_lap_ends

log = logging.getLogger(__name__)


@dataclass
class ImportResult:
    session_id: str
    source_format: str
    track: str | None
    car: str
    laps: list[dict[str, Any]] = field(default_factory=list)
    best_lap_s: float | None = None
    rows: int = 0
    channels: int = 0
    duplicate: bool = False
    path: str | None = None
    quality: dict[str, Any] | None = None  # shared.quality.quality_report (file imports)
    track_name: str | None = None  # as people read it: the file's venue or the track profile's name
    driver_name: str | None = None
    car_name: str | None = None
    remapped: bool = False  # imported before, and again into the same session: the channel mapping changed

    def as_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("path", None)
        return d


def _result(
    bundle: SessionBundle, laps: list[Lap], path: str | None = None, quality: dict[str, Any] | None = None
) -> ImportResult:
    s = bundle.session
    return ImportResult(
        session_id=s["session_id"],
        source_format=s["source_format"],
        track=s.get("track_id"),
        car=s["car_id"],
        laps=[{"lap": lp.lap, "time_s": lp.time_s, "kind": lp.kind, "valid": lp.valid} for lp in laps],
        best_lap_s=s.get("best_lap_s"),
        rows=int(s.get("rows") or 0),
        channels=int(s.get("channels") or 0),
        path=path,
        quality=quality,
        track_name=s.get("track_name"),
        driver_name=s.get("driver_name"),
        car_name=s.get("car_name"),
    )


def import_file(
    path: Path | str,
    settings: Settings,
    driver_id: str | None = None,
    car_id: str | None = None,
    track_id: str | None = None,
    progress: Progress | None = None,
    run: StoreRun[Any] | None = None,
    source_path: str | None = None,
    channel_map: Path | None = None,
    mine: bool = False,
) -> ImportResult:
    """Import one logger file. ``driver_id`` (default ``driver``) also names the driver when given;
    otherwise the file's own driver name is shown. ``channel_map`` overrides ``<data>/channels.yaml``.
    ``run``: how to reach the hot store (default: open it); ``source_path``: the file's own path when
    ``path`` is a copy (a file handed to a running hot path). A bundle keeps its own driver id; ``mine``
    (the user says it is their own) makes it theirs, as ``driver_id`` when given."""
    if is_bundle(Path(path)):  # a session exported by another Pitwall (`pitwall export`)
        return _import_bundle(Path(path), settings, run, mine, driver_id)
    user = load_user_map(settings.data_dir, channel_map)  # a bad mapping file fails before any work
    with limits_scope(settings) as limits:
        return _import_file(
            Path(path), settings, driver_id, car_id, track_id, progress, limits, user, run, source_path
        )


def _import_file(
    path: Path,
    settings: Settings,
    driver_id: str | None,
    car_id: str | None,
    track_id: str | None,
    progress: Progress | None,
    limits: ImportLimits,
    user: UserMap,
    run: StoreRun[Any] | None = None,
    source_path: str | None = None,
) -> ImportResult:
    raw: RawLog = read_log(path, progress, car_id=car_id)
    names = file_names(raw.meta)
    run = run or own_store(settings)
    shown = source_path or str(path)

    def already(store: HotStore) -> ImportResult | None:
        LakePublisher(
            store.con, settings.lake_dir, mirror_for(settings)
        ).repair()  # a crash mid-publish left one half-published
        existing = store.session_by_sha(raw.sha256)
        if not existing:
            return None
        row = store.session(existing) or {}
        laps = store.laps(existing)
        q = store.con.execute(
            "SELECT report_json FROM session_quality WHERE session_id = ?", [existing]
        ).fetchone()
        return ImportResult(
            existing,
            row.get("source_format", raw.source_format),
            row.get("track_id"),
            row.get("car_id", ""),
            [{"lap": r["lap"], "time_s": r["time_s"], "kind": r["kind"], "valid": r["valid"]} for r in laps],
            row.get("best_lap_s"),
            int(row.get("rows") or 0),
            int(row.get("channels") or 0),
            True,
            shown,
            json.loads(q[0]) if q else None,
            row.get("track_name"),
            row.get("driver_name"),
            row.get("car_name"),
        )

    dup = run(already)
    car = load_car(car_id or guess_car(raw), settings.data_dir)
    wide, registry = car.to_wide(raw, user=user)
    if dup is not None:
        old_id = dup.session_id
        if run(lambda store: stored_mapping(store, old_id)) == mapping_of(registry):
            return dup
        log.info(
            "%s: the channel mapping changed since %s was imported: importing it again", shown, dup.session_id
        )
    if len(wide["t_s"]) == 0:
        from shared.importers.errors import ImportFormatError

        raise ImportFormatError(path, "", "at least one sample of a channel the car profile maps", "none")
    track = find_track(raw, wide, settings.data_dir, track_id)
    alarms = alarm_signals(raw, wide["t_s"], registry)
    an = analyse(wide, car, track, raw.beacons_s, logger_in_lap_ends(raw), alarms)
    quality = quality_report(raw, wide, registry, an.laps)
    for w in quality["warnings"]:  # the importer's caller shows the whole report (pitwall import, the tablet)
        log.info("%s: %s", path.name, w)
    limits.check_time(path, "analysing laps and corners")
    sid = dup.session_id if dup is not None else new_session_id()
    meta: dict[str, Any] = {
        k: (v if isinstance(v, str | int | float | list | type(None)) else str(v))
        for k, v in raw.meta.items()
    }
    if raw.started_at is None:  # the file carries no date: its modification time is the best guess
        meta["date_guess"] = date_guess(path, source_path)
    auto = track is None or track.id.startswith("auto-")  # Pitwall's own name for a detected place
    session = session_row(
        sid,
        driver_id or "driver",
        car,
        track,
        raw.source_format,
        an.laps,
        wide,
        len(raw.channels),
        driver_name=driver_id or names["driver"],
        car_name=car.name if car_id else (names["car"] or car.name),
        track_name=(names["track"] if auto and names["track"] else (track.name if track else None)),
        source_path=source_path or str(path.resolve()),
        source_sha256=raw.sha256,
        meta_json=json.dumps(meta, default=str),
        started_at=raw.started_at,
    )
    bundle = SessionBundle(
        session=session,
        laps=lap_rows(an.laps),
        telemetry=wide_to_arrow(wide, sid),
        signals=signals_to_arrow(raw, sid),
        registry=registry_to_arrow(registry, sid),
        corners=an.corners,
        events=an.events,
        quality=[{"session_id": sid, "report_json": json.dumps(quality, default=str)}],
    )
    store_and_publish(settings, bundle, run=run, replace=dup is not None)
    log.info("imported %s as %s (%s, %d laps)", shown, sid, session["track_id"], session["n_laps"])
    res = _result(bundle, an.laps, shown, quality)
    res.remapped = dup is not None
    return res


def _import_bundle(
    path: Path, settings: Settings, run: StoreRun[Any] | None, mine: bool, driver_id: str | None
) -> ImportResult:
    got = import_bundle(path, settings, run, mine, driver_id)

    def read(store: HotStore) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        laps = [{k: r[k] for k in ("lap", "time_s", "kind", "valid")} for r in store.laps(got.session_id)]
        return store.session(got.session_id) or {}, laps

    row, laps = (run or own_store(settings))(read)
    return ImportResult(
        got.session_id,
        str(row.get("source_format", "")),
        row.get("track_id"),
        str(row.get("car_id", "")),
        laps,
        row.get("best_lap_s"),
        int(row.get("rows") or 0),
        int(row.get("channels") or 0),
        got.duplicate,
        str(path),
        track_name=row.get("track_name"),
        driver_name=row.get("driver_name"),
        car_name=row.get("car_name"),
    )


def import_sim(
    sim: Any, settings: Settings, driver_id: str = "driver", note: str | None = None
) -> ImportResult:
    """Store a simulator session directly (source_format ``simulator``); its ground truth goes beside it."""
    car = sim.car or load_car(sim.meta["car_id"])
    track = sim.track or load_track(sim.meta["track_id"])
    wide = {k: v.copy() for k, v in sim.wide.items()}
    an = analyse(wide, car, track, None)
    sid = new_session_id()
    session = session_row(
        sid,
        driver_id,
        car,
        track,
        "simulator",
        an.laps,
        wide,
        len(wide) - 1,
        note=note,
        meta_json=json.dumps(sim.meta),
        started_at=datetime.now(UTC).replace(tzinfo=None),
    )
    registry = [
        {"name": k, "unit": "", "source": "simulator", "rate_hz": sim.meta.get("rate_hz"), "canonical": k}
        for k in wide
        if k not in ("t_s", "lap", "dist_m", "odo_m")
    ]
    bundle = SessionBundle(
        session=session,
        laps=lap_rows(an.laps),
        telemetry=wide_to_arrow(wide, sid),
        signals=None,
        registry=registry_to_arrow(registry, sid),
        corners=an.corners,
        events=an.events,
    )
    store_and_publish(settings, bundle, sim.truth.to_json())
    return _result(bundle, an.laps)

"""The import pipeline: any logger file (or a simulator session) into the hot store and the lake.

read_log -> car profile to_wide -> track detection -> laps -> lap distance -> corners -> events ->
one transaction in the hot DuckDB file -> Parquet lake. A failure leaves the store and lake unchanged.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from shared.corners import auto_corners, corner_results
from shared.events import detect_events
from shared.importers import RawLog, read_log
from shared.importers.base import Progress
from shared.importers.limits import ImportLimits, limits_scope
from shared.laps import Lap, assign_laps, detect_laps
from shared.profiles.car import CarProfile, guess_car, load_car
from shared.profiles.track import TrackProfile, load_track
from shared.quality import quality_report
from shared.settings import Settings
from shared.store.hot import (
    HotStore,
    SessionBundle,
    new_session_id,
    registry_to_arrow,
    signals_to_arrow,
    wide_to_arrow,
)
from shared.store.publisher import LakePublisher
from shared.track_find import find_track, logger_in_lap_ends

log = logging.getLogger(__name__)
Wide = dict[str, np.ndarray]


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

    def as_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("path", None)
        return d


@dataclass
class Analysed:
    wide: Wide
    laps: list[Lap]
    track: TrackProfile | None
    corners: list[dict[str, Any]]
    events: list[dict[str, Any]]


def analyse(
    wide: Wide,
    car: CarProfile,
    track: TrackProfile | None,
    beacons: list[float] | None,
    off_line_s: list[float] | None = None,
) -> Analysed:
    """Laps, lap distance, corners and events for a wide session (in place on ``wide``)."""
    laps = detect_laps(wide, track, beacons, off_line_s)
    assign_laps(wide, laps, track)
    corner_defs = track.corners if track is not None else auto_corners(wide, laps)
    corners = corner_results(wide, laps, corner_defs)
    events = detect_events(wide, corner_defs, car.thresholds)
    return Analysed(wide, laps, track, corners, events)


def _session_row(
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


def _lap_rows(laps: list[Lap]) -> list[dict[str, Any]]:
    full = [lp for lp in laps if lp.kind == "full" and lp.valid]
    best = min(full, key=lambda lp: lp.time_s).lap if full else None
    return [{**lp.as_dict(), "is_best": lp.lap == best} for lp in laps]


def _store_and_publish(settings: Settings, bundle: SessionBundle, truth_json: str | None = None) -> None:
    store = HotStore(settings)
    sid = bundle.session["session_id"]
    try:
        store.write_bundle(bundle)
        pub = LakePublisher(store.con, settings.lake_dir)
        try:
            pub.publish_session(sid, truth_json)
        except BaseException:
            pub.remove_session(sid)
            store.delete_session(sid)
            raise
    finally:
        store.close()


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
    )


def import_file(
    path: Path | str,
    settings: Settings,
    driver_id: str = "driver",
    car_id: str | None = None,
    track_id: str | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    with limits_scope(settings) as limits:
        return _import_file(Path(path), settings, driver_id, car_id, track_id, progress, limits)


def _import_file(
    path: Path,
    settings: Settings,
    driver_id: str,
    car_id: str | None,
    track_id: str | None,
    progress: Progress | None,
    limits: ImportLimits,
) -> ImportResult:
    raw: RawLog = read_log(path, progress, car_id=car_id)
    store = HotStore(settings)
    try:
        LakePublisher(
            store.con, settings.lake_dir
        ).repair()  # a crash mid-publish left a session half-published
        existing = store.session_by_sha(raw.sha256)
        if existing:
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
                [
                    {"lap": r["lap"], "time_s": r["time_s"], "kind": r["kind"], "valid": r["valid"]}
                    for r in laps
                ],
                row.get("best_lap_s"),
                int(row.get("rows") or 0),
                int(row.get("channels") or 0),
                True,
                str(path),
                json.loads(q[0]) if q else None,
            )
    finally:
        store.close()
    car = load_car(car_id or guess_car(raw))
    wide, registry = car.to_wide(raw)
    if len(wide["t_s"]) == 0:
        from shared.importers.errors import ImportFormatError

        raise ImportFormatError(path, "", "at least one sample of a channel the car profile maps", "none")
    track = find_track(raw, wide, settings.data_dir, track_id)
    an = analyse(wide, car, track, raw.beacons_s, logger_in_lap_ends(raw))
    quality = quality_report(raw, wide, registry, an.laps)
    for w in quality["warnings"]:
        log.warning("%s: %s", path.name, w)
    limits.check_time(path, "analysing laps and corners")
    sid = new_session_id()
    meta = {
        k: (v if isinstance(v, str | int | float | list | type(None)) else str(v))
        for k, v in raw.meta.items()
    }
    session = _session_row(
        sid,
        driver_id,
        car,
        track,
        raw.source_format,
        an.laps,
        wide,
        len(raw.channels),
        source_path=str(path.resolve()),
        source_sha256=raw.sha256,
        meta_json=json.dumps(meta, default=str),
        started_at=raw.started_at,
    )
    bundle = SessionBundle(
        session=session,
        laps=_lap_rows(an.laps),
        telemetry=wide_to_arrow(wide, sid),
        signals=signals_to_arrow(raw, sid),
        registry=registry_to_arrow(registry, sid),
        corners=an.corners,
        events=an.events,
        quality=[{"session_id": sid, "report_json": json.dumps(quality, default=str)}],
    )
    _store_and_publish(settings, bundle)
    log.info("imported %s as %s (%s, %d laps)", path, sid, session["track_id"], session["n_laps"])
    return _result(bundle, an.laps, str(path), quality)


def import_sim(
    sim: Any, settings: Settings, driver_id: str = "driver", note: str | None = None
) -> ImportResult:
    """Store a simulator session directly (source_format ``simulator``); its ground truth goes beside it."""
    car = sim.car or load_car(sim.meta["car_id"])
    track = sim.track or load_track(sim.meta["track_id"])
    wide = {k: v.copy() for k, v in sim.wide.items()}
    an = analyse(wide, car, track, None)
    sid = new_session_id()
    session = _session_row(
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
        laps=_lap_rows(an.laps),
        telemetry=wide_to_arrow(wide, sid),
        signals=None,
        registry=registry_to_arrow(registry, sid),
        corners=an.corners,
        events=an.events,
    )
    _store_and_publish(settings, bundle, sim.truth.to_json())
    return _result(bundle, an.laps)

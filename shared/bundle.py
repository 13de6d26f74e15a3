"""A session bundle: one file a driver hands to a coach, and another Pitwall imports.

``<id>.pitwall`` is a zip of ``manifest.json`` (format, provenance, every member's size and SHA-256),
the session's lake files (``lake/…``: session, laps, corners, events, notes, signals, registry, quality,
one telemetry file a lap), the detected track when the session's track is not bundled with Pitwall
(``track.json``), and ``report.html``, a self-contained report any browser opens (``shared.report``).
Import checks the manifest and every checksum within the import limits before anything is stored, then
stores the session whole (one transaction, published atomically) under its own id, with provenance.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from shared import __version__
from shared.bundle_read import FORMAT, PROVENANCE, read_bundle, sha256
from shared.ids import BadIdError, check_id
from shared.importers.errors import ImportFormatError
from shared.names import check_driver_id, check_name
from shared.paths import inside
from shared.profiles.track import SAVED_ID, TrackProfile, list_tracks, save_track, saved_tracks
from shared.report import session_report_html
from shared.settings import Settings
from shared.store.hot import HotStore, insert_arrow
from shared.store.lake_layout import write_parquet_atomic
from shared.store.lake_mirror import mirror_for
from shared.store.lake_read import SessionFiles, open_session
from shared.store.publisher import LakePublisher
from shared.store.schema import LAKE_TABLES

SUFFIX = ".pitwall"
_STEM_TO_TABLE = {stem: table for table, stem in LAKE_TABLES.items()}


@dataclass(frozen=True)
class BundleImported:
    session_id: str
    duplicate: bool
    provenance: dict[str, Any]


def is_bundle(path: Path) -> bool:
    """A regular file that starts as a zip: no logger format is one, so a zip is read as a bundle (a cut or
    damaged one is refused as a bundle, by name). Anything else (a device, a FIFO, a directory) is left
    to the importers' own checks, without reading it here."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            return fh.read(4) in (b"PK\x03\x04", b"PK\x05\x06")
    except (OSError, ValueError):
        return False


def export_bundle(
    settings: Settings, session_id: str, out: Path, files: SessionFiles | None = None
) -> dict[str, Any]:
    """Write ``out`` (a ``.pitwall`` zip) for a session in the lake; returns the manifest. ``files``: the
    session's files as the caller reads them (the paddock's lake reader); else :func:`open_session`."""
    src = files if files is not None else open_session(settings, session_id)
    if src is None:
        raise FileNotFoundError(f"session {session_id} is not in the lake; see `pitwall sessions`")
    members = {f"lake/{rel}": data for rel, data in src.members().items()}
    if "lake/session.parquet" not in members:
        raise FileNotFoundError(f"session {session_id} is not in the lake; see `pitwall sessions`")
    session = pq.read_table(pa.BufferReader(members["lake/session.parquet"])).to_pylist()[0]
    track_id = session.get("track_id")
    if track_id and track_id not in list_tracks():
        for tr in saved_tracks(settings.data_dir):
            if tr.id == track_id:
                members["track.json"] = tr.model_dump_json().encode()
    members["report.html"] = session_report_html(src).encode()
    manifest = {
        "format": FORMAT,
        "session_id": session_id,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "pitwall_version": __version__,
        "driver_id": session.get("driver_id"),
        "car_id": session.get("car_id"),
        "track_id": track_id,
        "track_name": session.get("track_name"),
        "source_format": session.get("source_format"),
        "source_file": Path(str(session.get("source_path") or "")).name or None,
        "source_sha256": session.get("source_sha256"),
        "members": {k: {"bytes": len(v), "sha256": sha256(v)} for k, v in members.items()},
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest, indent=1))
        for name, data in members.items():  # Parquet is compressed already
            zf.writestr(name, data, compress_type=zipfile.ZIP_STORED if name.endswith(".parquet") else None)
    tmp.replace(out)
    return manifest


def _tables(path: Path, data: dict[str, bytes]) -> dict[str, list[pa.Table]]:
    tables: dict[str, list[pa.Table]] = {}
    try:
        for name, blob in data.items():
            if not name.startswith("lake/") or not name.endswith(".parquet"):
                continue
            rel = name.removeprefix("lake/")
            table = (
                "telemetry" if rel.startswith("telemetry/") else _STEM_TO_TABLE.get(rel[: -len(".parquet")])
            )
            if table is not None:
                tables.setdefault(table, []).append(pq.read_table(pa.BufferReader(blob)))
        if tables["sessions"][0].num_rows != 1:
            raise IndexError("lake/session.parquet holds not one session row")
    except (pa.ArrowException, OSError, KeyError, IndexError) as exc:
        raise ImportFormatError(path, "lake/", "Parquet tables of one session", str(exc)[:200]) from exc
    return tables


def _checked_ids(
    path: Path, manifest: dict[str, Any], tables: dict[str, list[pa.Table]], data: dict[str, bytes]
) -> tuple[dict[str, Any], dict[str, Any], TrackProfile | None]:
    """The session row and its meta, once every id and name in the bundle is one (nothing is on disk yet): the session
    id (the same in the manifest and every table), track and car ids, the driver's name, the track."""
    session = tables["sessions"][0].to_pylist()[0]
    try:
        sid = check_id(session.get("session_id"), "session id")
        if manifest.get("session_id", sid) != sid:
            raise BadIdError(f"the manifest's session id {ascii(manifest.get('session_id'))} is not {sid}")
        for name, parts in tables.items():
            ids = {
                i
                for part in parts
                if "session_id" in part.column_names
                for i in pc.unique(part["session_id"]).to_pylist()
            }
            if ids - {sid}:
                raise BadIdError(f"table {name} holds rows of another session than {sid}")
        for key in ("track_id", "car_id"):
            if session.get(key) is not None:
                check_id(session[key], key.replace("_", " "))
        check_driver_id(str(session.get("driver_id") or ""))
        for key in ("driver_name", "car_name", "track_name"):
            if session.get(key) is not None:
                check_name(session[key], f"the session's {key.replace('_', ' ')}", 200)
        raw = session.get("meta_json")
        meta = json.loads(raw) if isinstance(raw, str) and raw else {}
        if not isinstance(meta, dict) or not isinstance(raw, str | None):
            raise ValueError(f"the session's meta_json is {type(meta).__name__}, not an object")
        track = None
        if "track.json" in data:
            track = TrackProfile.model_validate_json(data["track.json"])
            if track.id != session.get("track_id") or not SAVED_ID.fullmatch(track.id):
                raise BadIdError(f"track.json's id {ascii(track.id)} is not the session's stored track")
    except (ValueError, RecursionError) as exc:  # BadIdError, a name that is not one, a track that is not
        raise ImportFormatError(path, "", "ids and names a Pitwall session has", str(exc)[:200]) from None
    return session, meta, track


def import_bundle(
    path: Path,
    settings: Settings,
    run: Callable[[Callable[[HotStore], Any]], Any] | None = None,
    mine: bool = False,
    driver_id: str | None = None,
) -> BundleImported:
    """Store a bundle's session (its own id; a second import of it is a duplicate, nothing stored) under
    the bundle's own driver id, never one of the local driver's sessions. ``mine``: the user says it is
    their own (exported from another of their Pitwalls): it counts as theirs, as ``driver_id`` if given.
    Everything is read and checked in memory first; then one transaction and one atomic publish (the
    truth file inside it), and the detected track last: a refused bundle changes nothing."""
    path = Path(path)
    manifest, data = read_bundle(path, settings.import_max_decompressed_bytes)
    tables = _tables(path, data)
    session, meta, track = _checked_ids(path, manifest, tables, data)
    sid = str(session["session_id"])
    provenance = {
        "bundle_file": path.name,
        "exported_at": manifest.get("exported_at"),
        "exported_by": f"pitwall {manifest.get('pitwall_version')}",
        "original_source_file": manifest.get("source_file"),
    }
    if mine:
        provenance |= {"mine": True, "driver_in_bundle": session.get("driver_id")}
        session["driver_id"] = check_driver_id(driver_id) if driver_id else session.get("driver_id")
    truth = data.get("lake/truth.json")

    def write(store: HotStore) -> bool:
        """Store the session in one transaction and publish it; False when it is already stored."""
        if store.session(sid) is not None:
            return False
        con = store.con
        con.execute("BEGIN TRANSACTION")
        try:
            row = pa.Table.from_pylist(
                [{**session, "meta_json": json.dumps({**meta, PROVENANCE: provenance})}]
            )
            tables["sessions"] = [row.cast(tables["sessions"][0].schema)]
            for table, parts in tables.items():
                for part in parts:
                    if "created_at" in part.column_names:
                        part = part.drop_columns(["created_at"])
                    insert_arrow(con, table, part)
            con.execute("COMMIT")
        except BaseException as exc:
            con.execute("ROLLBACK")
            if isinstance(exc, duckdb.Error | pa.ArrowException):  # a table that is not the store's
                why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                raise ImportFormatError(path, "lake/", "the tables of a Pitwall session", why) from None
            raise
        pub = LakePublisher(con, settings.lake_dir, mirror_for(settings))
        try:
            pub.publish_session(sid, truth.decode("utf-8", "replace") if truth is not None else None)
        except BaseException:
            store.delete_session(sid)
            raise
        return True

    if run is not None:  # the running hot path's store, on its writer thread
        stored = run(write)
    else:
        store = HotStore(settings)
        try:
            stored = write(store)
        finally:
            store.close()
    if not stored:
        return BundleImported(sid, True, provenance)
    known = list_tracks() + [t.id for t in saved_tracks(settings.data_dir)]
    if track is not None and track.id not in known:
        save_track(settings.data_dir, track)
    return BundleImported(sid, False, provenance)


def export_channels(settings: Settings, session_id: str, out_dir: Path, fmt: str = "csv") -> list[Path]:
    """Every channel of a session: the canonical channels a row per sample (``telemetry``) and every
    channel as the logger recorded it (``signals``, long form), as CSV or Parquet files."""
    src = open_session(settings, session_id)
    if src is None:
        raise FileNotFoundError(f"session {session_id} is not in the lake; see `pitwall sessions`")
    parts = {"telemetry": src.telemetry(), "signals": src.table("signals")}
    written = []
    for name, tbl in parts.items():
        if tbl is None:
            continue
        target = inside(out_dir, f"{check_id(session_id, 'session id')}_{name}.{fmt}")
        if fmt == "parquet":
            write_parquet_atomic(tbl, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            pacsv.write_csv(tbl, target)
        written.append(target)
    return written

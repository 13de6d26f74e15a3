"""A session bundle: one file a driver hands to a coach, and another Pitwall imports.

``<id>.pitwall`` is a zip of ``manifest.json`` (format, provenance, every member's size and SHA-256),
the session's lake files (``lake/…``: session, laps, corners, events, notes, signals, registry, quality,
one telemetry file a lap), the detected track when the session's track is not bundled with Pitwall
(``track.json``), and ``report.html``, a self-contained report any browser opens (``shared.report``).
Import checks the manifest and every checksum within the import limits before anything is stored, then
stores the session whole (one transaction, published atomically) under its own id, with provenance.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from shared import __version__
from shared.importers.errors import ImportFormatError
from shared.profiles.track import TrackProfile, list_tracks, save_track, saved_tracks
from shared.report import session_report_html
from shared.settings import Settings
from shared.store.hot import HotStore, insert_arrow
from shared.store.lake_layout import session_dir, write_parquet_atomic
from shared.store.lake_mirror import mirror_for
from shared.store.lake_read import SessionFiles, open_session
from shared.store.publisher import LakePublisher
from shared.store.schema import LAKE_TABLES

FORMAT = "pitwall-session-bundle/1"
SUFFIX = ".pitwall"
_STEM_TO_TABLE = {stem: table for table, stem in LAKE_TABLES.items()}


@dataclass(frozen=True)
class BundleImported:
    session_id: str
    duplicate: bool
    provenance: dict[str, Any]


def is_bundle(path: Path) -> bool:
    """A regular file that starts as a zip and lists a manifest; anything else (a device, a FIFO, a
    directory) is left to the importers' own checks, without reading it here."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            if fh.read(4) != b"PK\x03\x04":
                return False
        with zipfile.ZipFile(path) as zf:
            return "manifest.json" in zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    session = pq.read_table(io.BytesIO(members["lake/session.parquet"])).to_pylist()[0]
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
        "members": {k: {"bytes": len(v), "sha256": _sha(v)} for k, v in members.items()},
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


def _read_checked(path: Path, max_bytes: int) -> tuple[dict[str, Any], dict[str, bytes]]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ImportFormatError(path, "", "a Pitwall session bundle (zip)", str(exc)) from exc
    with zf:
        infos = {i.filename: i for i in zf.infolist()}
        total = sum(i.file_size for i in infos.values())
        if total > max_bytes:
            raise ImportFormatError(
                path,
                "",
                f"at most {max_bytes} bytes unpacked (PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES)",
                str(total),
            )
        try:
            manifest = json.loads(zf.read("manifest.json"))
        except (KeyError, ValueError) as exc:
            raise ImportFormatError(path, "manifest.json", "a JSON manifest", str(exc)) from exc
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
            raise ImportFormatError(path, "manifest.json", f"format {FORMAT!r}", str(found))
        listed = manifest.get("members")
        if not isinstance(listed, dict) or "lake/session.parquet" not in listed:
            raise ImportFormatError(path, "manifest.json", "members with lake/session.parquet", "")
        data: dict[str, bytes] = {}
        for name, want in listed.items():
            if name not in infos or ".." in name.split("/") or name.startswith("/"):
                raise ImportFormatError(path, name, "a member listed in the manifest", "missing or unsafe")
            blob = zf.read(name)
            if not isinstance(want, dict) or _sha(blob) != want.get("sha256"):
                raise ImportFormatError(path, name, "the SHA-256 the manifest lists", "a different one")
            data[name] = blob
    return manifest, data


def import_bundle(
    path: Path, settings: Settings, run: Callable[[Callable[[HotStore], Any]], Any] | None = None
) -> BundleImported:
    """Store a bundle's session (its own id; a second import of it is a duplicate, nothing stored)."""
    manifest, data = _read_checked(Path(path), settings.import_max_decompressed_bytes)
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
                tables.setdefault(table, []).append(pq.read_table(io.BytesIO(blob)))
        session = tables["sessions"][0].to_pylist()[0]
    except (pa.ArrowInvalid, OSError, KeyError, IndexError) as exc:
        raise ImportFormatError(path, "lake/", "Parquet tables of one session", str(exc)) from exc
    sid = str(session["session_id"])
    provenance = {
        "bundle_file": Path(path).name,
        "exported_at": manifest.get("exported_at"),
        "exported_by": f"pitwall {manifest.get('pitwall_version')}",
        "original_source_file": manifest.get("source_file"),
    }
    if "track.json" in data:
        tr = TrackProfile.model_validate_json(data["track.json"])
        if tr.id not in list_tracks() and all(t.id != tr.id for t in saved_tracks(settings.data_dir)):
            save_track(settings.data_dir, tr)

    def write(store: HotStore) -> bool:
        """Store the session in one transaction and publish it; False when it is already stored."""
        if store.session(sid) is not None:
            return False
        meta = json.loads(session.get("meta_json") or "{}")
        meta["imported_bundle"] = provenance
        row = pa.Table.from_pylist([{**session, "meta_json": json.dumps(meta, default=str)}])
        tables["sessions"] = [row.cast(tables["sessions"][0].schema)]
        con = store.con
        con.execute("BEGIN TRANSACTION")
        try:
            for table, parts in tables.items():
                for part in parts:
                    if "created_at" in part.column_names:
                        part = part.drop_columns(["created_at"])
                    insert_arrow(con, table, part)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        pub = LakePublisher(con, settings.lake_dir, mirror_for(settings))
        try:
            pub.publish_session(sid)
            truth = data.get("lake/truth.json")
            if truth is not None:
                (session_dir(settings.lake_dir, sid) / "truth.json").write_bytes(truth)
        except BaseException:
            pub.remove_session(sid)
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
        target = Path(out_dir) / f"{session_id}_{name}.{fmt}"
        if fmt == "parquet":
            write_parquet_atomic(tbl, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            pacsv.write_csv(tbl, target)
        written.append(target)
    return written

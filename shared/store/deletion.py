"""Deleting a session everywhere the writer owns it: the hot store and the lake, crash-safe.

A tombstone (``<lake>/deleted/<id>.json``) is written first and removed last, so a crash in between
leaves a record that the next start of the hot path finishes (``apply_tombstones``) instead of
publishing the session again from the hot store.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shared.ids import check_id, is_id
from shared.paths import PathEscapeError, inside
from shared.store.hot import HotStore
from shared.store.lake_catalog import forget_local
from shared.store.lake_layout import session_dir

if TYPE_CHECKING:
    from shared.store.lake_mirror import LakeMirror

log = logging.getLogger(__name__)

TOMBSTONES = "deleted"  # beside lake/sessions/
_TRASH = ".trash"


class UnknownSessionError(KeyError):
    """No such session in the hot store or the lake."""


def tombstone_path(lake_dir: Path, session_id: str) -> Path:
    return inside(lake_dir, TOMBSTONES, f"{check_id(session_id, 'session id')}.json")


def tombstoned(lake_dir: Path) -> set[str]:
    d = Path(lake_dir) / TOMBSTONES
    return {p.stem for p in d.glob("*.json")} if d.is_dir() else set()


def _remove_lake_copy(lake_dir: Path, session_id: str) -> bool:
    """Move the session's folder out of ``sessions/`` in one rename (readers see it whole or gone). A
    folder that is a link out of the lake is never followed (:class:`PathEscapeError`). Its catalog row
    is marked deleted (a redo after a crash marks it again: harmless)."""
    src = session_dir(lake_dir, session_id)
    forget_local(lake_dir, session_id)
    if not src.exists():
        return False
    trash = inside(lake_dir, _TRASH, f"{session_id}.{os.getpid()}")
    trash.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, trash)
    shutil.rmtree(trash, ignore_errors=True)
    return True


def delete_session(
    store: HotStore, lake_dir: Path, session_id: str, mirror: LakeMirror | None = None
) -> dict[str, Any]:
    """Delete ``session_id`` from the hot store and the lake; returns what was removed."""
    if not is_id(session_id):  # never a path: "..", "a/b"
        raise UnknownSessionError(session_id)
    in_store = store.session(session_id) is not None
    in_lake = session_dir(lake_dir, session_id).exists()  # PathEscapeError: a link out of the lake
    if not in_store and not in_lake:
        raise UnknownSessionError(session_id)
    stone = tombstone_path(lake_dir, session_id)
    stone.parent.mkdir(parents=True, exist_ok=True)
    when = datetime.now(UTC).isoformat(timespec="seconds")
    tmp = stone.with_suffix(".tmp")
    tmp.write_text(json.dumps({"session_id": session_id, "deleted_at": when}), encoding="utf-8")
    os.replace(tmp, stone)
    laps = len(store.laps(session_id))
    store.delete_session(session_id)
    lake = _remove_lake_copy(lake_dir, session_id)
    if mirror is not None:  # the S3 copy: its catalog row and objects go when the uploader reaches it
        mirror.forget(session_id)
    stone.unlink(missing_ok=True)
    return {"session_id": session_id, "hot_store": in_store, "lake": lake or in_lake, "laps": laps}


def apply_tombstones(store: HotStore, lake_dir: Path, mirror: LakeMirror | None = None) -> list[str]:
    """Finish deletions a crash interrupted (called before the lake is repaired at start-up)."""
    done = []
    for sid in sorted(s for s in tombstoned(lake_dir) if is_id(s)):
        store.delete_session(sid)
        try:
            _remove_lake_copy(lake_dir, sid)
        except PathEscapeError as exc:  # sessions/<id> links out of the lake: left alone, said
            log.warning("session %s: %s", sid, exc)
        if mirror is not None:
            mirror.forget(sid)
        tombstone_path(lake_dir, sid).unlink(missing_ok=True)
        log.warning("finished deleting session %s (a deletion was interrupted)", sid)
        done.append(sid)
    shutil.rmtree(Path(lake_dir) / _TRASH, ignore_errors=True)
    return done

"""The local spool between the lake on disk and the lake on S3, and the uploader that empties it.

    <data>/spool/put/<key>              a file to upload to <key> (a hard link to the published file)
    <data>/spool/inflight/<key>         being uploaded (moved back to put/ after a crash)
    <data>/spool/catalog/<session>.parquet   the session's catalog row, merged after its objects are up
    <data>/spool/forget/<session>       a deleted session: its catalog row and objects are removed
    <data>/spool/delete/<name>.json     superseded keys, deleted after a grace period
    <data>/spool/writer                 this spool's writer id: the catalog fragment it alone writes

The publisher adds entries (a hard link or ``os.replace``: never a partial entry); one uploader thread
sends them with retries and backoff, never on the frame path. An entry is removed only after the server
acknowledged it, so a car without signal loses nothing: entries wait on disk, through restarts, until the
server answers. A re-send after a lost acknowledgement writes the same bytes to the same key (idempotent);
each object appears whole or not at all. A newer version of a key replaces the waiting one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs

from shared.lake_url import LakeTarget
from shared.store.lake_catalog import forget_in_catalog, merge_into_catalog

log = logging.getLogger(__name__)


def _atomic_place(src: Path, dst: Path, link: bool) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{secrets.token_hex(4)}.tmp")
    if link:
        try:
            os.link(src, tmp)
        except OSError:  # another filesystem: a copy (still placed atomically)
            tmp.write_bytes(src.read_bytes())
    else:
        os.replace(src, tmp)
    os.replace(tmp, dst)


class Spool:
    def __init__(self, root: Path) -> None:
        self.root = root
        for d in ("put", "inflight", "catalog", "forget", "delete"):
            (root / d).mkdir(parents=True, exist_ok=True)

    @property
    def writer(self) -> str:
        """This spool's writer id (random, made once, kept with the spool): the catalog fragment its
        uploader alone writes, so several cars can publish to one prefix."""
        f = self.root / "writer"
        if not f.is_file():
            tmp = self.root / f".writer.{secrets.token_hex(4)}"
            tmp.write_text(secrets.token_hex(8))
            with contextlib.suppress(FileExistsError):  # the first one wins, never replaced
                os.link(tmp, f)
            tmp.unlink(missing_ok=True)
        return f.read_text().strip()

    def add_file(self, src: Path, key: str, link: bool = True) -> None:
        """Queue ``src`` for upload to ``key`` (a hard link: the published version, whatever comes later;
        ``link=False`` moves ``src`` in)."""
        _atomic_place(src, self.root / "put" / key, link)

    def add_catalog_row(self, session_id: str, src: Path) -> None:
        _atomic_place(src, self.root / "catalog" / f"{session_id}.parquet", link=False)

    def drop_session_files(self, session_id: str, keep: Collection[str] = ()) -> None:
        """Forget waiting uploads of a session, but for the keys in ``keep``."""
        put = self.root / "put"
        for f in self.files("put"):
            if f"session={session_id}" in f.parts and f.relative_to(put).as_posix() not in keep:
                f.unlink(missing_ok=True)

    def add_forget(self, session_id: str) -> None:
        (self.root / "catalog" / f"{session_id}.parquet").unlink(missing_ok=True)
        self.drop_session_files(session_id)
        (self.root / "forget" / session_id).write_text(str(time.time()))

    def add_delete(self, keys: list[str], not_before: float) -> None:
        if keys:
            dst = self.root / "delete" / f"{int(not_before)}-{secrets.token_hex(4)}.json"
            tmp = dst.with_suffix(".tmp")
            tmp.write_text(json.dumps({"keys": keys, "not_before": not_before}))
            os.replace(tmp, dst)

    def files(self, kind: str) -> list[Path]:
        return sorted(p for p in (self.root / kind).rglob("*") if p.is_file() and not p.name.startswith("."))

    def pending(self) -> int:
        """Entries not yet acknowledged by the server (uploads, catalog rows, deletions of sessions)."""
        return sum(len(self.files(k)) for k in ("put", "inflight", "catalog", "forget"))

    def recover(self) -> None:
        """After a crash mid-upload: in-flight files go back to put/ unless a newer version waits there."""
        for f in self.files("inflight"):
            dst = self.root / "put" / f.relative_to(self.root / "inflight")
            if dst.exists():
                f.unlink(missing_ok=True)
            else:
                _atomic_place(f, dst, link=False)


class Uploader:
    """One thread that empties the spool into the S3 lake; retries with exponential backoff."""

    def __init__(
        self,
        spool: Spool,
        fs: pafs.FileSystem,
        target: LakeTarget,
        grace_s: float = 60.0,
        poll_s: float = 2.0,
    ) -> None:
        self.spool, self.fs, self.target, self.poll_s = spool, fs, target, poll_s
        self.writer = spool.writer
        self.grace_s = grace_s  # superseded objects outlive every reader's older catalog this long
        self.uploaded = 0
        self.failures = 0
        self.last_error: str | None = None
        self.last_ok: float | None = None
        self.backoff_s = 0.0
        self._sent: dict[str, set[str]] = {}  # session -> keys uploaded since its catalog row was merged
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- control -------------------------------------------------------------------
    def start(self) -> None:
        self.spool.recover()
        self._thread = threading.Thread(target=self._run, name="lake-uploader", daemon=True)
        self._thread.start()

    def kick(self) -> None:
        self._wake.set()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def status(self) -> dict[str, Any]:
        return {
            "target": self.target.url,
            "writer": self.writer,
            "waiting_files": self.spool.pending(),
            "uploaded": self.uploaded,
            "failures": self.failures,
            "last_error": self.last_error,
            "last_ok_age_s": None if self.last_ok is None else round(time.time() - self.last_ok, 1),
            "backoff_s": self.backoff_s,
        }

    # ---- work ----------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.drain()
                self.backoff_s = 0.0
                wait = self.poll_s
            except Exception as exc:  # the network, the server, a full disk: retried, never lost
                self.failures += 1
                self.last_error = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
                self.backoff_s = min(30.0, max(0.5, self.backoff_s * 2))
                log.warning("lake upload failed (retry in %.1f s): %s", self.backoff_s, self.last_error)
                wait = self.backoff_s
            self._wake.wait(wait)
            self._wake.clear()

    def drain(self) -> int:
        """Upload everything waiting, in order: objects, then catalog rows (so the catalog never names
        an object that is not there), then deleted sessions, then due superseded keys. Raises on the
        first failure (the rest waits for the next pass). Returns the entries done."""
        done = 0
        for f in self.spool.files("put"):
            done += self._put(f)
        rows = self.spool.files("catalog")
        if rows:
            superseded, named = merge_into_catalog(self.fs, self.target, rows, self.writer)
            for r in rows:  # uploaded in this run of the process but named by no row: superseded too
                superseded += sorted(self._sent.pop(r.stem, set()) - named)
            self.spool.add_delete(superseded, time.time() + self.grace_s)
            for r in rows:
                r.unlink(missing_ok=True)
            done += len(rows)
        for f in self.spool.files("forget"):
            for key in forget_in_catalog(self.fs, self.target, f.name, self.writer):
                self._delete(key)
            f.unlink(missing_ok=True)
            done += 1
        now = time.time()
        for f in self.spool.files("delete"):
            entry = json.loads(f.read_text())
            if entry["not_before"] <= now:
                for key in entry["keys"]:
                    self._delete(key)
                f.unlink(missing_ok=True)
        if done:
            self.last_ok = time.time()
            self.last_error = None
        return done

    def _put(self, f: Path) -> int:
        key = f.relative_to(self.spool.root / "put").as_posix()
        flight = self.spool.root / "inflight" / key
        flight.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(f, flight)  # a newer version published meanwhile lands in put/ again
        except FileNotFoundError:
            return 0
        try:
            with flight.open("rb") as src, self.fs.open_output_stream(self.target.path(key)) as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
        except BaseException:
            if not (self.spool.root / "put" / key).exists():
                _atomic_place(flight, self.spool.root / "put" / key, link=False)
            raise
        flight.unlink(missing_ok=True)
        self.uploaded += 1
        sid = next((p.removeprefix("session=") for p in key.split("/") if p.startswith("session=")), None)
        if sid is not None:
            self._sent.setdefault(sid, set()).add(key)
        return 1

    def _delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(self.target.path(key))

"""The local spool between the lake on disk and the lake on S3, and the uploader that empties it.

    <data>/spool/put/<key>              a file to upload to <key> (a hard link to the published file)
    <data>/spool/inflight/<key>         being uploaded (moved back to put/ after a crash)
    <data>/spool/sent/<key>             uploaded; kept until a closed row of its session is in the catalog
    <data>/spool/catalog/<session>.parquet   the session's catalog row, merged after its objects are up
    <data>/spool/forget/<session>       a deleted session: its catalog row and objects are removed
    <data>/spool/delete/<name>.json     superseded keys, deleted after a grace period
    <data>/spool/tmp/                   files being written (a crash leaves them: removed at the next start)
    <data>/spool/writer                 this spool's writer id (which car's uploader: /health names it)

The publisher adds entries (a hard link or ``os.replace``: never a partial entry); one uploader thread
sends them with retries and backoff, never on the frame path. An entry is removed only after the server
acknowledged it, so a car without signal loses nothing: entries wait on disk, through restarts, until the
server answers. A re-send after a lost acknowledgement writes the same bytes to the same key (idempotent);
each object appears whole or not at all. A newer version of a key replaces the waiting one.

Compaction is crash-safe: a session's closed (compacted) row supersedes its lap files, but the spool
keeps every waiting lap file until that row is merged into the bucket's catalog (the uploader skips them
meanwhile), and remembers every key it sent (``sent/``) until then, so the lap objects it superseded are
queued for deletion even when a crash fell between the catalog write and the queueing. Every step is
redone safely after a crash: same bytes to the same key, the same row merged again, a key deleted twice.
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

import pyarrow as pa
import pyarrow.fs as pafs

from shared.faults import crash_point
from shared.lake_url import LakeTarget
from shared.store.lake_catalog import SpooledRow, forget_in_catalog, merge_into_catalog

log = logging.getLogger(__name__)
_KINDS = ("put", "inflight", "sent", "catalog", "forget", "delete", "tmp")


def _session_of(key: str) -> str | None:
    return next((p.removeprefix("session=") for p in key.split("/") if p.startswith("session=")), None)


class Spool:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.opened = time.time()
        for d in _KINDS:
            (root / d).mkdir(parents=True, exist_ok=True)

    @property
    def writer(self) -> str:
        """This spool's writer id (random, made once, kept with the spool): which car's uploader this is
        (``/health``); several cars publish to one prefix through the catalog table's commits."""
        f = self.root / "writer"
        if not f.is_file():
            tmp = self.tmp_path("writer")
            tmp.write_text(secrets.token_hex(8))
            with contextlib.suppress(FileExistsError):  # the first one wins, never replaced
                os.link(tmp, f)
            tmp.unlink(missing_ok=True)
        return f.read_text().strip()

    def tmp_path(self, name: str) -> Path:
        """A fresh name for a file being written (``tmp/``: a crash's leftovers go at the next start)."""
        return self.root / "tmp" / f"{secrets.token_hex(6)}-{name}"

    def _place(self, src: Path, dst: Path, link: bool) -> None:
        """``src`` at ``dst`` in one rename: a hard link (a copy on another filesystem) or ``src`` moved."""
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.tmp_path(dst.name)
        if link:
            try:
                os.link(src, tmp)
            except OSError:  # another filesystem: a copy (still placed atomically)
                tmp.write_bytes(src.read_bytes())
        else:
            os.replace(src, tmp)
        os.replace(tmp, dst)

    def add_file(self, src: Path, key: str, link: bool = True) -> None:
        """Queue ``src`` for upload to ``key`` (a hard link: the published version, whatever comes later;
        ``link=False`` moves ``src`` in)."""
        self._place(src, self.root / "put" / key, link)

    def add_catalog_row(self, session_id: str, src: Path) -> None:
        self._place(src, self.root / "catalog" / f"{session_id}.parquet", link=False)

    def drop_session_files(self, session_id: str, keep: Collection[str] = ()) -> None:
        """Forget waiting uploads of a session, but for the keys in ``keep``."""
        put = self.root / "put"
        for f in self.files("put"):
            if f"session={session_id}" in f.parts and f.relative_to(put).as_posix() not in keep:
                f.unlink(missing_ok=True)

    def mark_sent(self, key: str) -> None:
        f = self.root / "sent" / key
        f.parent.mkdir(parents=True, exist_ok=True)
        f.touch()

    def sent_keys(self, session_id: str) -> set[str]:
        """The keys of ``session_id`` uploaded since a closed row of it was last merged."""
        sent = self.root / "sent"
        return {
            f.relative_to(sent).as_posix() for f in self.files("sent") if f"session={session_id}" in f.parts
        }

    def clear_sent(self, session_id: str) -> None:
        for f in self.files("sent"):
            if f"session={session_id}" in f.parts:
                f.unlink(missing_ok=True)

    def add_forget(self, session_id: str) -> None:
        (self.root / "catalog" / f"{session_id}.parquet").unlink(missing_ok=True)
        self.drop_session_files(session_id)
        (self.root / "forget" / session_id).write_text(str(time.time()))

    def add_delete(self, keys: list[str], not_before: float) -> None:
        if keys:
            tmp = self.tmp_path("delete.json")
            tmp.write_text(json.dumps({"keys": keys, "not_before": not_before}))
            os.replace(tmp, self.root / "delete" / f"{int(not_before)}-{secrets.token_hex(4)}.json")

    def files(self, kind: str) -> list[Path]:
        return sorted(p for p in (self.root / kind).rglob("*") if p.is_file() and not p.name.startswith("."))

    def pending(self) -> int:
        """Entries not yet acknowledged by the server (uploads, catalog rows, deletions of sessions)."""
        return sum(len(self.files(k)) for k in ("put", "inflight", "catalog", "forget"))

    def recover(self) -> None:
        """After a crash: in-flight files go back to put/ unless a newer version waits there; files a
        crash left half-written (written before this spool was opened) are removed."""
        for f in self.files("inflight"):
            dst = self.root / "put" / f.relative_to(self.root / "inflight")
            if dst.exists():
                f.unlink(missing_ok=True)
            else:
                self._place(f, dst, link=False)
        for f in (self.root / "tmp").iterdir():
            with contextlib.suppress(FileNotFoundError):
                if f.stat().st_mtime < self.opened:
                    f.unlink()


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
        """Upload everything waiting, in order: objects, then catalog rows (read before the objects, so
        the catalog never names an object that is not there), then deleted sessions, then due superseded
        keys. Raises on the first failure (the rest waits for the next pass). Returns the entries done."""
        read = (SpooledRow.read(f) for f in self.spool.files("catalog"))
        rows = {r.path.stem: r for r in read if r is not None}
        done = 0
        for f in self.spool.files("put"):
            key = f.relative_to(self.spool.root / "put").as_posix()
            row = rows.get(_session_of(key) or "")
            if row is None or not row.closed or key in row.keys:  # else superseded: kept until row is up
                done += self._put(f, key)
        if rows:
            done += self._merge(list(rows.values()))
        for f in self.spool.files("forget"):
            sent = self.spool.sent_keys(f.name)
            for key in sorted({*forget_in_catalog(self.fs, self.target, f.name), *sent}):
                self._delete(key)
            self.spool.clear_sent(f.name)
            f.unlink(missing_ok=True)
            done += 1
        now = time.time()
        for f in self.spool.files("delete"):
            entry = json.loads(f.read_text())
            if entry["not_before"] <= now:
                for i, key in enumerate(entry["keys"]):
                    self._delete(key)
                    if i == 0:
                        crash_point("superseded_deleting")
                f.unlink(missing_ok=True)
        if done:
            self.last_ok = time.time()
            self.last_error = None
        return done

    def _merge(self, rows: list[SpooledRow]) -> int:
        """Append the rows to the catalog table (:func:`merge_into_catalog`). A closed row's session: every key this
        spool sent of it that the row does not name (its lap files, a moved session's old keys) is queued
        for deletion, then its waiting superseded files and its sent record go. Each step may be redone
        after a crash (the row file is removed last)."""
        new = pa.concat_tables([r.table for r in rows], promote_options="permissive")
        superseded, named = merge_into_catalog(self.fs, self.target, new)
        closed = [r.path.stem for r in rows if r.closed]
        if closed:
            crash_point("catalog_merged")
        gone = set(superseded).union(*(self.spool.sent_keys(sid) - named for sid in closed))
        self.spool.add_delete(sorted(gone), time.time() + self.grace_s)
        if closed:
            crash_point("superseded_queued")
        for sid in closed:
            self.spool.drop_session_files(sid, keep=named)
            self.spool.clear_sent(sid)
        for r in rows:
            if r.still_waiting():  # else a newer row of the session came meanwhile: merged next pass
                r.path.unlink(missing_ok=True)
        return len(rows)

    def _put(self, f: Path, key: str) -> int:
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
                self.spool.add_file(flight, key, link=False)
            raise
        if key.endswith("/telemetry.parquet"):
            crash_point("compacted_uploaded")
        self.spool.mark_sent(key)  # before the entry goes: a crash in between sends it again
        flight.unlink(missing_ok=True)
        self.uploaded += 1
        return 1

    def _delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(self.target.path(key))

"""The uploader that empties the local spool (:mod:`shared.store.spool`) into the S3 lake: one thread,
never on the frame path, retries with exponential backoff. An entry is removed only after the server
acknowledged it; objects go first, then catalog rows (read before the objects, so the catalog never names
an object that is not there), then deleted sessions, then superseded keys past their grace period.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from shared.faults import crash_point
from shared.lake_url import LakeTarget
from shared.store.lake_catalog import SpooledRow, forget_in_catalog, merge_into_catalog
from shared.store.spool import Spool

log = logging.getLogger(__name__)


def _session_of(key: str) -> str | None:
    return next((p.removeprefix("session=") for p in key.split("/") if p.startswith("session=")), None)


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
        """Append the rows to the catalog table (:func:`merge_into_catalog`). A closed row's session:
        every key this spool sent or still holds of it that the row does not name (its lap files, a moved
        session's old keys; a waiting one may be up already, sent just before a crash) is queued for
        deletion, then its waiting superseded files and its sent record go. Each step may be redone after
        a crash (the row file is removed last)."""
        new = pa.concat_tables([r.table for r in rows], promote_options="permissive")
        superseded, named = merge_into_catalog(self.fs, self.target, new)
        closed = [r.path.stem for r in rows if r.closed]
        if closed:
            crash_point("catalog_merged")
        # a waiting key of a closed session may be up too: a crash between its PUT and ``mark_sent``
        gone = set(superseded).union(
            *((self.spool.sent_keys(sid) | self.spool.waiting_keys(sid)) - named for sid in closed)
        )
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

"""The local spool between the lake on disk and the lake on S3 (emptied by :mod:`shared.store.uploader`).

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
import os
import secrets
import time
from collections.abc import Collection
from pathlib import Path

_KINDS = ("put", "inflight", "sent", "catalog", "forget", "delete", "tmp")


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

    def waiting_keys(self, session_id: str) -> set[str]:
        """The keys of ``session_id`` waiting in put/ (one may be up already: sent, then a crash before
        it was marked sent)."""
        put = self.root / "put"
        return {
            f.relative_to(put).as_posix() for f in self.files("put") if f"session={session_id}" in f.parts
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

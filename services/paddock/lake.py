"""The paddock's view of the lake: one in-memory DuckDB with views over the Parquet files.

It never opens the hot path's DuckDB file; the connection is sandboxed (:mod:`.lake_sandbox`). Each tool
call uses its own cursor (concurrent reads are safe). ``/health`` reads :attr:`Lake.health`, swapped whole
after each look.

Damage stays local: a session with a damaged or missing file (:mod:`shared.store.lake_check`) is left out
of the views and listed in :attr:`Lake.damaged` with the file and the reason; its own requests get a
``damaged_session`` error, every other session and the paddock itself keep working. A republished copy
(the hot path's repair) clears it at the next refresh.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from types import MappingProxyType
from typing import Any

import duckdb
from pyarrow.fs import FileSystem

from services.paddock.lake_follow import Follower, LakeHealth, LakeStatus
from services.paddock.lake_listing import Listing, relisted
from services.paddock.lake_s3 import S3Lake
from services.paddock.lake_sandbox import sandboxed_connection
from services.paddock.lake_scope import sql_scope
from shared.ids import is_id
from shared.lake_url import LakeUnavailable
from shared.settings import Settings
from shared.store.lake_catalog import catalog_settled
from shared.store.lake_check import damaged_sessions, deep_problem, files_signature
from shared.store.lake_layout import session_dir
from shared.store.lake_read import LocalSession, SessionFiles
from shared.store.publisher import lake_reader_views

log = logging.getLogger(__name__)


class Lake:
    """``follow``: a worker thread keeps the view fresh (the service); requests then never refresh it
    themselves, except a query naming a session the view does not know yet (once). Without it (tools run
    from the CLI, tests) a read refreshes at most every ``refresh_ttl_s``."""

    def __init__(
        self,
        settings: Settings,
        refresh_ttl_s: float = 1.0,
        fs: FileSystem | None = None,
        follow: bool = False,
    ) -> None:
        self.settings = settings
        self.lake_dir = settings.lake_dir
        # PITWALL_LAKE_URL=s3://...: the bucket by its session catalog, never the local lake
        self.s3 = S3Lake(settings, fs) if settings.lake_is_s3 else None
        if self.s3 is None:
            self.lake_dir.mkdir(parents=True, exist_ok=True)
        self.refresh_ttl_s = refresh_ttl_s
        self.status = LakeStatus()
        self.health = LakeHealth()  # what /health says of the lake: swapped whole after each look
        self._lock = threading.Lock()
        self._sig: tuple[int, float] | None = None
        self._checked = 0.0
        self._fetched_at = 0.0  # wall clock before the last catalog read (S3)
        self._seen: frozenset[str] = frozenset()  # session directories the last refresh found (local lake)
        # ids a query named that the catalog did not know (looked for once since the catalog changed)
        self._looked_for: set[str] = set()
        self.damaged: dict[str, dict[str, str]] = {}  # session id -> {file, reason}
        # damage found by reading a session whole after a query on it failed, until its files change
        self._found: dict[str, tuple[dict[str, str], tuple[tuple[str, int, int], ...]]] = {}
        self._listing: Listing | None = None  # what /sessions serves, made by each refresh of the views
        self.con = sandboxed_connection(
            None if self.s3 is not None else self.lake_dir, settings.duckdb_memory_limit_mb
        )
        self._follower = Follower(lambda: self.refresh(look_now=True), refresh_ttl_s) if follow else None
        snapshot = self.s3 is not None and follow and self.s3.load_snapshot()
        if self.s3 is not None and snapshot:
            # start from the last run's catalog at once; the follower catches up in the background
            self.s3.build(frozenset())
            self._relist()
            self.status.read_at = self.s3.view.read_at
            self._say()
        else:
            self.refresh(force=True)
        if self._follower is not None:
            self._follower.start(look_first=snapshot)

    def close(self) -> None:
        """Stop following; the catalog read since the last save goes to the snapshot."""
        if self._follower is not None:
            self._follower.stop()
        if self.s3 is not None:
            self.s3.view.save(force=True)

    @property
    def url(self) -> str:
        return self.s3.target.url if self.s3 is not None else str(self.lake_dir)

    def _signature(self) -> tuple[int, float]:
        if self.s3 is not None:
            return self.s3.signature()  # one LIST of the catalog's fragments
        files = list(self.lake_dir.glob("sessions/*/*.parquet")) + list(
            self.lake_dir.glob("sessions/*/telemetry/*.parquet")
        )
        self._seen = frozenset(f.relative_to(self.lake_dir).parts[1] for f in files)
        return len(files), max((f.stat().st_mtime for f in files), default=0.0)

    def _published_since(self, params: list[Any] | None) -> bool:
        """True when a query names a session published after the last refresh: its directory is there
        (local lake) or the catalog may name it (S3, while the store answers), but the views do not know it
        yet. A query for a session just imported must not wait out the refresh interval (it would find
        nothing)."""
        named = [p for p in params or [] if isinstance(p, str) and is_id(p)]  # an id, never a path
        if self.s3 is not None:
            # the session id is a query's first text; one not known, not a driver's, not looked for since
            # the catalog last changed, is looked for once
            sid = next((p for p in params or [] if isinstance(p, str)), None)
            if sid not in named or sid is None or self.s3.known(sid) or sid in self._looked_for:
                return False
            self._looked_for.add(sid)
            return self.status.reachable and not self.s3.sessions_named([sid])
        return any(p not in self._seen and session_dir(self.lake_dir, p).is_dir() for p in named)

    def refresh(self, force: bool = False, look_now: bool = False) -> None:
        """Rebuild the views when the lake changed (looked at most every ``refresh_ttl_s`` unless
        ``look_now``; never from a request while a follower keeps them), or always when ``force``. A
        store that does not answer leaves the views as they are (:attr:`status` says since when)."""
        now = time.monotonic()
        if (
            not force
            and not look_now
            and (self._follower is not None or now - self._checked < self.refresh_ttl_s)
        ):
            return
        with self._lock:
            self._checked = now
            try:
                self._refresh(force)
            except LakeUnavailable as exc:
                self.status.away(str(exc))
            self._say()

    def _say(self) -> None:
        """The lake's part of ``/health`` as the look just made leaves it (one new object, swapped)."""
        old = self.s3.view.old_layout() if self.s3 is not None else None
        self.health = LakeHealth(
            self.newest_file_mtime, MappingProxyType({**self.status.as_dict(), "old_layout": old})
        )

    def _refresh(self, force: bool) -> None:
        began = time.time()
        sig = self._signature()
        # on S3 a same-size rewrite in the second of the last read looks unchanged: read again until
        # a read began after that second had surely passed
        unsettled = self.s3 is not None and not catalog_settled(sig[1], self._fetched_at)
        if force or sig != self._sig or unsettled:
            damaged = damaged_sessions(self.lake_dir) if self.s3 is None else {}
            if self.s3 is not None:
                self._fetched_at = time.time()
                self.s3.fetch()  # the changed fragments (a GET each): keys, to compare with the damage found
            for sid, (problem, files) in list(self._found.items()):
                if self._files_signature(sid) == files:
                    damaged.setdefault(sid, problem)
                else:
                    del self._found[sid]  # republished (or removed): look again
            for sid, problem in damaged.items():
                if self.damaged.get(sid) != problem:
                    log.error("session %s is damaged: %s: %s", sid, problem["file"], problem["reason"])
            if self.s3 is not None:
                self.s3.build(frozenset(damaged))
            else:
                lake_reader_views(self.con, self.lake_dir, frozenset(damaged))
            self.damaged = damaged
            self._relist()
            if sig != self._sig:
                self._looked_for = set()
            self._sig = sig
        self.status.ok(began)

    def _relist(self) -> None:
        """The listing of the newest sessions from the views just built (kept when they are unchanged)."""
        cur = self.con.cursor()
        try:
            if self.s3 is not None:
                self.s3.register_newest(cur)
            self._listing = relisted(self._listing, cur, self.damaged, self.listed_rows(sorted(self.damaged)))
        finally:
            cur.close()

    def sessions_page(self, limit: int) -> bytes:
        """``/sessions``: the JSON of the newest ``limit`` sessions (damaged ones with their damage), as
        the last refresh rendered them; a request neither queries nor waits for the follower."""
        self.refresh()
        listing = self._listing
        return b"[]" if listing is None else listing.page(limit)

    def check_session(self, session_id: str) -> dict[str, str] | None:
        """After a read of ``session_id`` failed: read its files whole; a damaged one marks the session
        damaged (left out of the views from now on). Returns the problem, or None when its files read."""
        if self.s3 is not None:
            problem = self.s3.deep_problem(session_id)
        else:
            problem = deep_problem(self.lake_dir, session_id)
        if problem is not None:
            log.error("session %s is damaged: %s: %s", session_id, problem["file"], problem["reason"])
            with self._lock:
                self._found[session_id] = (problem, self._files_signature(session_id))
            self.refresh(force=True)
        return problem

    def prefetch(self, session_ids: list[str], tables: set[str] | None = None) -> None:
        """Before a tool queries several sessions one at a time (a driver's history): on an S3 lake, read
        their small tables (or ``tables``) in parallel into the reader's cache; nothing on a local lake."""
        if self.s3 is not None:
            self.refresh()
            self.s3.prefetch(session_ids, tables)

    def session_files(self, session_id: str) -> SessionFiles | None:
        """A session's files for what reads them whole (report, export): on an S3 lake by the keys of its
        catalog row, never the local directory; None when the lake does not hold it."""
        self.refresh()
        if self.s3 is not None:
            return self.s3.session_files(session_id)
        got = LocalSession(self.lake_dir, session_id)
        return got if got.exists() else None

    def listed_rows(self, session_ids: list[str]) -> dict[str, dict[str, Any]]:
        """What can still be said of sessions without their data (damaged ones): their ``sessions`` rows,
        from the S3 catalog (one scan) or their local session files when those read ({} for one that does
        not)."""
        if self.s3 is not None:
            return self.s3.catalog_rows(session_ids)
        out: dict[str, dict[str, Any]] = {}
        for sid in session_ids:
            try:
                out[sid] = LocalSession(self.lake_dir, sid).row()
            except Exception:  # the session file itself is the damaged one
                out[sid] = {}
        return out

    def _files_signature(self, session_id: str) -> tuple[tuple[str, int, int], ...]:
        if self.s3 is not None:
            return self.s3.files_signature(session_id)
        return files_signature(self.lake_dir, session_id)

    def cursor(self, params: list[Any] | None = None, sql: str | None = None) -> duckdb.DuckDBPyConnection:
        """A cursor for one query. On an S3 lake, a query whose ``params`` name sessions sees the
        per-session views of those sessions only (every tool names the sessions it reads by parameter);
        one without (the SQL tool) sees every session. ``sql``: only the tables it names are registered (a
        registration costs about a millisecond; a tool makes dozens of queries). The views are
        refreshed at most every ``refresh_ttl_s``, at once when ``params`` name a session published since."""
        self.refresh(look_now=self._published_since(params))
        cur = self.con.cursor()
        if self.s3 is not None:
            scope = [p for p in params or [] if isinstance(p, str) and self.s3.known(p)]
            names = None if sql is None else {t for t in self.s3.table_names if re.search(rf"\b{t}\b", sql)}
            self.s3.register(cur, scope or None, names)
        return cur

    def sql_cursor(self, sql: str) -> duckdb.DuckDBPyConnection:
        """A cursor for the SQL tool: on an S3 lake its data tables hold only the sessions the query names
        (:func:`services.paddock.lake_scope.sql_scope`)."""
        if self.s3 is None:
            return self.cursor(None, sql)
        return self.cursor(sql_scope(self.s3, sql) or None, sql)

    @property
    def signature(self) -> tuple[int, float]:
        """(file count, newest mtime) of the lake when last refreshed; changes when a lap is published."""
        return self._sig or (0, 0.0)

    def version_of(self, session_id: str) -> tuple[Any, ...]:
        """Changes whenever the session's data may have changed: its catalog row's publication (S3; other
        cars publishing leave it alone), the lake's file signature (local lake)."""
        if self.s3 is not None:
            return (self.s3.view.version(session_id),)
        return self.signature

    @property
    def newest_file_mtime(self) -> float:
        return self._sig[1] if self._sig else 0.0


_LAKE: Lake | None = None


def configure_lake(settings: Settings, follow: bool = False) -> Lake:
    global _LAKE
    _LAKE = Lake(settings, follow=follow)
    return _LAKE


def get_lake() -> Lake:
    if _LAKE is None:
        from shared.settings import get_settings

        return configure_lake(get_settings())
    return _LAKE

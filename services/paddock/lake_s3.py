"""The paddock's reader of an S3 lake: the session catalog, and Arrow datasets DuckDB scans.

Nothing lists the bucket. The catalog (:mod:`shared.store.lake_catalog`: the Delta table, followed by its
new commits, :mod:`services.paddock.lake_catalog_view`) names every object of every session; each table
is a pyarrow dataset built from those keys, one fragment per object, tagged with its session (and a lap
file with its lap) as a partition expression. DuckDB pushes ``session_id = ?`` (and ``lap = ?``) into the
scan, so a query about one session opens only that session's objects; a driver's
history opens only the sessions it names. The sandboxed connection reads no file and no URL itself (httpfs
is not loaded, external access is off): the datasets are the only way to the bucket, and they hold only
the lake prefix's keys.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from services.paddock.lake_catalog_view import CatalogView
from services.paddock.lake_s3_tables import (
    BY_STEM,
    DATA_TABLES,
    LAP_KEY,
    SMALL_TABLES,
    conform,
    stem_of,
    table_schemas,
)
from shared.lake_url import LakeTarget, explain, s3_filesystem, s3_target
from shared.store.lake_catalog import KEYS_COLUMN
from shared.store.lake_read import S3Session
from shared.store.schema import LAKE_TABLES

_FMT = ds.ParquetFileFormat()
_SMALL_CACHE_OBJECTS = 256 * len(SMALL_TABLES)
# sessions whose fragments are kept: a fragment keeps its object's footer once scanned, so a driver's
# history queried again skips a read per object (0.29 s against 0.55 s for 250 sessions' telemetry)
_FRAGMENT_CACHE_SESSIONS = 4096
LISTED_AT_MOST = 1000  # the newest sessions ``/sessions`` may list, kept sorted per catalog version
_READERS = 8  # parallel object reads of one query (S3 latency, not CPU, is what they wait for)


class S3Lake:
    def __init__(self, settings: Any, fs: pafs.FileSystem | None = None) -> None:
        self.settings = settings
        self.fs = fs if fs is not None else s3_filesystem(settings)
        self.target: LakeTarget = s3_target(settings)
        self.schemas = table_schemas()
        self.view = CatalogView(self.fs, self.target, settings.paddock_dir / "lake_snapshot.parquet")
        self._sessions: pa.Table = self.schemas["sessions"].empty_table()
        self._newest: pa.Table = self._sessions  # the newest LISTED_AT_MOST of them, newest first
        self._skip: frozenset[str] = frozenset()  # sessions left out of the views (damaged)
        self._all: dict[str, ds.Dataset] | None = None  # every session's datasets, built on first need
        # (session, its catalog version, table) -> the table, read whole
        self._small: OrderedDict[tuple[str, str, str], pa.Table] = OrderedDict()
        self._frags: OrderedDict[tuple[str, str], dict[str, list[ds.Fragment]]] = OrderedDict()
        # sessions (and catalog versions) whose recorded sizes did not serve a read: opened without them
        self._unsized: set[tuple[str, str]] = set()
        self._pool = ThreadPoolExecutor(_READERS, thread_name_prefix="lake-s3-read")
        self._lock = threading.Lock()

    @property
    def catalog(self) -> pa.Table | None:
        return self.view.catalog

    def signature(self) -> tuple[int, float]:
        """A look at the catalog: the Delta log since the version held, a LIST of old-layout fragments
        (kept for :meth:`fetch`)."""
        try:
            return self.view.list_fragments()
        except OSError as exc:
            raise explain(exc, self.settings) from exc

    def fetch(self) -> None:
        """Read what changed since the last read (the new commits' files, changed old fragments: a GET
        each, in parallel), then save the snapshot when it is due."""
        try:
            self.view.update(self._pool)
        except OSError as exc:
            raise explain(exc, self.settings) from exc
        self.view.save()

    def load_snapshot(self) -> bool:
        """Start from the catalog saved by the last run (no request); False when there is none."""
        return self.view.load()

    def build(self, skip: frozenset[str]) -> dict[str, int]:
        """The ``sessions`` table from the catalog; the other views are built when a query needs them
        (no object is opened here). Returns the sessions behind the views."""
        cat = self.catalog
        sessions = self.schemas["sessions"]
        if cat is not None and cat.num_rows:
            keep = (
                cat.filter(pc.invert(pc.is_in(cat.column("session_id"), pa.array(sorted(skip), pa.string()))))
                if skip
                else cat
            )
            cols = [
                keep.column(f.name).cast(f.type)
                if f.name in keep.column_names
                else pa.nulls(keep.num_rows, f.type)
                for f in sessions
            ]
            table = pa.Table.from_arrays(cols, schema=sessions)
        else:
            table = sessions.empty_table()
        # /sessions' order (started_at DESC NULLS LAST, session_id DESC), once here: not per request
        order = pc.sort_indices(
            table, [("started_at", "descending", "at_end"), ("session_id", "descending", "at_end")]
        )
        newest = table.take(order[:LISTED_AT_MOST])
        with self._lock:
            self._sessions, self._all, self._newest = table, None, newest
            self._skip = skip
        return {"sessions": table.num_rows}

    def _ident(self, sid: str, keys: list[str]) -> tuple[str, str]:
        """A session at its catalog version (its keys when its row has none): what the caches are kept by."""
        return (sid, self.view.version(sid) or repr(keys))

    def _fragments(self, sid: str) -> dict[str, list[ds.Fragment]]:
        """One session's objects as dataset fragments, tagged with the session (and a lap file's lap); the
        same fragments while the session's catalog version holds (the footers they read are kept)."""
        keys = self.view.keys(sid) or []
        ident = self._ident(sid, keys)
        sizes = {} if ident in self._unsized else self.view.sizes(sid)
        with self._lock:
            got = self._frags.get(ident)
            if got is not None:
                self._frags.move_to_end(ident)
                return got
        out: dict[str, list[ds.Fragment]] = {t: [] for t in DATA_TABLES}
        for key in keys:
            table = BY_STEM.get(stem_of(key))
            if table is None or table == "sessions":
                continue
            expr = pc.field("session_id") == sid
            if m := LAP_KEY.search(key):
                expr = expr & (pc.field("lap") == int(m.group(1)))
            # a telemetry object's size from the catalog row: no HEAD before its footer is read. Only
            # telemetry's: a lap file is written once, the compacted file once a publication, while the
            # small tables are sent again at every lap under the same key (and read whole, not here)
            size = sizes.get(key) if table == "telemetry" else None
            path = self.target.path(key)
            out[table].append(_FMT.make_fragment(path, self.fs, partition_expression=expr, file_size=size))
        with self._lock:
            self._frags[ident] = out
            while len(self._frags) > _FRAGMENT_CACHE_SESSIONS:
                self._frags.popitem(last=False)
        return out

    def _dataset(self, table: str, frags: list[ds.Fragment]) -> ds.Dataset:
        return ds.FileSystemDataset(frags, self.schemas[table], _FMT, self.fs)

    def _small_tables(self, sids: list[str], tables: set[str]) -> dict[str, dict[str, pa.Table]] | None:
        """The small tables (laps, corners, notes, ...) ``tables`` of the sessions ``sids``, each object
        read whole once per catalog version of its session and kept in memory (LRU); the objects not
        cached yet are read in parallel (a bounded pool: a driver's history is tens of small GETs). None
        when one does not read (the query then reads the objects itself, and a damaged one is reported
        the usual way)."""
        out: dict[str, dict[str, pa.Table]] = {sid: {} for sid in sids}
        todo: list[tuple[tuple[str, str, str], str | None]] = []
        with self._lock:
            for sid in sids:
                keys = self.view.keys(sid) or []
                version = self._ident(sid, keys)[1]
                files = S3Session(self.fs, self.target, sid, keys)
                for table in sorted(tables & SMALL_TABLES):
                    got = self._small.get((sid, version, table))
                    if got is not None:
                        self._small.move_to_end((sid, version, table))
                        out[sid][table] = got
                    else:
                        todo.append(((sid, version, table), files.key(LAKE_TABLES[table])))

        def read(job: tuple[tuple[str, str, str], str | None]) -> pa.Table:
            (sid, _, table), key = job
            if key is None:  # the session has no such file (no notes yet, an older session)
                return self.schemas[table].empty_table()
            return conform(S3Session(self.fs, self.target, sid, []).read_key(key), self.schemas[table])

        try:
            got_all = list(self._pool.map(read, todo)) if len(todo) > 1 else [read(j) for j in todo]
        except Exception:  # damaged or unreachable: left to the query and the damage check
            return None
        with self._lock:
            for (ident, _), tbl in zip(todo, got_all, strict=True):
                self._small[ident] = tbl
                out[ident[0]][ident[2]] = tbl
            while len(self._small) > _SMALL_CACHE_OBJECTS:
                self._small.popitem(last=False)
        return out

    def _in_views(self, sid: str) -> bool:
        return sid not in self._skip and self.view.has(sid)

    def prefetch(self, session_ids: list[str], tables: set[str] | None = None) -> None:
        """Read the small tables of these sessions (all of them, or ``tables``) into the cache, in
        parallel: what a tool does before querying a driver's history one session at a time."""
        live = [s for s in dict.fromkeys(session_ids) if self._in_views(s)]
        if live:
            self._small_tables(live, set(SMALL_TABLES if tables is None else tables))

    @property
    def table_names(self) -> list[str]:
        return ["sessions", *DATA_TABLES]

    def register_newest(self, cur: duckdb.DuckDBPyConnection) -> None:
        """``sessions`` on a cursor as the newest :data:`LISTED_AT_MOST` sessions, newest first."""
        with self._lock:
            cur.register("sessions", self._newest)

    def register(
        self, cur: duckdb.DuckDBPyConnection, scope: list[str] | None = None, names: set[str] | None = None
    ) -> None:
        """Make the lake's tables visible on a cursor (registrations are per connection). ``scope``: the
        per-session views of these sessions only (the catalog's ``sessions`` stays whole): their small
        tables from memory, their telemetry from their own objects. Without a scope, every session's
        objects (pyarrow then weighs each object per query: about 25 us each, 25 ms at 1,000 sessions)."""
        with self._lock:
            sessions, skip, everything = self._sessions, self._skip, self._all
        if names is None or "sessions" in names:
            cur.register("sessions", sessions)
        wanted = [t for t in DATA_TABLES if names is None or t in names]
        if not wanted:
            return
        if scope is None:
            if everything is None:
                frags: dict[str, list[ds.Fragment]] = {t: [] for t in DATA_TABLES}
                for sid in sorted(self.view.session_ids() - skip):
                    for t, fr in self._fragments(sid).items():
                        frags[t] += fr
                everything = {t: self._dataset(t, fr) for t, fr in frags.items()}
                with self._lock:
                    self._all = everything
            for name in wanted:
                cur.register(name, everything[name])
            return
        scope = [sid for sid in dict.fromkeys(scope) if sid not in skip and self.view.has(sid)]
        per = {sid: self._fragments(sid) for sid in scope}
        need = {t for t in wanted if t in SMALL_TABLES}
        small = self._small_tables(scope, need) if need else None
        for table in wanted:
            if table in SMALL_TABLES and small is not None:
                parts = [small[sid][table] for sid in scope]
                cur.register(table, pa.concat_tables(parts) if parts else self.schemas[table].empty_table())
            else:
                cur.register(table, self._dataset(table, [f for sid in scope for f in per[sid][table]]))

    def sessions_named(self, literals: list[str]) -> list[str]:
        """The sessions ``literals`` name: known session ids, and every session of a driver id named."""
        if not literals:
            return []
        with self._lock:
            sessions = self._sessions
        mine = sessions.filter(pc.is_in(sessions.column("driver_id"), pa.array(literals, pa.string())))
        named = [x for x in literals if self.view.has(x)]
        return list(dict.fromkeys([*named, *mine.column("session_id").to_pylist()]))

    def session_files(self, session_id: str) -> S3Session | None:
        keys = self.view.keys(session_id)
        return S3Session(self.fs, self.target, session_id, keys) if keys is not None else None

    def catalog_rows(self, session_ids: list[str]) -> dict[str, dict[str, Any]]:
        """These sessions' catalog rows without their object keys (absent ones left out)."""
        drop = {KEYS_COLUMN, "published_at", "meta_json"}
        got = self.view.rows(session_ids)
        return {sid: {k: v for k, v in row.items() if k not in drop} for sid, row in got.items()}

    def known(self, session_id: str) -> bool:
        return self.view.has(session_id)

    def files_signature(self, session_id: str) -> tuple[tuple[str, int, int], ...]:
        return tuple((k, 0, 0) for k in self.view.keys(session_id) or [])

    def sized(self, session_id: str) -> bool:
        """Whether the session's objects are opened with the sizes its catalog row records."""
        return self._ident(session_id, self.view.keys(session_id) or []) not in self._unsized

    def deep_problem(self, session_id: str) -> dict[str, str] | None:
        """Read every object of the session whole: the first that does not read is the problem. When all
        read, the session's objects are opened without the sizes its row records from now on (until a
        newer row): an object republished under its key before its new row is in the catalog is not the
        size the older row says."""
        keys = self.view.keys(session_id) or []
        for key in keys:
            try:
                with self.fs.open_input_file(self.target.path(key)) as f:
                    pq.read_table(f)
            except FileNotFoundError:
                return {"file": key, "reason": "missing from the bucket"}
            except OSError as exc:
                why = explain(exc, self.settings)
                if not why.reachable:
                    return None  # the server is down: a failed read, not a damaged session
                return {"file": key, "reason": str(why)}
            except Exception as exc:  # a damaged Parquet object
                return {"file": key, "reason": str(exc).splitlines()[0][:200]}
        ident = self._ident(session_id, keys)
        with self._lock:
            self._unsized.add(ident)
            self._frags.pop(ident, None)
            self._all = None
        return None

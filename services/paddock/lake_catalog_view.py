"""The S3 lake's catalog as the paddock follows it: incremental, and kept in a local snapshot file.

The Delta table (``_delta/sessions``) is followed version by version (:class:`shared.store.delta_log.DeltaLog`):
a look advances the one ``DeltaTable`` held (the log entries since its version), and a new version costs
a GET of each new commit's log entry and of each data file it added; those rows are folded into the rows
held (one per session, its newest publication, deletions kept so an older row cannot come back). The
table is read whole only at the first look without a snapshot, or when a commit cannot be followed by its
adds (its log entry cleaned up, a schema change, rows removed, a file vacuumed before it was read).

The old layout's fragments (``_catalog/``, until migrated) are kept as last read, with their listing stamp
(size, time); a look lists them (one LIST) and reads again only those whose stamp changed, or whose last
read began within the second of their time (S3 times are whole seconds, see
:func:`shared.store.lake_catalog.catalog_settled`).

The rows are saved to ``<paddock>/lake_snapshot.parquet`` (each row tagged with its fragment, or
``DELTA_MARK``; the fragments' stamps and the Delta version in the file's metadata) at most every
``save_every_s``: a paddock starts from it at once, follows the table from its version, and serves it while
the store is away.
"""

from __future__ import annotations

import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from services.paddock.lake_catalog_lookup import CatalogLookup
from shared.lake_url import LakeTarget
from shared.store.delta_log import DeltaLog
from shared.store.lake_catalog import (
    DELETED_COLUMN,
    catalog_settled,
    catalog_signature,
    legacy_fragments,
    merge_fragments,
    read_fragment,
)
from shared.store.lake_tables import TABLES_DIR, LakeTables

log = logging.getLogger(__name__)
_META = b"pitwall.fragments"
_FRAG = "_fragment"  # the fragment a row came from (in memory and in the snapshot)
DELTA_MARK = f"{TABLES_DIR}/sessions"  # the tag of the Delta table's rows
_CHUNKS = 32


@dataclass(frozen=True)
class Fragment:
    """One writer's fragment as read: its listing stamp and when our read of it began."""

    size: int
    mtime: float
    read_at: float


def _without(rows: pa.Table, sids: pa.Array) -> pa.Table:
    return rows.filter(pc.invert(pc.is_in(rows.column("session_id"), sids)))


class CatalogView(CatalogLookup):
    """The catalog followed (:meth:`list_fragments`, :meth:`update`), saved and loaded; looked up by
    session as :class:`CatalogLookup`."""

    def __init__(self, fs: pafs.FileSystem, target: LakeTarget, snapshot: Path, save_every_s: float = 30.0):
        super().__init__()
        self.fs, self.target, self.snapshot = fs, target, snapshot
        self.save_every_s = save_every_s
        self.delta = DeltaLog(LakeTables.s3(target), "sessions", fs, target.path(DELTA_MARK))
        self._frags: dict[str, Fragment] = {}
        self._rows: pa.Table | None = None  # the old layout's rows, each tagged with its fragment (_FRAG)
        self._delta_rows: pa.Table | None = None  # the Delta table's newest row per session, deletions kept
        self._version: int | None = None  # the Delta version _delta_rows hold
        self._newest: int | None = None  # the Delta version the last look found
        self._listed: list[pafs.FileInfo] | None = None
        self._saved_at = 0.0
        self._unsaved = False
        self.read_at: float | None = None  # wall clock of the last look that read (or the snapshot's)
        self.fragments_read = 0  # old-layout fragments read (GETs) since start
        self.whole_reads = 0  # Delta table read whole since start (the fallback)
        self.old_fragments = 0  # old-layout fragments the last look listed (read as they are)

    def list_fragments(self) -> tuple[int, float]:
        """One LIST of the old layout's fragments and a look at the Delta log since the version held:
        (a digest of names, sizes and times and the Delta version; the fragments' newest time)."""
        self._listed = legacy_fragments(self.fs, self.target)
        if self._listed and not self.old_fragments:
            log.warning(
                "the lake %s holds %d catalog files of the old layout (read as they are): "
                "`pitwall lake migrate` converts them",
                self.target.url,
                len(self._listed),
            )
        self.old_fragments = len(self._listed)
        self._newest = self.delta.newest()
        mark = [] if self._newest is None else [pafs.FileInfo(DELTA_MARK, size=self._newest)]
        return catalog_signature(self._listed + mark)

    def update(self, pool: ThreadPoolExecutor) -> int:
        """Read what changed since the last read (as :meth:`list_fragments` found it), in parallel: the
        changed fragments, the new Delta commits' files; rebuild the catalog when anything did. Returns how
        many objects were read (fragments and data files)."""
        if self._listed is None:
            self.list_fragments()
        listed = self._listed or []
        began = time.time()
        todo = []
        for info in listed:
            old = self._frags.get(info.path)
            mtime = info.mtime.timestamp() if info.mtime is not None else 0.0
            if (
                old is None
                or (old.size, old.mtime) != (info.size, mtime)
                or not catalog_settled(mtime, old.read_at)
            ):
                todo.append((info.path, info.size or 0, mtime))
        tables = list(pool.map(lambda j: read_fragment(self.fs, self.target, j[0]), todo))
        frags = {i.path: self._frags[i.path] for i in listed if i.path in self._frags}
        fresh = []
        for (path, size, mtime), tbl in zip(todo, tables, strict=True):
            if tbl is None:  # removed between the listing and the read
                frags.pop(path, None)
            else:
                frags[path] = Fragment(size, mtime, began)
                fresh.append(tbl.append_column(_FRAG, pa.array([path] * tbl.num_rows, pa.string())))
        gone = set(self._frags) - set(frags)
        self._frags, self.read_at = frags, began
        self.fragments_read += len(todo)
        files_before = self.delta.files_read
        followed = self._follow(pool)
        if todo or gone:
            self._replace({p for p, _, _ in todo} | gone, fresh)
        if todo or gone or followed or self.catalog is None:
            self._merge()
            self._unsaved = True
        return len(todo) + self.delta.files_read - files_before

    def _follow(self, pool: ThreadPoolExecutor) -> bool:
        """Bring the Delta rows to the version the last look found; False when they were there."""
        upto = self._newest
        if upto is None or upto == self._version:
            return False
        fetch = lambda fn, items: list(pool.map(fn, items))  # noqa: E731
        since = self._version
        paths = self.delta.added(since, upto, fetch) if since is not None and upto > since else None
        try:
            new = None if paths is None else self.delta.read_files(paths, fetch)
        except FileNotFoundError:  # vacuumed before we read it: the version's files instead
            new = None
        if new is None:
            self.whole_reads += 1
            log.info("reading the lake catalog whole at version %s (held: %s)", upto, since)
            self._delta_rows = merge_fragments([self.delta.whole()], keep_deleted=True)
        elif new:
            self._delta_rows = self._fold(new)
        self._version = upto
        return True

    def _fold(self, new: list[pa.Table]) -> pa.Table | None:
        """The rows held with the new publications folded in: each session they name, its newest row."""
        held = self._delta_rows
        sids = pc.unique(pa.chunked_array([t.column("session_id") for t in new]).combine_chunks())
        mine = [] if held is None else [held.filter(pc.is_in(held.column("session_id"), sids))]
        newest = merge_fragments([*new, *mine], keep_deleted=True)
        parts = [t for t in (None if held is None else _without(held, sids), newest) if t is not None]
        if not parts:
            return None
        out = pa.concat_tables(parts, promote_options="permissive")
        # each fold adds a chunk: every _CHUNKS versions the rows are made one chunk again
        return out.combine_chunks() if out.column(0).num_chunks > _CHUNKS else out

    def _replace(self, paths: set[str], fresh: list[pa.Table]) -> None:
        """The old layout's rows of ``paths`` replaced by ``fresh`` (only those tables are touched)."""
        keep = self._rows
        if keep is not None and paths:
            keep = keep.filter(pc.invert(pc.is_in(keep.column(_FRAG), pa.array(sorted(paths), pa.string()))))
        parts = ([keep] if keep is not None and keep.num_rows else []) + fresh
        self._rows = pa.concat_tables(parts, promote_options="permissive") if parts else None

    def _merge(self) -> None:
        """The catalog: the Delta rows (already one per session) when there is no old fragment, else
        both merged, newest row per session; deleted sessions left out."""
        rows, delta = self._rows, self._delta_rows
        if rows is None or rows.num_rows == 0:
            cat = delta
            if cat is not None and DELETED_COLUMN in cat.column_names:
                cat = cat.filter(pc.invert(pc.fill_null(cat.column(DELETED_COLUMN), False)))
                cat = cat.drop_columns([DELETED_COLUMN])
        else:
            cat = merge_fragments([rows.drop_columns([_FRAG]), *([delta] if delta is not None else [])])
        cat = cat if cat is not None and cat.num_rows else None
        self.catalog = cat

    def old_layout(self) -> str | None:
        """What ``/health`` says while the lake still holds old-layout catalog files (None when not)."""
        if not self.old_fragments:
            return None
        return (
            f"the lake holds {self.old_fragments} catalog files of the old layout (read as they are): "
            "`pitwall lake migrate` converts them"
        )

    def save(self, force: bool = False) -> bool:
        """Write the rows held to the snapshot file (atomically), when changed and ``save_every_s`` passed
        (or ``force``)."""
        if not self._unsaved or (not force and time.monotonic() - self._saved_at < self.save_every_s):
            return False
        index = [[n, f.size, f.mtime, f.read_at] for n, f in self._frags.items()]
        parts = [] if self._rows is None else [self._rows]
        if self._delta_rows is not None:
            n = self._delta_rows.num_rows
            parts.append(self._delta_rows.append_column(_FRAG, pa.array([DELTA_MARK] * n, pa.string())))
        table = (
            pa.concat_tables(parts, promote_options="permissive")
            if parts
            else pa.table({_FRAG: pa.array([], pa.string())})
        )
        held = {"fragments": index, "read_at": self.read_at, "delta_version": self._version}
        meta = {_META: json.dumps(held).encode()}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
        self.snapshot.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.snapshot.with_suffix(".tmp")
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, self.snapshot)
        self._saved_at, self._unsaved = time.monotonic(), False
        return True

    def load(self) -> bool:
        """The rows of the last snapshot and the Delta version they hold (False when there is none, or it
        does not read): the next look follows the table from that version."""
        try:
            table = pq.read_table(self.snapshot)
            meta = json.loads((table.schema.metadata or {})[_META])
            frags = {
                str(n): Fragment(int(size), float(mtime), float(at))
                for n, size, mtime, at in meta["fragments"]
            }
            version = meta.get("delta_version")
            version = None if version is None else int(version)
        except (OSError, KeyError, ValueError, TypeError, pa.ArrowException) as exc:
            if self.snapshot.exists():
                log.warning(
                    "the lake snapshot %s does not read (%s): starting without it", self.snapshot, exc
                )
            return False
        table = table.replace_schema_metadata(None)
        is_delta = pc.equal(table.column(_FRAG), DELTA_MARK)
        legacy, delta = table.filter(pc.invert(is_delta)), table.filter(is_delta).drop_columns([_FRAG])
        self._frags, self.read_at, self._version = frags, meta.get("read_at"), version
        self._rows = legacy if legacy.num_rows else None
        self._delta_rows = delta if delta.num_rows and version is not None else None
        self._merge()
        return True

"""The S3 lake's catalog as the paddock follows it: incremental, and kept in a local snapshot file.

Each writer's fragment is kept as last read, with its listing stamp (size, time); a refresh lists the
fragments (one LIST) and reads again only those whose stamp changed, or whose last read began within the
second of their time (S3 times are whole seconds: a same-size rewrite in that second looks unchanged, see
:func:`shared.store.lake_catalog.catalog_settled`). The merged catalog is rebuilt from the tables in memory
(Arrow, no request). A publish by one car therefore costs one LIST and one GET of that car's fragment,
whatever the fleet.

The fragments are saved to ``<paddock>/lake_snapshot.parquet`` (one file, each fragment's rows with its
stamp in the file's metadata), at most every ``save_every_s``: a paddock starts from it at once, and
serves it while the store is away.

The catalog calls this module makes (what a different table format changes): ``fragments`` (list),
``read_fragment`` (read one), ``merge_fragments`` (one row per session).
"""

from __future__ import annotations

import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from shared.lake_url import LakeTarget
from shared.store.lake_catalog import (
    KEYS_COLUMN,
    catalog_settled,
    catalog_signature,
    fragments,
    merge_fragments,
    read_fragment,
)

log = logging.getLogger(__name__)
_META = b"pitwall.fragments"


@dataclass(frozen=True)
class Fragment:
    """One writer's fragment as read: its listing stamp, when our read of it began, its rows."""

    size: int
    mtime: float
    read_at: float
    table: pa.Table


class CatalogView:
    def __init__(self, fs: pafs.FileSystem, target: LakeTarget, snapshot: Path, save_every_s: float = 30.0):
        self.fs, self.target, self.snapshot = fs, target, snapshot
        self.save_every_s = save_every_s
        self._frags: dict[str, Fragment] = {}
        self._listed: list[pafs.FileInfo] | None = None
        self._saved_at = 0.0
        self._unsaved = False
        self.catalog: pa.Table | None = None
        self._row: dict[str, int] = {}  # session id -> its row in the catalog
        self.read_at: float | None = (
            None  # wall clock when the catalog was last read whole (or the snapshot's)
        )
        self.fragments_read = 0  # fragments read (GETs) since start: what a refresh costs

    def list_fragments(self) -> tuple[int, float]:
        """One LIST of the fragments: (a digest of names, sizes and times; the newest time)."""
        self._listed = fragments(self.fs, self.target)
        return catalog_signature(self._listed)

    def update(self, pool: ThreadPoolExecutor) -> int:
        """Read the fragments that changed since the last read (as :meth:`list_fragments` found them), in parallel,
        and rebuild the catalog; returns how many were read."""
        listed = self._listed if self._listed is not None else fragments(self.fs, self.target)
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
        tables = list(pool.map(lambda j: read_fragment(self.fs, j[0]), todo))
        frags = {i.path: self._frags[i.path] for i in listed if i.path in self._frags}
        for (path, size, mtime), tbl in zip(todo, tables, strict=True):
            if tbl is None:  # removed between the listing and the read
                frags.pop(path, None)
            else:
                frags[path] = Fragment(size, mtime, began, tbl)
        changed = bool(todo) or len(frags) != len(self._frags)
        self._frags, self.read_at = frags, began
        self.fragments_read += len(todo)
        if changed or self.catalog is None:
            self._merge()
            self._unsaved = True
        return len(todo)

    def _merge(self) -> None:
        cat = merge_fragments([f.table for f in self._frags.values()])
        self.catalog = cat
        sids = cat.column("session_id").to_pylist() if cat is not None else []
        self._row = {s: i for i, s in enumerate(sids)}

    def has(self, session_id: str) -> bool:
        return session_id in self._row

    def session_ids(self) -> frozenset[str]:
        return frozenset(self._row)

    def keys(self, session_id: str) -> list[str] | None:
        """The session's object keys, None when the catalog does not name it."""
        i = self._row.get(session_id)
        if i is None or self.catalog is None:
            return None
        return list(self.catalog.column(KEYS_COLUMN)[i].as_py() or [])

    def version(self, session_id: str) -> str | None:
        i = self._row.get(session_id)
        if i is None or self.catalog is None or "published_at" not in self.catalog.column_names:
            return None
        return str(self.catalog.column("published_at")[i].as_py())

    def row(self, session_id: str) -> dict[str, Any]:
        i = self._row.get(session_id)
        return {} if i is None or self.catalog is None else self.catalog.slice(i, 1).to_pylist()[0]

    def save(self, force: bool = False) -> bool:
        """Write the fragments to the snapshot file (atomically), when changed and ``save_every_s`` passed."""
        if not self._unsaved or (not force and time.monotonic() - self._saved_at < self.save_every_s):
            return False
        names = list(self._frags)
        index = [[n, self._frags[n].size, self._frags[n].mtime, self._frags[n].read_at] for n in names]
        rows = [self._frags[n].table.num_rows for n in names]
        parts = [self._frags[n].table for n in names]
        table = (
            pa.concat_tables(parts, promote_options="permissive")
            if parts
            else pa.table({"session_id": pa.array([], pa.string())})
        )
        meta = {_META: json.dumps({"fragments": index, "rows": rows, "read_at": self.read_at}).encode()}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
        self.snapshot.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.snapshot.with_suffix(".tmp")
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, self.snapshot)
        self._saved_at, self._unsaved = time.monotonic(), False
        return True

    def load(self) -> bool:
        """The fragments of the last snapshot (False when there is none, or it does not read)."""
        try:
            table = pq.read_table(self.snapshot)
            meta = json.loads((table.schema.metadata or {})[_META])
        except (OSError, KeyError, ValueError, pa.ArrowException) as exc:
            if self.snapshot.exists():
                log.warning(
                    "the lake snapshot %s does not read (%s): starting without it", self.snapshot, exc
                )
            return False
        frags, at = {}, 0
        for (name, size, mtime, read_at), n in zip(meta["fragments"], meta["rows"], strict=True):
            frags[name] = Fragment(int(size), float(mtime), float(read_at), table.slice(at, n))
            at += n
        self._frags, self.read_at = frags, meta.get("read_at")
        self._merge()
        return True

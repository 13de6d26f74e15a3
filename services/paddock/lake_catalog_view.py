"""The S3 lake's catalog as the paddock follows it: incremental, and kept in a local snapshot file.

Each writer's fragment is kept as last read, with its listing stamp (size, time); a refresh lists the
fragments (one LIST) and reads again only those whose stamp changed, or whose last read began within the
second of their time (S3 times are whole seconds: a same-size rewrite in that second looks unchanged, see
:func:`shared.store.lake_catalog.catalog_settled`). The merged catalog is rebuilt from the tables in memory
(Arrow, no request). A publish by one car therefore costs one LIST and one GET of that car's fragment,
whatever the fleet.

The rows are saved to ``<paddock>/lake_snapshot.parquet`` (one file, each row tagged with its fragment,
the fragments' stamps in the file's metadata), at most every ``save_every_s``: a paddock starts from it at once, and
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
import pyarrow.compute as pc
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
_FRAG = "_fragment"  # the fragment a row came from (in memory and in the snapshot)


@dataclass(frozen=True)
class Fragment:
    """One writer's fragment as read: its listing stamp and when our read of it began."""

    size: int
    mtime: float
    read_at: float


class CatalogView:
    def __init__(self, fs: pafs.FileSystem, target: LakeTarget, snapshot: Path, save_every_s: float = 30.0):
        self.fs, self.target, self.snapshot = fs, target, snapshot
        self.save_every_s = save_every_s
        self._frags: dict[str, Fragment] = {}
        self._rows: pa.Table | None = None  # every fragment's rows, each tagged with its fragment (_FRAG)
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
        """Read the fragments that changed since the last read (as :meth:`list_fragments` found them), in
        parallel, and rebuild the catalog from the rows in memory; returns how many were read."""
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
        if todo or gone or self.catalog is None:
            self._replace({p for p, _, _ in todo} | gone, fresh)
            self._unsaved = True
        return len(todo)

    def _replace(self, paths: set[str], fresh: list[pa.Table]) -> None:
        """The rows of ``paths`` replaced by ``fresh`` (only those tables are touched), then the catalog."""
        keep = self._rows
        if keep is not None and paths:
            keep = keep.filter(pc.invert(pc.is_in(keep.column(_FRAG), pa.array(sorted(paths), pa.string()))))
        parts = ([keep] if keep is not None else []) + fresh
        self._rows = pa.concat_tables(parts, promote_options="permissive") if parts else None
        self._merge()

    def _merge(self) -> None:
        rows = self._rows
        cat = merge_fragments([rows.drop_columns([_FRAG])]) if rows is not None and rows.num_rows else None
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
        """Write the fragments' rows to the snapshot file (atomically), when changed and ``save_every_s``
        passed (or ``force``)."""
        if not self._unsaved or (not force and time.monotonic() - self._saved_at < self.save_every_s):
            return False
        index = [[n, f.size, f.mtime, f.read_at] for n, f in self._frags.items()]
        table = self._rows if self._rows is not None else pa.table({_FRAG: pa.array([], pa.string())})
        meta = {_META: json.dumps({"fragments": index, "read_at": self.read_at}).encode()}
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
            frags = {
                str(n): Fragment(int(size), float(mtime), float(at))
                for n, size, mtime, at in meta["fragments"]
            }
        except (OSError, KeyError, ValueError, TypeError, pa.ArrowException) as exc:
            if self.snapshot.exists():
                log.warning(
                    "the lake snapshot %s does not read (%s): starting without it", self.snapshot, exc
                )
            return False
        self._frags, self.read_at = frags, meta.get("read_at")
        self._rows = table.replace_schema_metadata(None) if table.num_rows else None
        self._merge()
        return True

"""Following one Delta table version by version: what the commits since a version added.

A reader that holds a table's rows as of version ``v`` needs, for version ``w > v``, only the data files the
commits ``v+1 .. w`` added with ``dataChange`` (the publications since). A compaction's files
(``dataChange: false``) hold rows already held, and its removes drop nothing a reader keeps, so both are
skipped. One ``DeltaTable`` is kept and advanced with ``update_incremental`` (it lists the log from the
version it holds); the commit entries (``_delta_log/<version>.json``) and the added files are read through
the caller's pyarrow filesystem, so a counting filesystem sees every object read.

:meth:`DeltaLog.added` says ``None`` (read the table whole) when a commit cannot be followed by its adds: its
log entry is gone (cleaned up past the version held), it changes the schema (``metaData``), or it removes
rows (a ``remove`` with ``dataChange``), or more than :data:`FOLLOW_AT_MOST` versions are to be followed (a
snapshot long out of date: two GETs a version cost more than the table's few compacted files); a data file
vacuumed before it was read is the caller's ``FileNotFoundError``, handled the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from deltalake import DeltaTable

from shared.store.lake_tables import LakeTables

FOLLOW_AT_MOST = 500  # versions followed by their adds; more: the table read whole


class DeltaLog:
    """One table of ``tables`` (``name``) whose files ``fs`` reads at ``root`` (the table's pyarrow path)."""

    def __init__(self, tables: LakeTables, name: str, fs: pafs.FileSystem, root: str) -> None:
        self.tables, self.name, self.fs, self.root = tables, name, fs, root.rstrip("/")
        self._dt: DeltaTable | None = None
        self.files_read = 0  # data files read by :meth:`read_files` (what following costs)

    def newest(self) -> int | None:
        """The table's newest version (None while it was never written): the first call loads the table
        (from its last checkpoint), later ones read only the log entries since."""
        if self._dt is None:
            self._dt = self.tables.table(self.name)
        else:
            self._dt.update_incremental()
        return None if self._dt is None else self._dt.version()

    def whole(self) -> pa.Table:
        """Every row of the version :meth:`newest` returned (the fallback)."""
        if self._dt is None:
            raise FileNotFoundError(self.name)
        return self._dt.to_pyarrow_dataset().to_table()

    def added(self, since: int, upto: int, fetch: Callable[..., list[bytes]]) -> list[str] | None:
        """The pyarrow paths of the data files the commits ``since+1 .. upto`` added with data (in commit
        order); None when one of them cannot be followed by its adds (see the module). ``fetch(read,
        items)``: maps ``read`` over ``items`` (a thread pool's ``map``, as a list)."""
        if upto - since > FOLLOW_AT_MOST:
            return None
        try:
            entries = fetch(self._entry, list(range(since + 1, upto + 1)))
        except FileNotFoundError:
            return None
        out: list[str] = []
        for text in entries:
            for line in text.splitlines():
                act = json.loads(line) if line.strip() else {}
                if "metaData" in act or ("remove" in act and act["remove"].get("dataChange", True)):
                    return None
                add = act.get("add")
                if add is not None and add.get("dataChange", True):
                    out.append(f"{self.root}/{unquote(add['path'])}")
        return out

    def _entry(self, version: int) -> bytes:
        with self.fs.open_input_stream(f"{self.root}/_delta_log/{version:020d}.json") as f:
            return bytes(f.read())

    def read_files(self, paths: list[str], fetch: Callable[..., list[pa.Table]]) -> list[pa.Table]:
        """The data files at ``paths`` (FileNotFoundError when one was vacuumed meanwhile)."""
        self.files_read += len(paths)
        return fetch(self._read, paths)

    def _read(self, path: str) -> pa.Table:
        with self.fs.open_input_file(path) as f:
            return pq.read_table(f)

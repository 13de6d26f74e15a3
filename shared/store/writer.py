"""The hot path's store writer: a background thread owns the DuckDB connection; callers only enqueue.

``submit`` never blocks and never drops: rows wait in an unbounded deque (its depth is exposed) and are
flushed in Arrow batches at least every ``flush_interval_s``. ``mark(fn)`` runs ``fn`` once everything
submitted before it is committed: that is how an acknowledgement learns how far durability reaches.

A full disk (or a DuckDB file invalidated by one) never drops a batch: the unwritten parts go back to the
front of the queue, ``blocked`` says why (the hot path then refuses new frames with that reason), and the
writer retries every ``RETRY_S``, reopening DuckDB through ``reopen`` when the failure invalidated it.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

import duckdb
import pyarrow as pa

from shared.store.hot import insert_arrow, rows_table

log = logging.getLogger(__name__)

Job = Callable[[duckdb.DuckDBPyConnection], Any]
RETRY_S = 0.5
_JOB, _MARK = "__job__", "__mark__"
_FULL_WORDS = ("no space left", "disk quota", "disk full", "not enough space")


def storage_failure(exc: BaseException) -> str | None:
    """'disk_full' or 'invalidated' when ``exc`` is the storage failing (keep the data, retry), else None."""
    text = str(exc).lower()
    if "invalidated" in text or isinstance(exc, duckdb.FatalException):
        return "invalidated"
    if (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)) or any(
        w in text for w in _FULL_WORDS
    ):
        return "disk_full"
    return None


def _arrow_units(tables: list[pa.Table]) -> list[tuple[Any, list[Any]]]:
    """Arrow parts of one table as few inserts as possible: runs of parts with the same schema become one
    table (zero-copy), since each insert is a commit whose fixed cost outweighs hundreds of rows."""
    units: list[tuple[Any, list[Any]]] = []
    run: list[pa.Table] = []
    for t in [*tables, None]:
        if run and (t is None or not t.schema.equals(run[0].schema)):
            units.append((run[0] if len(run) == 1 else pa.concat_tables(run).combine_chunks(), run))
            run = []
        if t is not None:
            run.append(t)
    return units


class StoreWriter:
    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        flush_interval_s: float = 0.5,
        reopen: Callable[[], duckdb.DuckDBPyConnection] | None = None,
    ) -> None:
        self.con = con
        self.flush_interval_s = flush_interval_s
        self.reopen = reopen
        self._q: deque[tuple[str, Any]] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self.rows_written = 0
        self.flushes = 0
        self.errors = 0
        self.last_error: str | None = None
        self.blocked: str | None = None  # why writes cannot land now (a full disk); None when they can
        self.retries = 0
        self._invalid = False
        self._oldest_pending: float | None = None
        self._last_flush = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="pitwall-store-writer", daemon=True)
        self._thread.start()

    # ---- producer side (frame path) -------------------------------------------
    def submit(self, table: str, rows: pa.Table | list[dict[str, Any]] | Callable[[], pa.Table]) -> None:
        """``rows``: row dicts, an Arrow table, or the call that builds one (run on the writer's thread, so
        the producer does not pay for it)."""
        if self._oldest_pending is None:
            self._oldest_pending = time.monotonic()
        self._idle.clear()
        self._q.append((table, rows))

    def call(self, job: Job) -> None:
        """Run ``job(con)`` on the writer thread, in order with the rows submitted before it."""
        self._idle.clear()
        self._q.append((_JOB, job))
        self._wake.set()

    def run(self, job: Job, timeout: float = 600.0) -> Any:
        """Run ``job(con)`` on the writer thread and wait for its result (or its exception); for worker
        threads (an import handed to the hot path), never the event loop."""
        done = threading.Event()
        out: list[Any] = []

        def wrapped(con: duckdb.DuckDBPyConnection) -> None:
            try:
                out.append((True, job(con)))
            except Exception as exc:  # the caller's error, not the writer's
                out.append((False, exc))
            done.set()

        self.call(wrapped)
        if not done.wait(timeout):
            raise TimeoutError(f"the store writer did not run the job within {timeout:g} s")
        ok, value = out[0]
        if not ok:
            raise value
        return value

    def mark(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` on the writer thread once everything submitted before it is committed."""
        self._idle.clear()
        self._q.append((_MARK, fn))

    def wake(self) -> None:
        self._wake.set()

    @property
    def queue_depth(self) -> int:
        return len(self._q)

    @property
    def lag_s(self) -> float:
        return 0.0 if self._oldest_pending is None else time.monotonic() - self._oldest_pending

    def flush(self, timeout: float = 10.0) -> bool:
        """Block until everything submitted so far is written (not for the frame path)."""
        self._wake.set()
        deadline = time.monotonic() + timeout
        while self._q or not self._idle.is_set():
            if time.monotonic() > deadline:
                return False
            self._wake.set()
            time.sleep(0.005)
        return True

    def close(self) -> None:
        self.flush(timeout=2.0 if self.blocked else 10.0)
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    # ---- writer thread ----------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(RETRY_S if self.blocked else self.flush_interval_s)
            self._wake.clear()
            self._drain()
        self._drain()

    def _drain(self) -> None:
        if self._invalid and not self._reopen():
            return
        if not self._q:
            self._idle.set()
            return
        self._oldest_pending = None
        batch: dict[str, list[Any]] = defaultdict(list)
        # everything popped since the last successful write, in order: rows, the marks waiting for them
        # (run once the drain's rows are committed: one insert per table, not one per mark) and a job
        taken: list[tuple[str, Any]] = []
        while self._q:
            item = self._q.popleft()
            table, rows = item
            if callable(rows) and table not in (_JOB, _MARK):  # built here, off the producer's thread
                rows = self._build(table, rows)
                if rows is None:
                    continue
                item = (table, rows)
            taken.append(item)
            if table == _JOB:  # runs after everything before it is written, and before what follows
                if not self._write(batch, taken):
                    return  # the job went back to the queue after the rows it follows
                self._run_marks(taken)
                batch, taken = defaultdict(list), []
                if not self._job(rows):
                    self._q.appendleft(item)
                    return
            elif table != _MARK:
                batch[table].append(rows)
        if not self._write(batch, taken):
            return
        self._run_marks(taken)
        self.flushes += 1
        self._last_flush = time.monotonic()
        if self.blocked:
            log.warning("store writes succeed again (%s)", self.blocked)
            self.blocked = None
        if not self._q:
            self._idle.set()

    def _build(self, table: str, build: Callable[[], pa.Table]) -> pa.Table | None:
        """A part submitted as the call that builds it; a failure is counted and the part dropped."""
        try:
            return build()
        except Exception as exc:
            self.errors += 1
            self.last_error = f"{table}: {type(exc).__name__}: {exc}"
            log.exception("building a batch for %s failed", table)
            return None

    @staticmethod
    def _run_marks(taken: list[tuple[str, Any]]) -> None:
        for table, fn in taken:
            if table == _MARK:
                fn()

    def _job(self, job: Job) -> bool:
        try:
            job(self.con)
        except Exception as exc:  # a failing job must not kill the writer
            if self._storage_failed(exc):
                return False  # kept: run again when space returns
            self.errors += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.exception("store job failed")
        return True

    def _write(self, batch: dict[str, list[Any]], taken: list[tuple[str, Any]]) -> bool:
        """Insert the batch table by table. On a storage failure, what is not committed (with the marks
        and job in ``taken``) goes back to the front of the queue, in order, and False is returned; other
        errors are counted and dropped."""
        done: set[int] = set()
        for table, parts in batch.items():
            dicts = [p for p in parts if not isinstance(p, pa.Table)]
            units = _arrow_units([p for p in parts if isinstance(p, pa.Table)])
            if dicts:  # row dicts of one table become one Arrow batch
                units.append((None, dicts))
            while units:
                tbl, members = units.pop(0)
                try:
                    if tbl is None:
                        tbl = rows_table(self.con, table, [r for m in members for r in m], "")
                    insert_arrow(self.con, table, tbl)
                except Exception as exc:
                    if self._storage_failed(exc):
                        self._q.extendleft(reversed([it for it in taken if id(it[1]) not in done]))
                        self._oldest_pending = self._oldest_pending or time.monotonic()
                        return False
                    if isinstance(tbl, pa.Table) and len(members) > 1:  # one part is bad: find which
                        units[:0] = [(m, [m]) for m in members]
                        continue
                    self.errors += 1
                    self.last_error = f"{table}: {type(exc).__name__}: {exc}"
                    log.exception("store write to %s failed", table)
                else:
                    self.rows_written += tbl.num_rows
                done.update(id(m) for m in members)
        return True

    def _storage_failed(self, exc: BaseException) -> bool:
        kind = storage_failure(exc)
        if kind is None:
            return False
        self.retries += 1
        first = self.blocked is None
        self.blocked = f"disk full: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        self.last_error = self.blocked
        if kind == "invalidated":
            self._invalid = True
        if first:
            log.error("store writes fail (%s); keeping the data and retrying every %.1f s", exc, RETRY_S)
        return True

    def _reopen(self) -> bool:
        """A fatal DuckDB error invalidated the connection: open the file again (replaying its WAL)."""
        if self.reopen is None:
            return False
        try:
            self.con = self.reopen()
        except Exception as exc:  # still no space to replay the WAL: try again later
            self.retries += 1
            self.last_error = f"reopening the store: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
            return False
        self._invalid = False
        log.warning("store reopened after a fatal error")
        return True

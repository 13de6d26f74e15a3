"""The hot path's store writer: a background thread owns the DuckDB connection; callers only enqueue.

``submit`` never blocks and never drops: rows wait in an unbounded deque (its depth is exposed) and are
flushed in Arrow batches at least every ``flush_interval_s``. A crash loses at most one interval.
"""

from __future__ import annotations

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


class StoreWriter:
    def __init__(self, con: duckdb.DuckDBPyConnection, flush_interval_s: float = 0.5) -> None:
        self.con = con
        self.flush_interval_s = flush_interval_s
        self._q: deque[tuple[str, Any]] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self.rows_written = 0
        self.flushes = 0
        self.errors = 0
        self.last_error: str | None = None
        self._oldest_pending: float | None = None
        self._last_flush = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="pitwall-store-writer", daemon=True)
        self._thread.start()

    # ---- producer side (frame path) -------------------------------------------
    def submit(self, table: str, rows: pa.Table | list[dict[str, Any]]) -> None:
        if self._oldest_pending is None:
            self._oldest_pending = time.monotonic()
        self._idle.clear()
        self._q.append((table, rows))

    def call(self, job: Job) -> None:
        """Run ``job(con)`` on the writer thread, in order with the rows submitted before it."""
        self._idle.clear()
        self._q.append(("__job__", job))
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
        self.flush()
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    # ---- writer thread ----------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.flush_interval_s)
            self._wake.clear()
            self._drain()
        self._drain()

    def _drain(self) -> None:
        if not self._q:
            self._idle.set()
            return
        self._oldest_pending = None
        batch: dict[str, list[Any]] = defaultdict(list)
        while self._q:
            table, rows = self._q.popleft()
            if table == "__job__":
                self._write(batch)
                batch = defaultdict(list)
                try:
                    rows(self.con)
                except Exception as exc:  # a failing job must not kill the writer
                    self.errors += 1
                    self.last_error = f"{type(exc).__name__}: {exc}"
                    log.exception("store job failed")
                continue
            batch[table].append(rows)
        self._write(batch)
        self.flushes += 1
        self._last_flush = time.monotonic()
        if not self._q:
            self._idle.set()

    def _write(self, batch: dict[str, list[Any]]) -> None:
        for table, parts in batch.items():
            try:
                tables: list[pa.Table] = []
                dict_rows: list[dict[str, Any]] = []
                for p in parts:
                    if isinstance(p, pa.Table):
                        tables.append(p)
                    else:
                        dict_rows.extend(p)
                if dict_rows:
                    sid = dict_rows[0].get("session_id", "")
                    tables.append(rows_table(self.con, table, dict_rows, sid))
                for t in tables:
                    insert_arrow(self.con, table, t)
                    self.rows_written += t.num_rows
            except Exception as exc:
                self.errors += 1
                self.last_error = f"{table}: {type(exc).__name__}: {exc}"
                log.exception("store write to %s failed", table)

"""The paddock's own DuckDB file: conversations, agent traces, LLM call records. One writer.

Conversation turns are written through at once (a crash loses nothing a driver said or was told), except
for a deleted session: a request asked before its session was deleted (a debrief still streaming) leaves
no turn behind (``forget_session`` and ``turn`` decide it under one lock, so no turn slips in between). Trace
and LLM-call rows are many per request: they are buffered and written as Arrow batches every 0.25 s by a
background thread, so the event loop never waits on them; every read flushes them first.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa

from shared.settings import Settings
from shared.store.hot import insert_arrow

log = logging.getLogger(__name__)

DDL = (
    """CREATE TABLE IF NOT EXISTS conversations (conversation_id VARCHAR, driver_id VARCHAR, session_id VARCHAR,
       kind VARCHAR, turn INTEGER, role VARCHAR, text VARCHAR, emotion VARCHAR, narrator VARCHAR,
       complete BOOLEAN, closed BOOLEAN DEFAULT false, meta_json VARCHAR, ts TIMESTAMP)""",
    """CREATE TABLE IF NOT EXISTS agent_traces (id VARCHAR, trace_id VARCHAR, pitwall_sid VARCHAR, agent_name VARCHAR,
       event_type VARCHAR, detail VARCHAR, latency_ms DOUBLE, success BOOLEAN, ts TIMESTAMP)""",
    """CREATE TABLE IF NOT EXISTS llm_friction (id VARCHAR, ts TIMESTAMP, role VARCHAR, mode VARCHAR, backend VARCHAR,
       prompt_chars INTEGER, completion_chars INTEGER, latency_ms DOUBLE, truncated BOOLEAN, fell_back BOOLEAN,
       error VARCHAR, emotion VARCHAR)""",
)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class PaddockStore:
    def __init__(self, settings: Settings) -> None:
        settings.paddock_dir.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect(str(settings.paddock_db_path))
        self._lock = threading.Lock()
        for d in DDL:
            self.con.execute(d)
        self._pending: dict[str, list[dict[str, Any]]] = {"agent_traces": [], "llm_friction": []}
        self._forgotten: dict[str, float] = {}  # session id -> monotonic time it was deleted
        self._plock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._stop = threading.Event()
        self._flusher = threading.Thread(target=self._flush_loop, name="paddock-store-flush", daemon=True)
        self._flusher.start()

    def close(self) -> None:
        self._stop.set()
        self._flusher.join(timeout=5)
        self.flush()
        self.con.close()

    def _flush_loop(self) -> None:
        while not self._stop.wait(0.25):
            try:
                self.flush()
            except Exception:  # a failed batch must not stop later ones
                log.exception("paddock store flush failed")

    def flush(self) -> None:
        """Write the buffered trace and LLM-call rows (one Arrow batch per table). A reader's flush waits for
        one already under way, so a query never misses rows that were taken off the buffer but not written."""
        with self._flush_lock:
            self._flush()

    def _flush(self) -> None:
        with self._plock:
            pending = {t: rows for t, rows in self._pending.items() if rows}
            self._pending = {t: [] for t in self._pending}
        for table, rows in pending.items():
            batch = pa.Table.from_pylist(rows)
            with self._lock:
                insert_arrow(self.con, table, batch)

    def _buffer(self, table: str, row: dict[str, Any]) -> None:
        with self._plock:
            self._pending[table].append(row)

    def trace(
        self,
        trace_id: str,
        sid: str | None,
        agent: str,
        event: str,
        detail: Any,
        latency_ms: float | None,
        success: bool,
    ) -> None:
        self._buffer(
            "agent_traces",
            {
                "id": uuid.uuid4().hex,
                "trace_id": trace_id,
                "pitwall_sid": sid,
                "agent_name": agent,
                "event_type": event,
                "detail": json.dumps(detail, default=str)[:2000],
                "latency_ms": latency_ms,
                "success": success,
                "ts": _now(),
            },
        )

    def friction(self, **row: Any) -> None:
        full = {
            "id": uuid.uuid4().hex,
            "ts": _now(),
            "role": None,
            "mode": None,
            "backend": None,
            "prompt_chars": None,
            "completion_chars": None,
            "latency_ms": None,
            "truncated": None,
            "fell_back": None,
            "error": None,
            "emotion": None,
        }
        full.update(row)
        self._buffer("llm_friction", full)

    def turn(
        self,
        conversation_id: str,
        driver_id: str,
        session_id: str | None,
        kind: str,
        turn: int,
        role: str,
        text: str,
        emotion: str | None = None,
        narrator: str | None = None,
        complete: bool = True,
        meta: dict[str, Any] | None = None,
        asked_at: float | None = None,
    ) -> bool:
        """Write one turn; False (nothing written) when the request was asked (``asked_at``, monotonic;
        None: now) before ``session_id`` was deleted."""
        row = {
            "conversation_id": conversation_id,
            "driver_id": driver_id,
            "session_id": session_id,
            "kind": kind,
            "turn": turn,
            "role": role,
            "text": text,
            "emotion": emotion,
            "narrator": narrator,
            "complete": complete,
            "closed": False,
            "meta_json": json.dumps(meta or {}, default=str),
            "ts": _now(),
        }
        with self._lock:
            gone = self._forgotten.get(session_id or "")
            if gone is not None and asked_at is not None and asked_at <= gone:
                return False
            self.con.execute(
                f"INSERT INTO conversations ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                list(row.values()),
            )
        return True

    def close_conversations(self, driver_id: str) -> int:
        with self._lock:
            r = self.con.execute(
                "UPDATE conversations SET closed = true WHERE driver_id = ? AND NOT closed", [driver_id]
            )
            row = r.fetchone()
            return int(row[0]) if row else 0

    def forget_session(self, session_id: str) -> int:
        """Delete every conversation turn about ``session_id`` (the session itself was deleted); a request
        asked before now that is still under way writes none later."""
        self.flush()
        with self._lock:
            self._forgotten[session_id] = time.monotonic()
            r = self.con.execute("DELETE FROM conversations WHERE session_id = ?", [session_id]).fetchone()
            return int(r[0]) if r else 0

    def query(self, sql: str, params: list[Any]) -> list[dict[str, Any]]:
        self.flush()
        with self._lock:
            rel = self.con.execute(sql, params)
            cols = [d[0] for d in rel.description or []]
            return [dict(zip(cols, r, strict=True)) for r in rel.fetchall()]

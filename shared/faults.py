"""Fault injection, for crash tests only.

``PITWALL_FAULT_KILL_AT=<step>`` makes the process kill itself with SIGKILL (no cleanup, no flush: a power
cut) the first time it reaches ``<step>``. Unset, as in every real deployment, nothing happens. The steps
are the points of end-of-session compaction on an S3 lake, in their order (:data:`STEPS`); the crash
tests (``tests/store/test_lake_s3_crash.py``) kill a real hot path at each and restart it.
"""

from __future__ import annotations

import os
import signal

ENV = "PITWALL_FAULT_KILL_AT"
STEPS = (
    "session_closed",  # the store has the session closed; the lake has not been published yet
    "lake_published",  # the local lake has the whole session; nothing of it is spooled for S3 yet
    "compacting",  # half the lap files are in the compacted telemetry file (still a temporary file)
    "compacted_spooled",  # the compacted object and small files wait in the spool, its catalog row not yet
    "compacted_uploaded",  # the compacted object is in the bucket, its spool entry not yet removed
    "tables_appended",  # the session's laps, corners and events are committed to their tables, its row not yet
    "catalog_merged",  # the session's closed catalog row is in the bucket, superseded laps not yet queued
    "superseded_queued",  # the superseded lap objects are queued for deletion, the spool not yet cleared
    "superseded_deleting",  # one superseded lap object deleted, the others not yet
)


def crash_point(step: str) -> None:
    """Kill this process here when ``PITWALL_FAULT_KILL_AT`` names ``step`` (one of :data:`STEPS`)."""
    if os.environ.get(ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)

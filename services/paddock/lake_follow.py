"""How the paddock follows the lake: a worker thread refreshes its view, requests never wait for it; and
whether the lake answers (``/health``, the tablet's banner, the errors of reads that need the store).

A refresh that cannot reach the store keeps the view it has (the last snapshot) and records since when the
store is away; the first refresh that reads again clears it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

log = logging.getLogger(__name__)


def clock(t: float) -> str:
    """A wall-clock time as the driver reads it: ``14:05``."""
    return datetime.fromtimestamp(t).strftime("%H:%M")


class LakeStatus:
    """Whether the last look at the lake read it, since when it does not, and how old the view is."""

    def __init__(self) -> None:
        self.away_since: float | None = None  # wall clock of the first failed look in a row
        self.problem: str | None = None  # why (the endpoint, the bucket or the credentials)
        self.read_at: float | None = None  # wall clock of the last look that read the lake

    def ok(self, read_at: float) -> None:
        if self.away_since is not None:
            log.warning("the lake answers again (it was unreachable since %s)", clock(self.away_since))
        self.away_since, self.problem, self.read_at = None, None, read_at

    def away(self, problem: str) -> None:
        if self.away_since is None:
            self.away_since = time.time()
            log.error("the lake is unreachable: %s; serving the sessions known at %s", problem, self.as_of())
        self.problem = problem

    def as_of(self) -> str:
        return clock(self.read_at) if self.read_at else "no time yet (nothing read since start)"

    @property
    def reachable(self) -> bool:
        return self.away_since is None

    def sentence(self) -> str | None:
        """What the tablet says while the lake is away (driver words), None while it answers."""
        if self.away_since is None:
            return None
        seen = (
            f"the session list is as of {clock(self.read_at)}" if self.read_at else "no sessions are listed"
        )
        return (
            f"Lake unreachable since {clock(self.away_since)}: {seen}; sessions published since then are "
            "not listed, and a session's laps and telemetry open only if this paddock read them before."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "reachable": self.away_since is None,
            "unreachable_since": clock(self.away_since) if self.away_since is not None else None,
            "problem": self.problem,
            "sessions_as_of": clock(self.read_at) if self.read_at else None,
            "message": self.sentence(),
        }


@dataclass(frozen=True)
class LakeHealth:
    """What ``/health`` says of the lake, made whole after each look and swapped in one assignment: a
    request reads one reference (no lock, no I/O, nothing of the catalog), whatever the follower is doing."""

    newest_mtime: float = 0.0  # the lake's newest publication time as last read (0: none)
    said: Mapping[str, Any] = field(
        default_factory=lambda: MappingProxyType({})
    )  # the status (LakeStatus.as_dict) and the old layout

    def as_dict(self, now: float) -> dict[str, Any]:
        age = round(now - self.newest_mtime, 1) if self.newest_mtime else None
        return {"newest_file_age_s": age, **self.said}


class Follower:
    """A daemon thread calling ``look`` every ``interval_s`` (a failed look is logged, never fatal)."""

    def __init__(self, look: Callable[[], None], interval_s: float) -> None:
        self.look, self.interval_s = look, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lake-follow", daemon=True)
        self._wait_first = False

    def start(self, look_first: bool) -> None:
        """``look_first``: at once (the view is a snapshot), else after one interval (it was just read)."""
        self._wait_first = not look_first
        self._thread.start()

    def _run(self) -> None:
        if self._wait_first:
            self._stop.wait(self.interval_s)
        while not self._stop.is_set():
            try:
                self.look()
            except Exception:  # a bug in one look must not stop the following
                log.exception("lake refresh failed")
            self._stop.wait(self.interval_s)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

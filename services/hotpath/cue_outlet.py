"""A live session's decisions become cues: each one counted, kept, stored as a coaching note and handed to
``on_cue`` with the epoch ms by which its speech must start (``speak_by``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from services.hotpath import records
from services.hotpath.arbiter import Decision
from services.hotpath.clock import SessionClock
from services.hotpath.cue import Cue
from services.hotpath.frame_buffer import Sink

SAFETY_SPEAK_WITHIN_S = 2.0  # session seconds: a safety cue not started by then is stale


class CueOutlet:
    """Where a session's arbiter decisions leave it (``LiveSession`` is one)."""

    session_id: str
    sink: Sink
    last_t: float | None  # the session time of the last frame

    def __init__(self, on_cue: Callable[[Cue], None] | None, audio_s: dict[str, float] | None) -> None:
        self.on_cue = on_cue
        self.clock = SessionClock()
        self.audio_s = audio_s or {}  # cue text -> length of its pre-rendered audio (pitwall voices build)
        self.decisions: list[Decision] = []
        self.cues_spoken = 0
        self.cues_dropped = 0

    def speak_by(self, d: Decision) -> int | None:
        """Epoch ms by which a spoken decision must start; None for a dropped one."""
        if d.status != "spoken":
            return None
        if d.deadline_t_s is None:
            deadline = d.t_s + SAFETY_SPEAK_WITHIN_S
        else:  # the rendered audio of this phrase may be longer than the arbiter's speaking budget
            deadline = d.deadline_t_s - max(0.0, self.audio_s.get(d.phrase.text, 0.0) - d.phrase.speak_s)
        return self.clock.to_epoch_ms(
            deadline, self.last_t if self.last_t is not None else d.t_s, time.time()
        )

    def _emit(self, d: Decision, arrived: float) -> Cue:
        latency = (time.perf_counter() - arrived) * 1000
        cue = Cue(
            datetime.now(UTC).isoformat(),
            self.session_id,
            d.lap,
            d.hit.corner.id if d.hit.corner else None,
            d.phrase.id,
            d.phrase.text,
            d.hit.priority,
            d.hit.rule,
            latency,
            d.status,
            d.reason,
            d.hit.source_lap,
            self.speak_by(d),
            d.phrase.speak_s,
        )
        self.decisions.append(d)
        if d.status == "spoken":
            self.cues_spoken += 1
        else:
            self.cues_dropped += 1
        self.sink(*records.note(self.session_id, d, latency))
        if self.on_cue is not None:
            self.on_cue(cue)
        return cue

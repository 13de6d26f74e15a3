"""A decided cue as the frame path reports it: what was said (or dropped, and why), and by when."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Cue:
    ts: str
    session_id: str
    lap: int
    corner: str | None
    phrase_id: str
    text: str
    priority: int
    rule: str
    latency_ms: float
    status: str
    reason: str | None
    source_lap: int | None
    speak_by: int | None = None  # epoch ms by which speech must start (spoken cues only)
    speak_s: float = 0.0  # the arbiter's speaking-time budget for the phrase; speak_by assumes it

    def event(self) -> dict[str, Any]:
        return {
            "ts": self.ts,
            "session_id": self.session_id,
            "lap": self.lap,
            "corner": self.corner,
            "phrase_id": self.phrase_id,
            "text": self.text,
            "priority": self.priority,
            "rule": self.rule,
            "latency_ms": round(self.latency_ms, 3),
            "status": self.status,
            "reason": self.reason,
            "speak_by": self.speak_by,
            "speak_s": round(self.speak_s, 2),
        }

"""A session's corners from its analysis: where the time is (the one ranking every surface shows), each
corner's time to find with its cause and evidence, in the driver's words."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.analysis.model import BEST, CAUSE_WORDS, SPLIT_RULE, TYPICAL, CornerLap, finite
from shared.analysis.session import SessionAnalysis

TOP_N = 3
#: how every surface labels the figures below
LABELS = {
    "per_lap_s": f"time to find a lap at this corner, on the laps it was lost (against {TYPICAL})",
    "session_s": "time lost at this corner over the session",
    "best_s": BEST,
    "split": SPLIT_RULE,
}


@dataclass
class CornerSummary:
    corner_id: str
    corner: str
    seq: int
    valid_laps: int  # laps the corner was timed on
    laps: list[int] = field(default_factory=list)  # the laps that lost time here
    per_lap_s: float = 0.0  # the median loss on those laps (the one "time to find")
    session_s: float = 0.0  # their sum
    cause: str = ""
    says: str = ""  # the cause in words
    evidence: str = ""  # the worst lap of that cause, in words with both numbers
    worst_lap: int | None = None
    typical_s: float = float("nan")  # your good laps' time over its usual segment
    best_s: float = float("nan")  # your best time over it
    offs: list[int] = field(default_factory=list)  # laps with a stop, a spin or an off here: not ranked

    def as_dict(self) -> dict[str, Any]:
        return {
            "corner": self.corner,
            "corner_id": self.corner_id,
            "time_to_find_s": round(self.per_lap_s, 3),
            "session_s": round(self.session_s, 3),
            "laps": self.laps,
            "valid_laps": self.valid_laps,
            "cause": self.cause,
            "says": self.says,
            "evidence": self.evidence,
            "worst_lap": self.worst_lap,
            "your_good_laps_s": round(self.typical_s, 3) if finite(self.typical_s) else None,
            "your_best_s": round(self.best_s, 3) if finite(self.best_s) else None,
            "off_laps": self.offs,
            "labels": {"time_to_find_s": LABELS["per_lap_s"], "session_s": LABELS["session_s"]},
        }


def _summary(rows: list[CornerLap]) -> CornerSummary:
    r0 = rows[0]
    lost = [r for r in rows if r.cause and not r.off]
    s = CornerSummary(r0.corner_id, r0.corner, r0.seq, len(rows), best_s=r0.best_s)
    s.typical_s = r0.good_s
    s.offs = sorted(r.lap for r in rows if r.off)
    if not lost:
        return s
    s.laps = sorted(r.lap for r in lost)
    s.per_lap_s = float(np.median([r.loss_s for r in lost]))
    s.session_s = float(sum(r.loss_s for r in lost))
    count = Counter(r.cause for r in lost)
    total = {c: sum(r.loss_s for r in lost if r.cause == c) for c in count}
    s.cause = max(count, key=lambda c: (count[c], total[c]))
    worst = max((r for r in lost if r.cause == s.cause), key=lambda r: r.loss_s)
    s.says, s.evidence, s.worst_lap = CAUSE_WORDS[s.cause], worst.evidence, worst.lap
    return s


def corner_summaries(an: SessionAnalysis) -> list[CornerSummary]:
    """Every corner, the most time lost over the session first (then driving order)."""
    by: dict[str, list[CornerLap]] = {}
    for r in an.rows:
        by.setdefault(r.corner_id, []).append(r)
    out = [_summary(rs) for rs in by.values()]
    return sorted(out, key=lambda s: (-s.session_s, s.seq))


def where_the_time_is(an: SessionAnalysis, n: int = TOP_N) -> list[CornerSummary]:
    """The ``n`` corners with the most time lost over the session (only corners that lost time)."""
    return [s for s in corner_summaries(an) if s.laps][:n]

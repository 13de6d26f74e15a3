"""``register`` and the registries RuleCoach evaluates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shared.profiles.track import Corner


@dataclass
class RuleHit:
    rule: str
    priority: int
    template: str
    corner: Corner | None = None
    wheel: str | None = None
    source_lap: int | None = None
    time_lost: bool = False  # "you are losing time here" cues: never on a personal-best lap
    detail: dict[str, Any] = field(default_factory=dict)
    event: str | None = None  # safety hits: the event kind stored in driver_events (shared.event_conditions)

    @property
    def key(self) -> str:
        """Names this hit in another hit's decision (``superseded_by``)."""
        where = self.corner.id if self.corner is not None else "-"
        return f"{self.rule}@{where}/lap{self.source_lap}"


@dataclass(frozen=True)
class RuleSpec:
    name: str
    priority: int
    cooldown_s: float
    phrases: tuple[str, ...]
    kind: str  # technique | safety
    fn: Callable[..., RuleHit | None]


TECHNIQUE: dict[str, RuleSpec] = {}
SAFETY: dict[str, RuleSpec] = {}


def register(
    fn: Callable[..., RuleHit | None],
    name: str,
    priority: int,
    cooldown_s: float,
    phrases: tuple[str, ...],
    kind: str = "technique",
) -> None:
    """Register a rule. Technique rules get ``(obs, ctx)`` per corner; safety rules ``(row, ctx)`` per frame."""
    spec = RuleSpec(name, priority, cooldown_s, phrases, kind, fn)
    (SAFETY if kind == "safety" else TECHNIQUE)[name] = spec

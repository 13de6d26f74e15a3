"""What the simulator injects, and the ground truth it records."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Event:
    kind: str  # late_brake | early_brake | coasting | lockup | wheelspin | oil_pressure_drop | tpms_alarm
    lap: int
    corner_id: str | None = None
    wheel: str | None = None
    offset_m: float = 0.0
    duration_s: float = 0.0


@dataclass
class Scenario:
    events: list[Event] = field(default_factory=list)
    clean_laps: list[int] = field(default_factory=list)

    @classmethod
    def none(cls) -> Scenario:
        return cls([], [])

    @classmethod
    def clean(cls, laps: int) -> Scenario:
        """No mistakes: every full lap is a clean, consistent lap."""
        return cls([], list(range(1, laps + 1)))

    @classmethod
    def default(cls, laps: int) -> Scenario:
        """Mistakes in the middle of the session, a clean reference before them and a clean stint after.

        Laps are numbered from 1 (the first full lap); lap 0 is the out-lap. With fewer than 10 laps the
        events that need the most laps are left out, never squeezed in.
        """
        ev: list[Event] = []
        if laps >= 4:
            ev += [Event("late_brake", 3, "t11", offset_m=45.0), Event("late_brake", 4, "t11", offset_m=45.0)]
        if laps >= 5:
            ev += [Event("lockup", k, "t4", wheel="fl", duration_s=0.6) for k in (3, 4, 5)]
        if laps >= 6:
            ev += [Event("early_brake", 5, "t2", offset_m=35.0), Event("early_brake", 6, "t2", offset_m=35.0)]
            ev += [Event("coasting", 5, "t6", duration_s=1.6)]
        if laps >= 7:
            ev += [Event("wheelspin", k, "t7", wheel="rr", duration_s=0.8) for k in (4, 5, 6)]
            ev += [Event("oil_pressure_drop", 6, None, duration_s=2.0)]
            ev += [Event("tpms_alarm", 7, None, wheel="rl", duration_s=15.0)]
        last_event = max((e.lap for e in ev), default=2)
        clean = [k for k in range(1, laps + 1) if k > last_event or k <= 2]
        return cls(ev, clean)


@dataclass
class GroundTruth:
    laps: list[dict[str, Any]]
    events: list[dict[str, Any]]
    clean_laps: list[int]
    track_id: str
    car_id: str
    seed: int
    rate_hz: float

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> GroundTruth:
        return cls(**json.loads(text))

    def events_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == kind]

"""What the simulator injects, and the ground truth it records.

A session's scenario is drawn from its seed (``Scenario.draw``): which mistakes, at which corners, on
which laps and how big, so an unseen seed is an unseen scenario. A mistake is an *episode*: the same
mistake at the same corner on consecutive laps (a driver repeats what they do), after two clean laps
that set the reference and before a clean stint. ``Scenario.fixing`` gives "the next session" with
some of those mistakes fixed (removed) or reduced.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

DRIVING_MISTAKES = ("late_brake", "early_brake", "coasting", "lockup", "wheelspin")
CAR_EVENTS = ("oil_pressure_drop", "tpms_alarm")
ALL_KINDS = DRIVING_MISTAKES + CAR_EVENTS

# the size of each driving mistake: (the Event field, lowest, highest), drawn uniformly
SIZES: dict[str, tuple[str, float, float]] = {
    "late_brake": ("offset_m", 25.0, 50.0),
    "early_brake": ("offset_m", 20.0, 45.0),
    "coasting": ("duration_s", 1.5, 2.5),
    "lockup": ("duration_s", 0.4, 0.8),
    "wheelspin": ("duration_s", 0.5, 1.0),
}
# how many consecutive laps an episode lasts (lowest, highest); a repeated slip takes three to notice
REPEATS: dict[str, tuple[int, int]] = {
    "late_brake": (2, 3),
    "early_brake": (2, 3),
    "coasting": (1, 2),
    "lockup": (3, 4),
    "wheelspin": (3, 4),
}
FIRST_MISTAKE_LAP = 3  # laps 1 and 2 are clean: the reference
CLEAN_STINT = 3  # laps after the last mistake, in sessions of at least 7 laps
EARLY_MARGIN_M = 40.0  # an early brake stays this far inside the clean lap's run-up to the corner
CORNER_GAP_M = 100.0  # two mistake corners: the second's braking starts this far after the first's exit


@dataclass
class Event:
    kind: str  # late_brake | early_brake | coasting | lockup | wheelspin | oil_pressure_drop | tpms_alarm
    lap: int
    corner_id: str | None = None
    wheel: str | None = None
    offset_m: float = 0.0
    duration_s: float = 0.0


def injected_lines(events: list[Event]) -> list[str]:
    """What a scenario injected, one line per episode as a driver reads it ("late brake T7, laps 3-4"):
    the events grouped by kind and corner, laps in order. No size: a drawn late brake of 40 m is driven
    as the car allows (the onset moves less), so the data, not the draw, says how big it was."""
    eps: dict[tuple[str, str | None, str | None], list[Event]] = {}
    for e in events:
        eps.setdefault((e.kind, e.corner_id, e.wheel), []).append(e)
    out = []
    for (kind, corner, wheel), evs in eps.items():
        laps = sorted({e.lap for e in evs})
        where = f" {corner.upper()}" if corner else ""
        lap_s = f"lap {laps[0]}" if len(laps) == 1 else f"laps {laps[0]}-{laps[-1]}"
        out.append(f"{kind.replace('_', ' ')}{where}{f' ({wheel.upper()})' if wheel else ''}, {lap_s}")
    return out


@dataclass(frozen=True)
class Site:
    """A corner as the scenario draw sees it on the clean lap: where braking starts and its exit."""

    corner_id: str
    brake_m: float
    end_m: float
    brakes: bool  # the clean lap brakes hard for it (brake mistakes possible)
    slow_exit: bool  # a slow corner whose exit is traction-limited (wheelspin possible)
    run_up_s: float = 0.0  # how long the clean lap accelerates before braking (room to coast)
    run_up_m: float = 0.0  # ... and over what distance (room to brake early)


def _mistake_window(laps: int) -> tuple[int, int]:
    hi = laps - CLEAN_STINT if laps >= 7 else laps - 1
    return FIRST_MISTAKE_LAP, hi


def _clean_laps(events: list[Event], laps: int) -> list[int]:
    """Laps 1-2 and every lap after the last mistake (the clean stint)."""
    last = max((e.lap for e in events), default=FIRST_MISTAKE_LAP - 1)
    return [k for k in range(1, laps + 1) if k > last or k < FIRST_MISTAKE_LAP]


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
    def draw(cls, laps: int, seed: int, sites: list[Site], kinds: Collection[str] | None = None) -> Scenario:
        """The scenario of seed ``seed``: 1-4 of the driving mistakes (``kinds``: exactly these), each at
        its own corner, on consecutive laps, of a drawn size; an oil-pressure drop and a TPMS alarm each
        half the time. Laps are numbered from 1 (lap 0 is the out-lap); an episode that does not fit the
        session's mistake window is left out, never squeezed in."""
        unknown = set(kinds or ()) - set(ALL_KINDS)
        if unknown:
            raise ValueError(f"unknown event kinds: {sorted(unknown)}")
        rng = np.random.default_rng([seed, 25])  # its own stream: the sensor noise keeps the seed's
        lo, hi = _mistake_window(laps)
        if kinds is None:
            n = int(rng.integers(1, 5))
            chosen = [str(k) for k in rng.permutation(DRIVING_MISTAKES)[:n]]
            chosen += [k for k in CAR_EVENTS if rng.random() < 0.5]
        else:
            chosen = [k for k in ALL_KINDS if k in kinds]
            rng.shuffle(chosen)
        ev: list[Event] = []
        used: list[Site] = []
        for kind in chosen:
            if kind in CAR_EVENTS:
                if hi >= lo:
                    lap = int(rng.integers(lo, hi + 1))
                    wheel = str(rng.choice(["fl", "fr", "rl", "rr"])) if kind == "tpms_alarm" else None
                    ev.append(Event(kind, lap, None, wheel, duration_s=2.0 if wheel is None else 15.0))
                continue
            n_lo, n_hi = REPEATS[kind]
            n = int(rng.integers(n_lo, n_hi + 1))
            n = min(n, hi - lo + 1)
            if n < n_lo:
                continue
            site = _pick_site(kind, sites, used, rng)
            if site is None:
                continue
            used.append(site)
            first = int(rng.integers(lo, hi - n + 2))
            fld, a, b = SIZES[kind]
            size = round(float(rng.uniform(a, b)), 1 if fld == "offset_m" else 2)
            wheel = None
            if kind == "lockup":
                wheel = str(rng.choice(["fl", "fr"]))
            elif kind == "wheelspin":
                wheel = str(rng.choice(["rl", "rr"]))
            for lap in range(first, first + n):
                e = Event(kind, lap, site.corner_id, wheel)
                setattr(e, fld, size)
                ev.append(e)
        ev.sort(key=lambda e: (e.lap, e.kind))
        return cls(ev, _clean_laps(ev, laps))

    def fixing(self, corners: Iterable[str], scale: float = 0.0, laps: int | None = None) -> Scenario:
        """The next session: the same scenario with the driving mistakes at ``corners`` fixed
        (``scale`` 0) or reduced to ``scale`` of their size (0 < scale < 1); everything else unchanged."""
        if not 0.0 <= scale <= 1.0:
            raise ValueError("scale must be in [0, 1]")
        fix = set(corners)
        out: list[Event] = []
        for e in self.events:
            if e.kind in DRIVING_MISTAKES and e.corner_id in fix:
                if scale == 0.0:
                    continue
                fld = SIZES[e.kind][0]
                e = replace(e, **{fld: round(getattr(e, fld) * scale, 2)})
            out.append(e)
        n = laps if laps is not None else max([*self.clean_laps, *(e.lap for e in self.events), 0])
        return Scenario(out, _clean_laps(out, n))


def _pick_site(kind: str, sites: list[Site], used: list[Site], rng: np.random.Generator) -> Site | None:
    """A corner for ``kind``, not used yet and clear of the used ones (its braking starts at least
    CORNER_GAP_M after a used corner's exit, and the other way round), so one mistake's loss ends
    before another's begins."""

    def clear(s: Site) -> bool:
        return all(s.brake_m - u.end_m >= CORNER_GAP_M or u.brake_m - s.end_m >= CORNER_GAP_M for u in used)

    def fits(s: Site) -> bool:
        if kind == "wheelspin":
            return s.slow_exit
        if kind == "coasting":
            return s.brakes and s.run_up_s > SIZES[kind][2]
        if kind == "early_brake":
            return s.brakes and s.run_up_m > SIZES[kind][2] + EARLY_MARGIN_M
        return s.brakes

    ok = [s for s in sites if fits(s) and s not in used]
    ok = [s for s in ok if clear(s)]
    return ok[int(rng.integers(0, len(ok)))] if ok else None


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

"""What a question names and what each family reads: a family answers a question only when it reads every
slot the question filled (docs/ARCHITECTURE.md, "Questions", coverage). Data, not phrases: ``READS`` per
family, ``COVERS`` per measure. Pure (the families' functions are only keys here)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from services.paddock import measures as ms
from services.paddock.questions.families import (
    balance,
    channel_set,
    channels,
    coaching,
    coasting,
    compare,
    corner_channel,
    corners,
    events,
    gears,
    inputs,
    judge,
    lap_set,
    laps,
    lifts,
    markers,
    phases,
    recorded,
    sectors,
    sessions,
    trail,
)
from services.paddock.questions.model import Answer, Question

Family = Callable[[Question, dict[str, Any]], Answer | None]

SPEEDS = frozenset({"speed", "top_speed", "min_speed", "entry_speed", "exit_speed", "apex_speed"})
_DRIVING = SPEEDS | {
    "brake_point",
    "throttle",
    "corner_phases",
    "coasting",
    "gear",
    "lap_time",
    "smoothness",
}


@dataclass(frozen=True)
class Reads:
    """The slots a family reads (of ``named``'s: laps, best, corner, sector, measure, within, without, vitals;
    no family reads ``also``) and, when it reads a measure, which (None: any it is given)."""

    slots: frozenset[str]
    measures: frozenset[str] | None = None


def _r(slots: str, measures: frozenset[str] | None = None) -> Reads:
    return Reads(frozenset(slots.split()), measures)


READS: dict[Family, Reads] = {
    laps.answer: _r("laps without"),
    lap_set.answer: _r("laps within without measure corner sector"),
    compare.answer: _r("laps corner sector measure without"),
    sectors.answer: _r("sector laps"),
    corners.answer: _r("corner laps measure"),
    markers.answer: _r("corner laps measure", frozenset({"brake_point"})),
    trail.answer: _r("corner laps measure", frozenset({trail.MEASURE})),
    lifts.answer: _r("corner laps measure", frozenset({lifts.MEASURE})),
    lifts.pickups: _r("measure", frozenset({lifts.PICKUP})),
    inputs.answer: _r("measure", frozenset({inputs.MEASURE})),
    corner_channel.answer: _r("corner laps measure"),
    # after the judge: the first vital named, or that it is not recorded
    channels.answer: _r("laps measure vitals"),
    channel_set.answer: _r("laps measure corner sector"),
    judge.answer: _r("laps measure vitals"),  # two vitals or more: each judged
    events.answer: _r("laps corner measure"),
    balance.answer: _r("corner measure", balance.PEDALS),
    coasting.answer: _r("laps corner measure"),
    gears.answer: _r("corner measure"),
    phases.answer: _r("corner measure"),
    coaching.where_time: _r("best corner measure", _DRIVING),  # the corners' time, speeds, braking, throttle
    coaching.why_slower: _r("laps corner measure", _DRIVING),
    coaching.potential: _r("best"),
    coaching.consistency: _r("best"),
    coaching.strengths: _r("best"),
    coaching.threads: _r("laps"),  # the threads are the last session's: "my threads from last time"
    sessions.answer: _r("laps"),
    recorded.answer: _r("measure", frozenset({recorded.MEASURE})),
}

# a measure -> the measures it stands for when named beside it: a top speed is a "speed"; a vital is read
# under what the driver does ("oil pressure above 4000 rpm", "the temp at high speed", "pressure drop under
# braking"); an event happens in what the driver does and to the wheels, tyres and brakes ("locked the
# fronts downshifting"); a warning is of a vital
_INPUTS = SPEEDS | {
    "brake_point",
    "brake_pressure",
    "brake_pedal",
    "throttle",
    "throttle_body",
    "rpm",
    "gear",
}
_INPUTS |= {"steering", "lat_g", "long_g", "combined_g", "vert_g", "yaw_rate", "wheel_speed", "clutch"}
_INPUTS |= {"shift_rpm", "corner_gears", "coasting"}
_WHEELS = frozenset({"tyre_temp", "tyre_pressure", "tyre_wear", "brake_temp", "brake_wear", "brake_bias"})
_WHEELS |= {"chassis", "suspension", "slip_angle", "abs", "dsc"}
# a vital read at a speed ("the temp at high speed"), never beside the lap's top or lowest speed asked too
_VITAL = (_INPUTS - {"top_speed", "min_speed"}) | {"alarm", "engine_light", "oil_level", "coolant_level"}
_VITAL |= ms.JUDGED | {"battery_charge", "conditions"}  # one vital beside another: the judge reads both
COVERS: dict[str, frozenset[str]] = {
    **{m: SPEEDS | {"wheel_speed", "brake_point"} for m in SPEEDS},  # "top speed before braking for T7"
    **{m: _VITAL for m in ms.JUDGED},
    "temps": _VITAL | {"oil_temp", "coolant_temp", "oil_pressure"},
    "rpm": _VITAL | {"gearing"},
    "shift_rpm": SPEEDS | {"rpm", "gear", "gearing"},
    "gear": SPEEDS | {"rpm", "shift_rpm", "corner_gears", "gearing"},
    "corner_gears": SPEEDS | {"rpm", "gear", "gearing"},
    **{m: _INPUTS | _WHEELS for m in ("lockup", "wheelspin", "abs", "dsc")},
    **{m: _VITAL | ms.JUDGED | {"battery_charge"} for m in ("alarm", "engine_light")},
    # "do I coast, or am I always on the gas or on maintenance throttle?": the coast is the question
    "coasting": _INPUTS | {"part_throttle", "brake_to_throttle"},
    "corner_phases": SPEEDS,
    "brake_point": frozenset({"brake_pressure", "brake_pedal", "long_g", *SPEEDS}),
    "trail_brake": frozenset(
        {"brake_point", "brake_pressure", "brake_pedal", "throttle", "steering", *SPEEDS}
    ),
    "lift_point": frozenset({"throttle", "brake_point", *SPEEDS}),  # "flat, or lift and brake?"
    "throttle": frozenset({"throttle_body"}),
    # "the pedal" of a brake question is the brake's ("peak brake press, not pushing the pedal hard enough")
    "brake_pressure": frozenset({"brake_pedal", "brake_point", "throttle"}),
    "brake_temp": frozenset({"brake_pedal", "brake_point", "brake_pressure", "throttle"}),
    "battery_charge": frozenset({"battery_voltage"}),
    "tyre_wear": _WHEELS,
    "brake_wear": _WHEELS | {"brake_point", "brake_pedal"},
    "suspension": SPEEDS,  # "shock speeds"
    "lambda": _VITAL | {"gearing"},  # "air fuel ratio"
}


def named(q: Question) -> frozenset[str]:
    """The slots ``q`` filled. The session's best lap alone is ``best``: what the session's analysis is
    measured against ("the gap between my best lap and my theoretical best"); any other lap is ``laps``."""
    got = {"corner"} if q.corner is not None else set()
    best = all(x.pick == "fastest" and x.rank == 1 and x.session == "this" and not x.offset for x in q.laps)
    got |= ({"best"} if best and len(q.laps) == 1 else {"laps"}) if q.laps else set()
    got |= {"sector"} if q.sector is not None else set()
    got |= {"measure"} if q.measure not in (None, "lap_time") else set()
    got |= {"within"} if q.within_s is not None or q.under_s is not None or q.target_s is not None else set()
    got |= {"without"} if q.without else set()
    got |= {"vitals"} if q.vitals else set()
    return frozenset(got | ({"also"} if unread_measures(q) else set()))


def unread_measures(q: Question) -> tuple[str, ...]:
    """The measures named beside ``q.measure`` that it does not stand for."""
    covered = COVERS.get(q.measure or "", frozenset()) | {q.measure, "lap_time", *q.vitals}
    return tuple(m for m in q.also if m not in covered)


def reads(family: Family, q: Question) -> bool:
    """Whether ``family`` reads every slot ``q`` filled (a family not in ``READS`` reads them all; one that
    reads laps reads the best lap too)."""
    r = READS.get(family)
    if r is None:
        return True
    if not named(q) <= r.slots | ({"best"} if "laps" in r.slots else set()):
        return False
    return r.measures is None or q.measure in (None, "lap_time") or q.measure in r.measures

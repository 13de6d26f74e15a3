"""The question layer's types: what a driver asked (``Question``) and what Pitwall answers (``Answer``).

Pure data, no I/O. ``parse`` builds a ``Question``; ``plan`` picks the family from its ``intent`` and
filled slots; a family returns an ``Answer`` whose ``text`` is Pitwall's own sentences and whose
``result`` holds every figure it used (the narrator's fact sheet and the grounding check read it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Intent = Literal[
    "lap_time",  # a lap's time, best / slowest / average, how many laps
    "compare",  # lap vs lap (whole lap, a sector or a corner), or a session vs another
    "corner",  # a corner's figures (speed, brake marker, gear ...) per lap or over the session
    "sector",  # a sector's times
    "channel",  # a channel's figures per lap or over the session (top speed, rpm, oil pressure ...)
    "judge",  # "was my oil pressure ok?": a channel against the car profile's limits
    "events",  # alarms and warnings, ABS/TC interventions, lockups, wheelspin
    "balance",  # understeer / oversteer
    "where_time",  # where do I lose time, which corner to work on
    "why_slower",  # why was lap N slower
    "potential",  # achievable / theoretical best, optimal lap
    "consistency",
    "strengths",  # what went well: the corners no lap lost time at
    "sessions",  # the driver's sessions here, another session with the gap
    "debrief",
    "brief",
    "unrelated",  # not about driving data
    "unknown",  # about the data, but not understood
]
Pick = Literal["fastest", "slowest", "last", "first", "previous", "out", "in"]  # "out": the out laps
Aggregation = Literal["max", "min", "avg", "count", "each_lap", "range"]  # range: the highest and the lowest


@dataclass(frozen=True)
class LapRef:
    """A lap as the driver named it: a number, or a pick; in this session, "my other session", or an id.
    A pick may stand for a set of laps (``count``: "my last 3 laps", "the first five laps", "my 3 best
    laps") or for the lap ``rank`` places along ("my second best lap", "the next best lap"); "previous" is
    the lap before the lap named before it ("my best lap and the one before"), else the last lap."""

    number: int | None = None  # "lap 7"
    pick: Pick | None = None  # "my fastest lap", "the last lap"
    session: str = "this"  # "this", "other" ("my other session"), or a session id
    count: int = 1  # how many laps the pick stands for
    rank: int = 1  # the pick's place: 2 for "second best", "second to last"
    offset: int = 0  # the lap this many after the lap named: -1 "the lap before my best", 1 "the lap after"


@dataclass(frozen=True)
class Question:
    """A driver's question, read once. Slots left empty were not named."""

    text: str  # the driver's words, shown and narrated as written
    intent: Intent
    laps: tuple[LapRef, ...] = ()  # in the order named; two or more: a comparison
    corner: str | None = None  # corner id of the session's track ("t11")
    sector: int | None = None
    measure: str | None = None  # a name of measures.MEASURES: top_speed, min_speed, brake_point, rpm ...
    aggregation: Aggregation | None = None
    follow_up: bool = False  # slots were taken from the previous question
    within_s: float | None = None  # "within half a second", "within 2 tenths": a closeness asked of laps
    under_s: float | None = None  # "how many laps under 1:36?": a lap time every lap is set against
    # "did I break 1:36?", "how close did I get to a 1:35?": a lap time the best lap is set against
    target_s: float | None = None
    stated: str | None = None  # a lap time the driver said, as written ("was my best a 1:46.5?"): checked
    also_lap_time: bool = False  # "lap 4's top speed and lap time": the lap time asked beside the measure
    without: tuple[LapRef, ...] = ()  # laps left out of a figure: "my average excluding lap 1"
    vitals: tuple[str, ...] = ()  # two vitals or more named at once ("oil pressure and water temp ok?")
    also: tuple[str, ...] = ()  # measures named beside ``measure`` ("the gas before the apex, and the speed")
    against: bool = False  # another session's reading set against this one's ("my top speed vs last time")
    # content words nothing read ("my epic lap"): the answer says what it read
    unread: tuple[str, ...] = ()


@dataclass
class Answer:
    """Pitwall's answer from the data: its sentences, the tool that gave the figures, and those figures."""

    text: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)

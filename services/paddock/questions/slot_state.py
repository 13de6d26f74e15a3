"""One question's slots as ``slots.read_slots`` fills them (``Slots``: the words, which of them a slot has
read, and what each slot holds), and what a slot reader marks or sets aside. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.paddock import measures as ms
from services.paddock.questions import cues as c
from services.paddock.questions import phrases as ph
from services.paddock.questions import words as w
from services.paddock.questions.model import LapRef

_DRIVING_CUES = (
    "debrief",
    "brief",
    "balance",
    "potential",
    "consistency",
    "strengths",
    "where_time",
    "other",
    "progress",
    "visits",
)
# "what was my time?": the driver's own time is a lap's ("what time is it?" is not)
_MY_TIME = re.compile(
    r" (?:my|our) (?:best |fastest |quickest |lap |average |mean |typical |usual |slowest |worst )?times? "
)

# a vital a warning light shows: the light asked is the reading's drop or rise (no logger records the lamp)
_LIGHT_OF = frozenset({"oil_pressure", "coolant_temp", "temps"})

_LAMP = re.compile(r" (?:light|lights|lamp|lit|flash\w*|flicker\w*|blink\w*) ")
# a vital's own warning said by what it warns of ("the coolant over temperature warning"): the reading judged
_OVER = re.compile(
    r" (?:over temp\w*|overheat\w*|high temp\w*|low pressure|pressure low) (?:warning|alarm|light) "
)
# a gauge's reading said higher or lower ("the oil pressure indicator noticeably lower than expected")
_GAUGE = re.compile(
    r" (?:indicator|gauge|needle|dial) (?:\w+ ){0,3}(?:lower|higher|low|high|below|above|drop\w*|read\w*) "
)

# the average asked alone: of the laps
_MY_AVERAGE = re.compile(
    r" (?:my|our|the) (?:average|mean)(?: please| today| overall| then| this session)? $"
)

# what wear is asked of: the part's own readings are no answer to it
_WEAR_OF = frozenset({"brake_wear", "tyre_wear", "brake_point", "tyre_temp", "tyre_pressure", "brake_temp"})

_WORN = re.compile(r" (?:worn|wear|wearing|wore) ")

_WEAR = {"tyre_temp": "tyre_wear", "tyre_pressure": "tyre_wear", "brake_point": "brake_wear"}

# a part of the car: the word before it describes the part ("stock gauge"), never another subject
_CAR_PARTS = w.word_set(
    """gauge gauges car engine exhaust intake ecu dash dashboard cluster tyre brakes pads suspension radiator
    cooler cooling oil coolant water gearbox transmission clutch turbo tires tyres wheels seat seats"""
)


@dataclass
class Slots:
    """What one question's words filled; ``used`` marks the words a slot has read (each word read once)."""

    toks: list[str]
    used: list[bool]
    joined: str = ""
    measures: list[str] = field(default_factory=list)
    corner: str | None = None
    sector: int | None = None
    sector_word: bool = False  # "which sector", "my sectors": sectors asked without a number
    laps: list[LapRef] = field(default_factory=list)
    aggregation: str | None = None
    other: bool = False  # another session named, no lap of it
    ever: bool = False  # "all-time", "across all my sessions", "ever"
    cues: frozenset[str] = frozenset()  # the CUES found among the words
    without: list[LapRef] = field(default_factory=list)  # laps left out: "my average excluding lap 1"

    def has(self, cue: str) -> bool:
        return cue in self.cues

    @property
    def measure(self) -> str | None:
        kinds = [m for m in self.measures if ms.MEASURES[m].kind == "event"]
        rest = [m for m in self.measures if m != "lap_time"]
        if kinds == ["alarm"] and "oil_temp" in rest and " temp" not in self.joined:
            rest = ["oil_pressure" if m == "oil_temp" else m for m in rest]  # "the oil light": its pressure's
        # the reading, not a warning: "the oil pressure light came on" (its drop; a warning asked: the
        # file's), "the oil pressure gauge reading low", "the coolant over temperature warning"
        lamp = _LIGHT_OF & set(rest) and _LAMP.search(self.joined)
        # a vital's gauge; a temperature's or pressure's own warning, logged or not: "a trans high temp warning"
        gauge = bool(set(rest) & ms.JUDGED and _GAUGE.search(self.joined))
        gauge |= (
            any(ms.MEASURES[m].unit in ("°C", "bar") for m in rest) and _OVER.search(self.joined) is not None
        )
        if kinds == ["alarm"] and (lamp or gauge):
            kinds = []
        # "oil pressure above 4000 rpm", "EGT at peak RPM": the engine speed is the condition, not the subject
        vital = [m for m in rest if m in ms.JUDGED and m != "rpm"]
        rest = vital + [m for m in rest if m not in vital and m != "rpm"] if vital else rest
        if _WORN.search(self.joined):  # "how worn are my tyres?", "brakes worn?": the part's wear
            rest = [_WEAR.get(m, m) for m in rest]
        worn = "brake_wear" if "brake_wear" in rest else "tyre_wear" if "tyre_wear" in rest else None
        if worn is not None:  # "how worn were my brake pads?", "tyres worn?": the wear, no reading of them
            rest = [worn] + [m for m in rest if m not in _WEAR_OF]
        if {"battery_charge", "battery_voltage"} <= set(rest) and " volt" not in self.joined:
            rest.remove("battery_voltage")  # "amps the battery pulled": its current, not its voltage
        got = kinds or rest or self.measures
        if not kinds and "coasting" in rest:
            return "coasting"  # "how much speed do I lose coasting?": the coasting, its cost in speed
        if not kinds and {"oil_temp", "coolant_temp"} <= set(rest):
            return "temps"  # "oil temp and water temp on lap 6?": the engine's temperatures, each said
        return got[0] if got else None

    @property
    def beside(self) -> tuple[str, ...]:
        """The measures named beside the one ``measure`` chose (``Question.also``), each once."""
        return tuple(dict.fromkeys(m for m in self.measures if m not in ("lap_time", self.measure)))

    @property
    def compare(self) -> bool:
        return any(t in w.COMPARE for t in self.toks)

    @property
    def driving(self) -> bool:
        cued = any(self.has(cue) for cue in _DRIVING_CUES) or self.lap_figure or ph.ran_a_time(self.joined)
        cued |= _MY_TIME.search(self.joined) is not None  # "what was my time?"
        return cued or any(t in c.DRIVING for t in self.toks) or any(m != "lap_time" for m in self.measures)

    @property
    def unrelated(self) -> bool:
        """A word of another subject ("stock", "news"), unless it names a part of the car ("the stock
        gauge", "a stock exhaust")."""
        after = [*self.toks[1:], ""]
        then = [*self.toks[2:], "", ""][: len(self.toks)]  # "cook the brakes": a part of the car two on
        return any(
            t in c.UNRELATED and nxt not in _CAR_PARTS and far not in _CAR_PARTS
            for t, nxt, far in zip(self.toks, after, then, strict=True)
        )

    @property
    def bare(self) -> bool:
        """Only words the vocabulary knows, leaning on what came before ("why?", "was it ok?", "and that?"): a
        follow-up, never a question about something else."""
        known = w.vocabulary()
        leans = any(t in c.REFERS for t in self.toks) or self.has("why") or self.has("judge")
        leans |= any(self.joined.startswith(f" {p} ") for p in c.CARRY_ON)
        leans |= len(self.toks) <= 2 and self.toks[:1] in (
            ["where"],
            ["when"],
            ["which"],
        )  # "where?", "which lap?"
        return leans and not self.unrelated and all(t in known for t in self.toks)

    @property
    def lap_speed(self) -> bool:
        """ "how fast was lap 7?", "my slowest lap, and how slow?": a lap's time, not a speed ("how fast was I
        on the back straight on lap 3?" is its top speed)."""
        return bool(self.laps) and ph.lap_speed(self.joined) and not ph.on_straight(self.joined)

    @property
    def lap_figure(self) -> bool:
        """ "my average lap", "how many laps", "did I get quicker as the session went on": lap times."""
        lapped = self.aggregation == "each_lap" or bool(re.search(r" laps? ", self.joined))
        lapped |= self.aggregation == "avg" and bool(_MY_AVERAGE.search(self.joined))  # "what's my average?"
        return self.aggregation is not None and not self.measures and lapped


def mark(s: Slots, a: int, b: int) -> None:
    s.used[a:b] = [True] * (b - a)


_CLAIMED = w.word_set("is was are were usually always often normally really")


def negated(toks: list[str], i: int) -> bool:
    """The word at ``i`` set aside: "not my average, my best", "I don't care about the average"; or no
    figure at all: "I mean"."""
    if toks[i] == "mean" and i > 0 and toks[i - 1] in ("i", "you"):
        return True
    for k in range(i - 1, max(0, i - 4) - 1, -1):
        t = toks[k]
        if t == "not" and k > 0 and toks[k - 1] in _CLAIMED:
            return False  # "my first lap is not my fastest": said of a lap, nothing set aside
        if t in w.NEGATING:
            return True
        if t in w.PICKS or t in w.AGGREGATIONS:
            return False  # "not my average, my best": the word set aside is the average
    return False

"""The slots of a question, filled from its words (``words.tokens``): the measures named (longest phrase
first), the corner (a number or a name of the track's), the sector, the laps (numbers, ranges, ordinals,
picks, another session's), the aggregation, and the cues ``parse`` chooses the intent by. Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from services.paddock.questions import cues as c
from services.paddock.questions import lap_names, turns
from services.paddock.questions import numerals as n
from services.paddock.questions import phrases as ph
from services.paddock.questions import words as w
from services.paddock.questions.beside import beside
from services.paddock.questions.model import LapRef

MAX_RANGE = 20
_SESSION_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]+$")
_GLUE = w.word_set("of in on from at during my the that")
_LONGEST_MEASURE = max(len(p.split()) for p in w.MEASURE_WORDS)
_DRIVING_CUES = ("debrief", "brief", "balance", "potential", "consistency", "where_time", "other", "progress")
_LONGEST_AGG = max(len(p.split()) for p in w.AGGREGATIONS)
# a best lap of every session here: "my best at this track", "on the same track", "a new personal best"
_HERE_EVER = re.compile(
    r" (?:at|on|for|around) (?:this|the same|the) track | new (?:personal )?best | personal best (?:here|at \S+) "
    r"| (?:previous|old|older) (?:personal )?best | (?:lap|track|personal) record | my (?:old )?record "
    r"| (?:is|was) (?:this|that|it) (?:a |my )?(?:new )?personal best "
)
# two kinds of session named: "between my practice and the race": another session
_KINDS = r"(?:practice|qualifying|quali|race|test|heat)"
_TWO_KINDS = re.compile(rf" ({_KINDS}) (?:and|versus|to|with) (?:the |my )?(?!\1 ){_KINDS} ")
_OUTING = w.word_set("out here at on with using running driving trying back")
# a vital a warning light shows: the light asked is the reading's drop or rise (no logger records the lamp)
_LIGHT_OF = frozenset({"oil_pressure", "coolant_temp", "temps"})
_LAMP = re.compile(r" (?:light|lights|lamp|lit|flash\w*|flicker\w*|blink\w*) ")
# a temperature of the day, not of the car: "what was the temperature today?"
_WEATHER = re.compile(
    r" (?:today|day|weather|forecast|outside|ambient|air|track|surface|cabin|inside|conditions|sun|sunny"
    r"|morning|afternoon|it was|was it) "
)
# the track's or the air's temperature, no channel named: "did the track get over 140 degrees?"
_CONDITIONS = re.compile(
    r" (?:track|surface|asphalt|tarmac|air|outside|ambient|weather) (?:\w+ ){0,4}(?:degrees?|hot|hotter|heat"
    r"|warm|cold|celsius|fahrenheit|temp|temperature) "
    r"| (?:degrees?|hot|hotter|heat|warm|cold|temp|temperature) (?:\w+ ){0,3}(?:track|surface|asphalt|tarmac"
    r"|outside|ambient) "
)
# the average asked alone: of the laps
_MY_AVERAGE = re.compile(
    r" (?:my|our|the) (?:average|mean)(?: please| today| overall| then| this session)? $"
)
# this session against "my previous one", "the last one": another session
_THIS_VS_ONE = re.compile(
    r" (?:this|todays|today) (?:session|run|outing) (?:\w+ ){0,3}(?:and|or|versus|to|with|against|from) (?:the |my )?"
    r"(?:(?:previous|last|earlier|other|first) (?:one|time)|one (?:before|prior)) "
    r"| (?:this|todays|today) (?:session|run|outing) (?:\w+ ){0,3}than (?:the |my )?(?:previous|last|earlier|other)"
    r" (?:one|time|session|run|outing) "
)


# what wear is asked of: the part's own readings are no answer to it
_WEAR_OF = frozenset({"brake_wear", "tyre_wear", "brake_point", "tyre_temp", "tyre_pressure", "brake_temp"})
_WORN = re.compile(r" (?:worn|wear|wearing|wore) ")
_WEAR = {"tyre_temp": "tyre_wear", "tyre_pressure": "tyre_wear", "brake_point": "brake_wear"}
# both ends of a reading asked: "highest and lowest", "min and max", "max/min"
_BOTH_ENDS = re.compile(
    r" (?:highest|maximum|peak|top) (?:and|or|to) (?:the )?(?:lowest|minimum) "
    r"| (?:lowest|minimum) (?:and|or|to) (?:the )?(?:highest|maximum|peak|top) "
)
# a part of the car: the word before it describes the part ("stock gauge"), never another subject
_CAR_PARTS = w.word_set(
    "gauge gauges car engine exhaust intake ecu dash dashboard cluster tyre brakes pads suspension"
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
        kinds = [m for m in self.measures if w.MEASURES[m].kind == "event"]
        rest = [m for m in self.measures if m != "lap_time"]
        if kinds == ["alarm"] and "oil_temp" in rest and " temp" not in self.joined:
            rest = ["oil_pressure" if m == "oil_temp" else m for m in rest]  # "the oil light": its pressure's
        if kinds == ["alarm"] and _LIGHT_OF & set(rest) and _LAMP.search(self.joined):
            kinds = []  # "the oil pressure light came on": the reading's drop (a warning asked: the file's)
        # "oil pressure above 4000 rpm", "EGT at peak RPM": the engine speed is the condition, not the subject
        vital = [m for m in rest if m in w.JUDGED and m != "rpm"]
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
    def compare(self) -> bool:
        return any(t in w.COMPARE for t in self.toks)

    @property
    def driving(self) -> bool:
        cued = any(self.has(cue) for cue in _DRIVING_CUES) or self.lap_figure
        return cued or any(t in c.DRIVING for t in self.toks) or any(m != "lap_time" for m in self.measures)

    @property
    def unrelated(self) -> bool:
        """A word of another subject ("stock", "news"), unless it names a part of the car ("the stock
        gauge", "a stock exhaust")."""
        after = self.toks[1:] + [""]
        return any(
            t in c.UNRELATED and nxt not in _CAR_PARTS for t, nxt in zip(self.toks, after, strict=True)
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


def read_slots(toks: list[str], corners: turns.Corners) -> Slots:
    toks = turns.name_typos(toks, corners)
    s = Slots(toks, [False] * len(toks), " " + " ".join(toks) + " ")
    s.cues = _cues(toks)
    found_corner = turns.find(toks, s.joined, s.used, corners)
    if found_corner is not None:
        s.corner, a, b = found_corner
        _mark(s, a, b)
    _sector(s)
    spans = _session_spans(s)
    found = _phrases(s, w.MEASURE_WORDS, _LONGEST_MEASURE)
    s.measures = [m for _, m in found]
    if not set(s.measures) - {"lap_time", "temps"} and _CONDITIONS.search(s.joined):
        s.measures = ["conditions"]
    if c.NEITHER_PEDAL.search(s.joined):  # "off both the brake and the throttle": neither pedal
        s.measures = ["coasting"] + [m for m in s.measures if m not in ("brake_point", "throttle")]
    positions = [x for x in _laps(s) + _picks(s) + _entry(s) if not _set_aside(toks, x[0])]
    left_out = _left_out(s)
    s.without = [r for _, r in left_out]
    positions = [x for x in positions if all(x[0] != i for i, _ in left_out)]
    if beside(toks, s.used, positions):  # "the lap right after my pb": "right" is no judgement
        s.cues = _cues([t for t in toks if t not in w.BESIDE_SKIP])
    if _gear_said(s) and "gear" not in s.measures:
        s.measures.append("gear")
    _attach(s, positions, spans)
    s.laps = list(dict.fromkeys(x for _, x in sorted(positions, key=lambda p: p[0])))  # each lap once
    straight = ph.on_straight(s.joined) and not (s.corner or s.has("where_time") or s.compare)
    if straight and (not s.measures or (s.measures == ["lap_time"] and " how quick " in s.joined)):
        s.measures = ["top_speed"]  # "what did I hit on the back straight?", "how quick down the straight?"
    lap_only = all(m == "lap_time" for m in s.measures)  # "what did my oil pressure get down to?": no lap
    if lap_only and not s.laps and not s.corner and s.sector is None and ph.best_said(s.joined):
        s.laps = [LapRef(pick="fastest")]
    which = _WHICH_LAP.search(s.joined) if lap_only and not (s.laps or s.corner or s.sector) else None
    if which:  # "what lap did I go quickest on?": that pick
        s.laps = [LapRef(pick=w.PICKS[which.group(1)])]  # type: ignore[arg-type]
    agg = [a for i, a in _phrases(s, w.AGGREGATIONS, _LONGEST_AGG) if not _negated(toks, i)]
    # "peak revs per lap", "highest rpm each lap": every lap's figure (the channel's own, highest or lowest)
    s.aggregation = (
        "each_lap" if "each_lap" in agg and set(agg) <= {"each_lap", "max"} else agg[0] if agg else None
    )
    if {"max", "min"} <= set(agg):  # "min and max oil pressure", "rpm range from min to max": the range
        s.aggregation = "range"
    if _BOTH_ENDS.search(s.joined):  # "highest and lowest speed": "lowest speed" is no speed of its own here
        s.aggregation = "range"
        s.measures = ["speed" if m in ("top_speed", "min_speed") else m for m in s.measures]
    if s.aggregation == "range" and not any(w.MEASURES[m].columns for m in s.measures if m != "lap_time"):
        s.aggregation = None  # "the range of my lap times": no channel's two ends
    if not s.measures and {"max", "avg"} <= set(agg) and not s.laps:
        s.measures, s.aggregation = (
            ["speed"],
            "max",
        )  # "is my max value below the average?": a lap timer's speed
    if not s.measures and re.search(r" temp(?:erature)? ", s.joined) and not _WEATHER.search(s.joined):
        s.measures = ["temps"]  # "the max temp?", "were the temps stable lap to lap?": the engine's
    if s.measures == ["brake_point"] and re.search(r" temp(?:erature)?s? ", s.joined):
        s.measures = ["brake_temp"]  # "what was the temperature of my brakes?"
    s.ever = s.has("sessions") and bool(_EVER.search(s.joined))
    best = any(r.pick == "fastest" and r.number is None and r.session == "this" for r in s.laps)
    best |= not s.laps and bool(
        {"best", "fastest", "record"} & set(toks)
    )  # "the best remembered for the track"
    only_this = re.search(r" (?:this session|this run|this stint) ", s.joined)
    s.ever |= (
        best and not only_this and bool(_HERE_EVER.search(s.joined))
    )  # "my best at this track", "a new PB"
    if (
        s.ever
        and not (s.other or s.has("other"))
        and _I_EVER.search(s.joined)
        and set(s.measures) - {"lap_time"}
    ):
        s.ever, s.cues = False, s.cues - {"sessions"}  # "do I ever coast?": at any point of this session
    return s


# "do I ever coast?", "did I ever lock up?": a thing the driver did, at any point of this session
_I_EVER = re.compile(r" (?:do|did|does|have|am|was|were) i ever (?!been )(?!.* here )")
# a lap asked by what it was, the pick after the verb: "what lap did I go quickest on?"
_WHICH_LAP = re.compile(r" (?:what|which) lap (?:number )?(?:\w+ ){1,4}(fastest|slowest) ")
# all of the driver's sessions; "the first ever time", "ever since", "whatever" say nothing of sessions
_EVER = re.compile(r"(?<! first) (?:all time|ever(?! since )|all my sessions|across) ")


def _negated(toks: list[str], i: int) -> bool:
    """The word at ``i`` set aside: "not my average, my best", "I don't care about the average"; or no
    figure at all: "I mean"."""
    if toks[i] == "mean" and i > 0 and toks[i - 1] in ("i", "you"):
        return True
    for t in reversed(toks[max(0, i - 4) : i]):
        if t in w.NEGATING:
            return True
        if t in w.PICKS or t in w.AGGREGATIONS:
            return False  # "not my average, my best": the word set aside is the average
    return False


def _cues(toks: list[str]) -> frozenset[str]:
    """The CUES whose phrases stand among the words (every run of words looked up once)."""
    cue_of, longest = _cue_table()
    found: set[str] = set()
    for i in range(len(toks)):
        for j in range(i + 1, min(len(toks), i + longest) + 1):
            found |= cue_of.get(" ".join(toks[i:j]), frozenset())
    return frozenset(found)


@lru_cache(maxsize=1)
def _cue_table() -> tuple[dict[str, frozenset[str]], int]:
    """Each cue phrase -> the cues it stands for; the longest phrase's length in words."""
    got: dict[str, set[str]] = {}
    for cue, said in c.CUES.items():
        for phrase in said:
            got.setdefault(phrase, set()).add(cue)
    return {k: frozenset(v) for k, v in got.items()}, max(len(p.split()) for p in got)


def _phrases(s: Slots, table: Mapping[str, str], longest: int) -> list[tuple[int, str]]:
    """Phrases of ``table`` among the words not read yet, longest first, each word read once; in the order
    they stand."""
    out: list[tuple[int, str]] = []
    n = len(s.toks)
    for size in range(min(longest, n), 0, -1):
        for i in range(n - size + 1):
            if any(s.used[i : i + size]):
                continue
            got = table.get(" ".join(s.toks[i : i + size]))
            if got is not None:
                out.append((i, got))
                s.used[i : i + size] = [True] * size
    return sorted(out)


def _mark(s: Slots, a: int, b: int) -> None:
    s.used[a:b] = [True] * (b - a)


def _sector(s: Slots) -> None:
    for i, t in enumerate(s.toks):
        if t != "sector" or s.used[i]:
            continue
        got = n.number(s.toks, i + 1)
        before = n.ordinal_before(s.toks, i)
        if got is not None:
            s.sector = got[0]
            _mark(s, i, got[1])
        elif before is not None:
            s.sector = before[0]
            _mark(s, before[1], i + 1)
        else:
            s.sector_word = True
            _mark(s, i, i + 1)
        return


def _laps(s: Slots) -> list[tuple[int, LapRef]]:
    """Lap numbers: "lap 5", "laps 4 and 6", "laps 3 to 5", "lap 5 vs 3", "3rd lap", "lap three"."""
    out: list[tuple[int, LapRef]] = []
    toks = s.toks
    for i, t in enumerate(toks):
        if s.used[i]:
            continue
        o = n.ordinal(toks, i)
        if o is not None and o[1] < len(toks) and toks[o[1]] in ("lap", "laps"):
            out.append((i, LapRef(number=o[0])))
            _mark(s, i, o[1] + 1)
            continue
        if t not in ("lap", "laps"):
            continue
        j = i + 1 + (i + 1 < len(toks) and toks[i + 1] in ("number", "no"))
        got = n.number(toks, j)
        if got is None:
            continue
        out.append((i, LapRef(number=got[0])))
        _mark(s, i, got[1])
        j = got[1]
        while j < len(toks) and (toks[j] in w.LAP_SEP or (t == "laps" and toks[j].isdigit())):
            k = j if toks[j].isdigit() else j + 1  # "lap 5 vs lap 3": the second "lap" is read on its own
            nxt = n.number(toks, k)
            if nxt is None:
                break
            first = out[-1][1].number or 0
            if toks[j] in ("to", "through") and t == "laps" and 0 < nxt[0] - first <= MAX_RANGE:
                out += [(j, LapRef(number=n)) for n in range(first + 1, nxt[0] + 1)]
            else:
                out.append((k, LapRef(number=nxt[0])))
            _mark(s, j, nxt[1])
            j = nxt[1]
    if out:  # "was lap 5 faster than 9?": a bare number after a comparing word is a lap too
        for i in range(1, len(toks)):
            if not s.used[i] and toks[i].isdigit() and toks[i - 1] in w.LAP_SEP | w.COMPARE:
                out.append((i, LapRef(number=int(toks[i]))))
                _mark(s, i, i + 1)
        # "was my third lap faster than my fifth?": an ordinal naming nothing after a comparing word
        for i in range(2, len(toks)):
            o = n.ordinal(toks, i)
            sep = toks[i - 1] in w.LAP_SEP | w.COMPARE or (
                toks[i - 1] in ("my", "the") and toks[i - 2] in w.LAP_SEP | w.COMPARE
            )
            if o is None or s.used[i] or not sep or (o[1] < len(toks) and toks[o[1]] in c.ORDINAL_NOUNS):
                continue
            out.append((i, LapRef(number=o[0])))
            _mark(s, i, o[1])
    return out


# laps named as no part of the question: "not interested in lap 3 vs lap 5", "not asking about lap 4" (a lap
# left out of a figure, "my average excluding lap 1", is another matter: not read here)
_SET_ASIDE = re.compile(
    r" (?:not (?:interested in|asking about|asking for|talking about|about|bothered about|fussed about|after)"
    r"|(?:do not|dont|did not|didnt) (?:care|ask) about) $"
)
_FIRST_OF = w.word_set("my the our a was is vs versus against than with and or to from")  # "... my first"
_LAP_RUN = w.word_set("lap laps my the and or versus to against with compare than")


def _set_aside(toks: list[str], at: int) -> bool:
    """The lap named at ``at`` is set aside: a set-aside phrase stands right before it, or before the run of
    laps it is part of ("not interested in lap 3 vs lap 5")."""
    i = at
    while i > 0 and (toks[i - 1] in _LAP_RUN or toks[i - 1].isdigit()):
        i -= 1
    return bool(_SET_ASIDE.search(" " + " ".join(toks[:i]) + " "))


def _left_out(s: Slots) -> list[tuple[int, LapRef]]:
    """The laps a leaving-out phrase names, at their places (``lap_names.left_out_runs``)."""
    out: list[tuple[int, LapRef]] = []
    for i, j in lap_names.left_out_runs(s.toks):
        tail = Slots(s.toks[i:j], [False] * (j - i), " " + " ".join(s.toks[i:j]) + " ")
        out += [(i + k, r) for k, r in _laps(tail) + _picks(tail) + _entry(tail)]
        _mark(s, i, j)
    return out


def _entry(s: Slots) -> list[tuple[int, LapRef]]:
    """The out and in laps named ("my out lap"), their words read."""
    got = lap_names.entry_laps(s.toks, s.used)
    for i, _, j in got:
        _mark(s, i, j)
    return [(i, ref) for i, ref, _ in got]


def _gear_said(s: Slots) -> bool:
    """ "in 2nd", "3rd or 4th", "is 4th too tall?": an ordinal no lap, sector or corner has read, naming
    nothing after it, is a gear."""
    toks = s.toks
    for i in range(len(toks) - 1):
        if s.used[i] or not toks[i].isdigit() or toks[i + 1] != "th" or not 1 <= int(toks[i]) <= c.TOP_GEAR:
            continue
        if i + 2 >= len(toks) or toks[i + 2] not in c.ORDINAL_NOUNS:
            return True
    return False


def _picks(s: Slots) -> list[tuple[int, LapRef]]:
    """Laps named by what they were: "my fastest lap", "best vs worst", "the last one", "and the slowest?"."""
    out: list[tuple[int, LapRef]] = []
    toks = s.toks
    for i, t in enumerate(toks):
        if t not in w.PICKS or s.used[i] or any(x in w.NOT_A_LAP for x in toks[max(0, i - 2) : i]):
            continue
        if _negated(toks, i):
            continue  # "average lap (not counting the first lap)": no lap named
        if t == "first" and ph.occasion(toks, i):
            continue  # "first time on a big track", "my first time here": the occasion, no lap
        if w.PICKS[t] == "previous" and " lap" not in s.joined:
            continue  # "this session against my previous one": no lap
        if toks[max(0, i - 1)] == "i" or toks[max(0, i - 2) : i] == ["i", "am"]:
            continue  # "where am I slowest?", "where was I fastest": the driver, not a lap
        if (
            t == "first"
            and toks[i + 1 : i + 2] == ["time"]
            and toks[i + 2 : i + 3]
            and toks[i + 2] in _OUTING
        ):
            continue  # "first time out with the new radiator": an outing, not a lap
        j = i + 1
        while j < len(toks) and toks[j] in w.PICK_SKIP:
            j += 1
        if t == "first" and j >= len(toks) and i > 0 and toks[i - 1] not in _FIRST_OF:
            continue  # "what should I fix first?", "worst first": an order, no lap
        before = [x for x in toks[max(0, i - 3) : i] if x not in ("my", "the", "our")]
        after_cmp = bool(before) and before[-1] in w.COMPARE | w.LAP_SEP | w.BESIDE.keys() | {"from"}
        if not after_cmp and any(x in ("sector", "corner", "turn") for x in toks[max(0, i - 3) : i]):
            continue  # "which sector was my slowest": a sector, not a lap
        personal = t == "best" and i > 0 and toks[i - 1] == "personal"  # "PB": always a lap
        counted = n.number(toks, j) is not None and j + 1 < len(toks) and toks[j + 1] == "laps"
        if (
            j < len(toks)
            and not personal
            and not counted
            and (toks[j] in w.PICK_NOT or (toks[j] not in w.PICK_LAP and not after_cmp))
        ):
            continue
        a, b, count, rank = n.beside_pick(toks, i, j)
        count = max(1, min(count, MAX_RANGE))
        out.append((a, LapRef(pick=w.PICKS[t], count=count, rank=rank)))  # type: ignore[arg-type]
        _mark(s, a, b)
    return out


def _glue(t: str) -> bool:
    return t in _GLUE or t.isdigit() or t in w.PICK_SKIP or t in ("lap", "laps", "one", "time", "session")


def _session_spans(s: Slots) -> list[tuple[int, int, str]]:
    """Another session named ("my other session", "last time out", a session id): where, and which; its
    words are read (so "last" there is no lap)."""
    spans: list[tuple[int, int, str]] = [(i, i + 1, t) for i, t in enumerate(s.toks) if _SESSION_ID.match(t)]
    spans += [(i, i + 1, t[1:]) for i, t in enumerate(s.toks) if t.startswith("@")]  # "bo's best lap"
    for phrase in c.CUES["other"]:
        at = s.joined.find(f" {phrase} ")
        if at >= 0:
            i = s.joined[:at].count(" ")
            spans.append((i, i + len(phrase.split()), "other"))
            break
    two = (_TWO_KINDS.search(s.joined) or _THIS_VS_ONE.search(s.joined)) if not spans else None
    named = any(
        t in ("lap", "laps") and s.toks[i + 1 : i + 2] and s.toks[i + 1].isdigit()
        for i, t in enumerate(s.toks)
    )
    two = two or (None if spans or named else lap_names.across_sessions(s.joined))
    if two is not None:
        i = s.joined[: two.start()].count(" ")
        spans.append((i, i + len(two.group(0).split()), "other"))
    for a, b, _ in spans:
        _mark(s, a, b)
    return spans


def _attach(s: Slots, positions: list[tuple[int, LapRef]], spans: list[tuple[int, int, str]]) -> None:
    """The lap named right beside another session is that session's; with none, the question is about
    that session. "The first" or "the last" with no lap after it, beside sessions named, is a session ("was
    my second session better than the first?")."""
    if spans and re.search(r" sessions? ", s.joined):
        positions[:] = [
            (p, r)
            for p, r in positions
            if not (r.pick in ("first", "last") and not {"lap", "laps"} & set(s.toks[p : p + 4]))
        ]
    for a, b, sid in spans:
        near = [
            k
            for k, (p, _) in enumerate(positions)
            if (p < a and a - p <= 5 and all(_glue(x) for x in s.toks[p + 1 : a])) or (b <= p <= b + 2)
        ]
        for k in near:
            p, ref = positions[k]
            positions[k] = (p, replace(ref, session=sid))
        picks = [r.pick for _, r in positions if r.session == "this" and r.pick]
        if not near and picks:  # "my best lap compared to my other session": that session's best
            positions.append((a, LapRef(pick=picks[0], session=sid)))
        elif not near:
            positions.append((a, LapRef(session=sid)))
            s.other = True

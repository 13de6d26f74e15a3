"""The slots of a question, filled from its words (``words.tokens``): the measures named (longest phrase
first), the corner (a number or a name of the track's), the sector, the laps (numbers, ranges, ordinals,
picks, another session's), the aggregation, and the cues ``parse`` chooses the intent by. Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from services.paddock import measures as ms
from services.paddock.questions import cues as c
from services.paddock.questions import numerals as n
from services.paddock.questions import phrases as ph
from services.paddock.questions import turns
from services.paddock.questions import words as w
from services.paddock.questions.beside import beside
from services.paddock.questions.lap_slots import (
    attach,
    gear_said,
    lap_positions,
    left_out,
    session_spans,
    set_aside,
)
from services.paddock.questions.model import LapRef
from services.paddock.questions.slot_state import Slots, mark, negated

_LONGEST_MEASURE = max(len(p.split()) for p in ms.MEASURE_WORDS)
_LONGEST_AGG = max(len(p.split()) for p in w.AGGREGATIONS)

# "how many" of a unit asks the reading, no count: "how many revs", "how many g", "how many mph"
_HOW_MANY_UNITS = re.compile(r" how many (?:revs?|rpm|gs?|mph|kph|kmh|bar|psi|degrees) ")
# a best lap of every session here: "my best at this track", "on the same track", "a new personal best"
_HERE_EVER = re.compile(
    r" (?:at|on|for|around) (?:this|the same|the) (?:track|layout|circuit|course|venue) | new (?:personal )?best | personal best (?:here|at \S+) "
    r"| (?:previous|old|older) (?:personal )?best | best previous | (?:lap|track|personal) record | my (?:old )?record "
    r"| (?:is|was) (?:this|that|it) (?:a |my )?(?:new )?personal best "
    r"| (?:run|ran|set|get|got|do|did|make|made|post\w*|clock\w*|score\w*) (?:a new |a |new )personal best "
    r"| (?:beat|beaten|beating|break|broke|broken|bettered|improved? on|lower\w*|topped|smash\w*) (?:\w+ ){0,2}"
    r"(?:personal best|personal record|best ever|old best|previous best|record) | personal record "
    r"| (?:off|of|from|short of|behind|under|over|than) (?:my |the |your |our )?(?:old |previous )?personal best "
)

# a tyre low, soft or going down: its pressure
_LOW_TYRE = re.compile(r" (?:low|lower|soft|softer|deflated|deflating|going down|losing air|lost air) ")
# speed taken through a corner, not down a straight: "the maximum speed I carried through turn 2"
_CARRIED = re.compile(r" carr(?:y|ied|ying|ies) (?:\w+ )?(?:through|thru|into|in|round|around|out) ")
# the car's pace as a speed: "how quick does my car actually go?", "how fast am I going?"
_HOW_FAST_GO = re.compile(
    r" how (?:quick|fast) (?:does|do|did|can|am|is|was|will) (?:\w+ ){0,3}(?:go|going|goes) "
)
# a temperature of the day, not of the car: "what was the temperature today?"
_WEATHER = re.compile(
    r" (?:today|day|weather|forecast|outside|ambient|air|track|surface|cabin|inside|conditions|sun|sunny"
    r"|morning|afternoon|(?:it was|was it) (?:very |so |really )?(?:hot|cold|warm|cool|chilly|freezing|boiling|baking))"
    r" "
)

# the track's or the air's temperature, no channel named: "did the track get over 140 degrees?"
_CONDITIONS = re.compile(
    r" (?:track|surface|asphalt|tarmac|air|outside|ambient|weather) (?:\w+ ){0,4}(?:degrees?|hot|hotter|heat"
    r"|warm|cold|celsius|fahrenheit|temp|temperature|wet|damp|greasy|slippery) "
    r"| (?:degrees?|hot|hotter|heat|warm|cold|temp|temperature) (?:\w+ ){0,3}(?:track|surface|asphalt|tarmac"
    r"|outside|ambient) "
)

# both ends of a reading asked: "highest and lowest", "min and max", "max/min"
_BOTH_ENDS = re.compile(
    r" (?:highest|maximum|peak|top) (?:and|or|to) (?:the )?(?:lowest|minimum) "
    r"| (?:lowest|minimum) (?:and|or|to) (?:the )?(?:highest|maximum|peak|top) "
)


def read_slots(toks: list[str], corners: turns.Corners) -> Slots:
    toks = turns.name_typos(toks, corners)
    s = Slots(toks, [False] * len(toks), " " + " ".join(toks) + " ")
    s.cues = _cues(toks)
    found_corner = turns.find(toks, s.joined, s.used, corners)
    if found_corner is not None:
        s.corner, a, b = found_corner
        mark(s, a, b)
    _sector(s)
    spans = session_spans(s)
    found = [(i, m) for i, m in _phrases(s, ms.MEASURE_WORDS, _LONGEST_MEASURE) if not ph.time_off(toks, i)]
    s.measures = [m for _, m in found]
    if not set(s.measures) - {"lap_time", "temps"} and _CONDITIONS.search(s.joined):
        s.measures = ["conditions"]
    if c.NEITHER_PEDAL.search(s.joined):  # "off both the brake and the throttle": neither pedal
        s.measures = ["coasting"] + [m for m in s.measures if m not in ("brake_point", "throttle")]
    elif c.BRAKE_TO_THROTTLE.search(s.joined):  # "off the brake and back on the gas": not the coast measured
        s.measures = ["brake_to_throttle"]
    if s.corner and s.measures == ["throttle"] and _FLAT_AT.search(s.joined) and not _AFTER.search(s.joined):
        s.measures = ["lift_point"]  # "can I take turn 1 flat?", "is T9 flat out?": flat, or where I lift
    if not s.corner and s.measures == ["throttle"] and _PICKUP.search(s.joined):
        s.measures = ["pickup_point"]  # "am I on the power early enough?": where, after each corner's apex
    if not s.measures and _WENT_OFF.search(
        s.joined
    ):  # "did I go off anywhere?" (an alarm "going off" sounds)
        s.measures = ["off"]
    if set(s.measures) <= {"lap_time"} and _HOW_FAST_GO.search(s.joined) and " lap " not in s.joined:
        s.measures = ["top_speed"]
    if "tyre_temp" in s.measures and any(t.endswith("psi") for t in toks):
        s.measures = ["tyre_pressure" if m == "tyre_temp" else m for m in s.measures]  # "a tire at 36psi"
    # "was I braking too late into turn 6, or too abruptly?": the corner's braking (its markers)
    if s.corner is not None and {"brake_point", "smoothness"} <= set(s.measures):  # no smoothness per corner
        s.measures = ["brake_point", *(m for m in s.measures if m not in ("brake_point", "smoothness"))]
    if "smoothness" in s.measures:  # "was I smooth on the throttle?": how smooth, every input at once
        # an event named beside it stays: "did the ABS kick in at any stab of the brake pedal?"
        s.measures = ["smoothness", *(m for m in s.measures if ms.MEASURES[m].kind == "event")]
    positions = [x for x in lap_positions(s) if not set_aside(toks, x[0])]
    dropped = left_out(s)
    s.without = [r for _, r in dropped]
    positions = [x for x in positions if all(x[0] != i for i, _ in dropped)]
    if beside(toks, s.used, positions):  # "the lap right after my pb": "right" is no judgement
        s.cues = _cues([t for t in toks if t not in w.BESIDE_SKIP])
    if gear_said(s):  # "is 3rd scrubbing off too much speed in T7?": the gear, its speed beside it
        first = set(s.measures) <= {"gear", "speed", "lap_time"}
        s.measures = ["gear", *(m for m in s.measures if m != "gear")] if first else [*s.measures, "gear"]
    attach(s, positions, spans)
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
    agg = [a for i, a in _phrases(s, w.AGGREGATIONS, _LONGEST_AGG) if not negated(toks, i)]
    if "count" in agg and _HOW_MANY_UNITS.search(s.joined):
        agg.remove("count")
    # "peak revs per lap", "highest rpm each lap": every lap's figure (the channel's own, highest or lowest)
    s.aggregation = (
        "each_lap" if "each_lap" in agg and set(agg) <= {"each_lap", "max"} else agg[0] if agg else None
    )
    if {"max", "min"} <= set(agg):  # "min and max oil pressure", "rpm range from min to max": the range
        s.aggregation = "range"
    if _BOTH_ENDS.search(s.joined):  # "highest and lowest speed": "lowest speed" is no speed of its own here
        s.aggregation = "range"
        s.measures = ["speed" if m in ("top_speed", "min_speed") else m for m in s.measures]
    if s.aggregation == "range" and not any(ms.MEASURES[m].columns for m in s.measures if m != "lap_time"):
        s.aggregation = None  # "the range of my lap times": no channel's two ends
    if not s.measures and {"max", "avg"} <= set(agg) and not s.laps:
        s.measures, s.aggregation = (
            ["speed"],
            "max",
        )  # "is my max value below the average?": a lap timer's speed
    if (
        (not s.measures or (s.measures == ["lap_time"] and " time" not in s.joined))  # "go round": no time
        and re.search(r" (?:temp|temperature|hotter) ", s.joined)
        and not _WEATHER.search(s.joined)
    ):
        s.measures = ["temps"]  # "the max temp?", "were the temps stable lap to lap?": the engine's
    if s.measures[:1] == ["tyre_temp"] and " temp" not in s.joined and _LOW_TYRE.search(s.joined):
        s.measures[0] = "tyre_pressure"  # "a noticeably low left front tire": its pressure, not its heat
    if s.corner and s.measures[:1] == ["top_speed"] and _CARRIED.search(s.joined):
        s.measures[0] = "speed"  # "the most speed I carried through T2": the corner's speeds, no lap's top
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


# the driver or the car leaving the track: "did I go off?", "where did the car go off?" (not "the alarm went off")
_WENT_OFF = re.compile(
    r" (?:i|we|car|kart|it) (?:\w+ )?(?:go|went|gone|going|goes|gone) off(?! the (?:throttle|gas|power|brake))"
)

# a corner taken flat ("can I take turn 1 flat?"), not the throttle after it ("flat after T3", "out of T3")
_FLAT_AT = re.compile(r" (?:flat|full throttle|wide open|flat out) ")
_AFTER = re.compile(r" (?:after|out of|exit\w*|leaving|onto the straight) ")

# when the throttle comes back on, no corner named: "am I getting on the power early enough?", "where do I
# pick up the throttle?", "could I get on the gas sooner?"
_PICKUP = re.compile(
    r" (?:early|earlier|sooner|soon|late|later|when (?:do|did|should|can|could|to) i|where|pick ?up|picking up"
    r"|picked up|back on|get on|getting on|got on) "
)

# "do I ever coast?", "did I ever lock up?": a thing the driver did, at any point of this session
_I_EVER = re.compile(r" (?:do|did|does|have|had|am|was|were) i ever (?!been )(?!.* here )")

# a lap asked by what it was, the pick after the verb: "what lap did I go quickest on?"
_WHICH_LAP = re.compile(r" (?:what|which) lap (?:number )?(?:\w+ ){1,4}(fastest|slowest) ")

# all of the driver's sessions; "the first ever time", "ever since", "whatever" say nothing of sessions
_EVER = re.compile(r"(?<! first) (?:all time|ever(?! since )|all my sessions|across) ")


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


def _sector(s: Slots) -> None:
    """The sector named by its number ("sector 5", "the 3rd sector"), wherever it stands; else "sector" said
    alone ("that sector", "my sectors") is ``sector_word``."""
    alone = None
    for i, t in enumerate(s.toks):
        if t != "sector" or s.used[i]:
            continue
        got = n.number(s.toks, i + 1)
        before = n.ordinal_before(s.toks, i)
        if got is not None:
            s.sector = got[0]
            mark(s, i, got[1])
            return
        if before is not None:
            s.sector = before[0]
            mark(s, before[1], i + 1)
            return
        alone = i if alone is None else alone
    if alone is not None:
        s.sector_word = True
        mark(s, alone, alone + 1)

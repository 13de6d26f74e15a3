"""The intent of a question read into slots: which family of answers it asks for, from the cue words
and the slots filled (``intent_of``), and the tests ``parse`` reads beside it (the best lap alone, several
figures at once, a lap time asked too, a fade over the stint). Pure: no I/O."""

from __future__ import annotations

import re

from services.paddock import measures as ms
from services.paddock.questions import phrases as ph
from services.paddock.questions.model import Intent
from services.paddock.questions.slot_state import Slots


def best_alone(s: Slots) -> bool:
    """No lap named but this session's best itself (or none at all): the session analysis's own reference."""
    return all(x.pick == "fastest" and x.session == "this" and not x.offset for x in s.laps)


def several_figures(s: Slots) -> bool:
    """Two or more of the session's lap-time figures asked at once, an average or the spread among them
    ("my best and average lap", "average lap and the spread"), no lap number, corner or channel named."""
    if any(x.number is not None or x.count > 1 for x in s.laps) or s.corner or s.sector is not None:
        return False  # "the average of my best three laps": that set's figures
    picks = {x.pick for x in s.laps if x.pick in ("fastest", "slowest") and x.session == "this"}
    spread = {"avg"} & {s.aggregation} | {"spread"} & {"spread" if s.has("consistency") else ""}
    if s.aggregation == "count":  # "the number of laps, best lap and average lap": the count is one of them
        spread |= {"count"} | ({"avg"} if re.search(r" (?:average|mean) ", s.joined) else set())
    return bool(spread) and len(picks | spread) >= 2 and s.measure in (None, "lap_time")


def also_time(s: Slots, intent: Intent) -> bool:
    """A lap's time and a channel's figure asked at once ("average lap time, average lap speeds", "lap 4
    top speed and lap time"), no corner, sector or comparison named: both are answered."""
    m = s.measure
    if intent not in ("channel", "lap_time") or m is None or ms.MEASURES[m].kind != "channel":
        return False
    return not (s.corner or s.sector is not None or s.compare) and ph.also_time(s.joined)


def fading(s: Slots) -> bool:
    """Getting slower (or faster) over the session, no lap number, corner, place on the track or channel
    named ("am I slowing down in the fast corners?" is where the time goes, not the last lap against the
    best); "improving" said of this session ("did my times improve over the session?") is the same."""
    named = any(x.number is not None for x in s.laps) or s.corner or s.sector is not None
    over = s.has("fade") or (
        (s.has("progress") or ph.trend(s.joined))
        and not s.other
        and s.aggregation != "each_lap"  # "did I get quicker as the session went on?": every lap's time
        and ph.in_session(s.joined)
    )
    return over and not named and not _PLACE.search(s.joined) and s.measure in (None, "lap_time")


def intent_of(s: Slots) -> Intent:
    named = bool(s.laps or s.without or s.corner or s.sector is not None)
    event = s.measure is not None and ms.MEASURES[s.measure].kind == "event"
    if not s.driving and not named and not s.bare and not _where_time(s):
        return "unrelated"
    if s.unrelated and not named:
        return "unrelated"
    if s.has("debrief") and not (named or s.measure or s.other):
        return "debrief"
    if s.has("brief") and not (named or s.measure):
        return "brief"
    if s.has("strengths") and not (named or s.measure or s.other or s.has("why") or s.has("potential")):
        return "strengths"  # "what did I do well?", "my strongest corner?"
    # "brake balance front to rear": a setting; "is oil pressure stable?": the vital's reading
    if s.has("balance") and s.measure != "brake_bias" and s.measure not in ms.JUDGED:
        return "balance"
    # "where do I leave time on the table?", "which corners could I do better?": a place, not the lap possible
    # "does the oil pressure light alert me to potential problems?": a vital's reading, not the lap possible
    potential = (s.has("potential") or _CAN_DO.search(s.joined) is not None) and s.measure not in ms.JUDGED
    if potential and len(s.laps) < 2 and not (s.corner is None and PLACE_ASKED.search(s.joined)):
        # "how much faster can I go in T3?": that corner's time to find, not the whole lap possible
        at_corner = s.corner is not None and s.sector is None and s.measure in (None, "lap_time")
        return "where_time" if at_corner else "potential"  # "is T1 where I leave time on the table?"
    ends = s.aggregation == "range" and s.measure not in (None, "lap_time")  # "oil temp spread, low to high"
    # "did oil pressure consistently drop?", "is the oil pressure consistent?": the reading, no lap's time
    vital = s.measure in ms.JUDGED
    if s.has("consistency") and not ends and not vital and not any(x.number is not None for x in s.laps):
        return "consistency"  # "how close did I get to my best on lap 6?": lap 6 against the best
    if event:
        return "events"
    if (
        s.has("why")
        and (s.measure in ms.JUDGED or (s.measure is None and s.has("health")))
        and s.has("judge")
    ):
        return "judge"  # "why is my oil temperature above normal?", "did anything go wrong mechanically?"
    if s.has("why"):
        return "why_slower"
    if len(s.laps) >= 2:
        return "compare"
    # "did oil pressure ever go to zero?": "ever" of a vital is at any point of this session
    ever = s.ever and not (s.measure in ms.JUDGED and " ever " in s.joined and not s.other)
    if s.other and not ever and s.measure not in (None, "lap_time") and not event:
        return "channel"  # "what tyre pressures did I run last time?": that session's reading
    if (
        s.other
        or ever
        or s.has("visits")
        # "where could I get better?": a place; "was I improving on my 2nd and 3rd lap?": those laps
        or (s.has("progress") and not _WHERE_BETTER.search(s.joined) and not _numbered(s))
        or (s.has("sessions") and not s.laps and (s.has("other") or not s.measure or ever or s.compare))
    ):
        return "sessions"
    if s.measure in ms.JUDGED and s.corner is None and _VITAL_LOST.search(s.joined):
        return "judge"  # "did I lose oil pressure?", "no oil pressure?": the reading's drop, not time lost
    if _where_time(s) and best_alone(s):
        return "where_time"  # "where am I losing time against my best lap?": the session's analysis
    if s.laps and s.compare:
        return "compare"
    if s.sector_word and _where_time(s):
        return "sector"
    if _where_time(s) and any(x.session != "this" or x.offset for x in s.laps):
        return (
            "compare"  # "did I improve on my last session's best?", "the lap after my pb, what did I lose?"
        )
    if _where_time(s):
        return "where_time"
    health = s.measure in ms.JUDGED or (s.measure is None and s.has("health"))
    cornering = (
        " corner" in s.joined and not s.corner
    )  # "too much in the faster corners": driving, not a vital
    # "oil pressure good?": "good" judges a vital's reading only
    judged = s.has("judge") or (s.measure in ms.JUDGED and _GOOD.search(s.joined) is not None)
    if judged and s.aggregation is None and (health or (s.bare and not s.measure and not cornering)):
        return "judge"
    if s.corner:
        return "corner"
    if s.sector_word and s.sector is None and s.measure in ("top_speed", "speed"):
        return "channel"  # "top speed in the fastest sector": the session's top speed, not a sector time
    if s.sector is not None or s.sector_word:
        return "sector"
    lapped = s.laps or " lap" in s.joined or s.aggregation is not None
    if s.measure == "lap_time" and not lapped and "session" in s.toks:
        return "unknown"  # "how long was the session?", "what time did it start?": not a lap time
    if s.measure == "lap_time" or s.lap_speed or (s.laps and s.measure is None) or s.lap_figure:
        return "lap_time"
    if s.measure is None and (" laps " in s.joined or ph.ran_a_time(s.joined)):
        return "lap_time"  # "my laps please", "what did I clock?"
    if s.measure:
        return "channel"
    if s.compare:
        return "compare"
    placed = cornering or bool(_PLACE.search(s.joined))
    if placed and re.search(r" (?:slow\w*|brak\w*|fast\w*|lift\w*|early|late|too) ", s.joined):
        return "where_time"  # "do I slow down too much in the faster corners?": where the time goes
    return "unknown"


# the lap times within the driver's reach: "what lap times can I in fact hit, based on what I can actually do?"
_CAN_DO = re.compile(
    r" (?:lap )?times? (?:\w+ ){0,3}(?:can|could) i (?:\w+ ){0,3}(?:hit|do|run|achieve|manage) "
    r"| based on what i (?:can|could) (?:\w+ ){0,2}do "
    r"| could (?:i )?(?:have|ve) (?:gone|been|done|run) (?:\w+ ){0,4}(?:quicker|faster) "  # "a couple tenths quicker"
)
# "finding three tenths", "gain a second"; "where you were slow", "the corners where my speed drops off"
_FIND_TIME = re.compile(
    r" (?:find|finding|found|gain|gaining|pick up|picking up|make up|(?:giv\w*|gave|throw\w*|threw) away|wast\w*"
    r"|leak\w*|leav\w*) (?:\w+ ){0,3}(?:tenths?|seconds?|time|fraction) | (?:time|tenths?|seconds?) (?:is |are )?(?:hiding|leaking|going) "
    r"| (?:giv\w*|gave|throw\w*|threw) (?:\w+ ){0,2}(?:tenths?|seconds?|time) away | hold\w* (?:\w+ ){0,3}back "
    r"| where (?:\w+ ){0,5}(?:tenths|hundredths|seconds|second(?! gear)|delta|(?<!lap )time) "
    r"| (?:tenths|hundredths) (?:\w+ ){0,5}where "
    r"| how (?:can|do|could|would|to) i (?:\w+ ){0,2}(?:drop|lower|reduce|cut|bring down|shave|knock|chop) "
)
# said of a vital's reading, a judgement ("good" of a lap or of braking is no reading of the car)
_GOOD = re.compile(r" (?:good|alright|all right) ")
# a vital lost: "did I lose oil pressure?", "no oil pressure at all?", "lost all the boost" ("lose the tyres"
# is their grip: not read here)
_VITAL_LOST = re.compile(
    r" (?:lose|lost|losing|loses|no|zero|nil) (?:all |any |the |my |some |of |its )*(?:oil|coolant|water|fuel"
    r"|(?:tyre|tire) pressures?|boost|pressure|pressures|voltage|battery) "
)
_WHERE_SLOW = re.compile(
    r" where (?:\w+ ){0,4}(?:slow|slower|slowest|slowing|lose|losing|lost|drop|drops|dropping|bleed|bleeding"
    r"|down|behind|off the pace|giv\w* up|gave up|attack\w*|push harder|push more) "
)
# the parts of a corner set against each other, asked where the speed or time goes ("entry or exit?")
_PHASE_LOSS = re.compile(
    r" (?:where|which|off|los\w*|slow\w*|cost\w*|time|worse|worst|weak\w*|farthest|furthest|better|improve) "
)


# a place on the track, no corner number: "the fast corners", "the quick bits", "the fastest part of the track"
_PLACE = re.compile(
    r" (?:corners?|turns?|bits|sections?|parts? of the (?:track|lap|circuit|course)|straights?|where|areas?"
    r"|sweepers?|kinks?|bends?|esses|stuff) "
)
# a place on the track asked for: "where ...?", "which corners ...?"
PLACE_ASKED = re.compile(
    r" where | (?:which|what) (?:\w+ ){0,2}(?:corners?|turns?|parts?|sections?|bits?|areas?|bends?) "
)
# getting better asked of a place, not of the sessions: "where could I get better and find that time?"
_WHERE_BETTER = re.compile(r" where (?:could|can|should|would|do|might) i (?:\w+ ){0,2}(?:get|be|do) better ")
# "where could I do better?", "which corners could I carry more speed through?"
_BETTER = re.compile(
    r" (?:better|faster|quicker|more speed|potential|possible|capable|falling apart|off my) "
)
# "which turns am I slow in?", "what part of the track am I worst at?"
_WHICH_SLOW = re.compile(
    r" (?:which|what) (?:\w+ ){0,2}(?:corners?|turns?|parts?|sections?|bits?|areas?) (?:\w+ ){0,5}"
    r"(?:slow|slower|slowest|worst|weakest|weak|lose|losing|lost|scrub\w*|attack|suck|improve|work|concentrate"
    r"|focus) "
)


def _numbered(s: Slots) -> bool:
    return any(x.number is not None and x.session == "this" for x in s.laps)


def _where_time(s: Slots) -> bool:
    """Where the time goes: the cue words, or time to find, or where (which part of the track) the driver
    is slow (never a vital's drop: "where did my oil pressure drop?" is the judge's)."""
    which = s.corner is None and bool(_WHICH_SLOW.search(s.joined))
    which |= s.corner is None and bool(PLACE_ASKED.search(s.joined) and _BETTER.search(s.joined))
    said = bool(_FIND_TIME.search(s.joined) or _WHERE_SLOW.search(s.joined)) or which
    said |= s.corner is None and ph.corner_phases(s.joined) and bool(_PHASE_LOSS.search(s.joined))
    return s.has("where_time") or (said and s.measure not in ms.JUDGED) or ph.takes_time_off(s.toks)

"""A driver's question read once into a ``Question``: the words tokenized and spelled once
(``words.tokens``), then the slots filled (measures, corner, sector, laps, picks, other session,
aggregation) and the intent chosen from the cues and the slots; a question that leans on the one before
it takes what it lacks from ``previous`` (``conversation.follow``). Pure: no I/O.

Rules (docs/ARCHITECTURE.md, "Questions"): two or more laps named make a comparison of those laps, never the
session's opportunities ("where did lap 5 lose time against lap 3?" is ``compare`` 5 and 3); "laps 3 to 5"
(plural, or "3-5") is every lap of the range, at most ``slots.MAX_RANGE`` (20) of them; "lap 3 to lap 5" is
two laps; "first lap" is the first full lap (a pick), "second/3rd lap" is that lap number."""

from __future__ import annotations

import re
from dataclasses import replace

from services.paddock.questions import numerals as n
from services.paddock.questions import words as w
from services.paddock.questions.conversation import follow
from services.paddock.questions.model import Aggregation, Intent, LapRef, Question
from services.paddock.questions.slots import Slots, read_slots
from services.paddock.questions.turns import Corners


def parse(text: str, corners: Corners = (), previous: Question | None = None) -> Question:
    """``text`` read as a ``Question``. ``corners``: the corner ids of the session's track in lap order
    (``("t1", ..., "t11")``), or a mapping of each id to the names the track gives it (``{"t7":
    ("the hairpin",)}``, ``resolve.corner_names``); "turn 11", "T11", "corner eleven" and a name become
    an id. ``previous``: the question before it in this conversation."""
    toks = w.tokens(text)
    s = read_slots(toks, corners)
    within_s = n.within(toks)
    intent = _intent(s)
    if within_s is not None and s.corner is None and s.sector is None and intent != "sessions":
        intent = "lap_time"  # "were my laps within half a second of each other?": the laps that close
    elif _several_figures(s):
        s.laps, s.aggregation = [], "each_lap"
        intent = "lap_time"  # "my best, my average and the spread": every lap's time with those figures
    elif _fading(s):
        s.laps = [
            *([x for x in s.laps if x.pick == "fastest"][:1] or [LapRef(pick="fastest")]),
            LapRef(pick="last"),
        ]
        intent = "compare"  # "did I get slower as the race went on?": the last lap against the best
    q = Question(
        text=text,
        intent=intent,
        laps=tuple(s.laps),
        corner=s.corner,
        sector=s.sector,
        measure=s.measure,
        aggregation=s.aggregation,  # type: ignore[arg-type]
        within_s=within_s,
    )
    # "is the engine ok?", "was the temp ok?" after a question about the throttle: complete in itself
    whole = q.intent == "judge" and q.measure is None and bool(_WHOLE_CAR.search(s.joined))
    whole |= (
        q.intent == "judge" and s.has("health") and previous is not None and previous.measure not in w.JUDGED
    )
    return _tidy(follow(None if whole else previous, q), s)


def _several_figures(s: Slots) -> bool:
    """Two or more of the session's lap-time figures asked at once, an average or the spread among them
    ("my best and average lap", "average lap and the spread"), no lap number, corner or channel named."""
    if any(x.number is not None or x.count > 1 for x in s.laps) or s.corner or s.sector is not None:
        return False  # "the average of my best three laps": that set's figures
    picks = {x.pick for x in s.laps if x.pick in ("fastest", "slowest") and x.session == "this"}
    spread = {"avg"} & {s.aggregation} | {"spread"} & {"spread" if s.has("consistency") else ""}
    return bool(spread) and len(picks | spread) >= 2 and s.measure in (None, "lap_time")


def _fading(s: Slots) -> bool:
    """Getting slower over the session, no lap number, corner or channel named."""
    named = any(x.number is not None for x in s.laps) or s.corner or s.sector is not None
    return s.has("fade") and not named and s.measure in (None, "lap_time")


def _intent(s: Slots) -> Intent:
    named = bool(s.laps or s.corner or s.sector is not None)
    event = s.measure is not None and w.MEASURES[s.measure].kind == "event"
    if not s.driving and not named and not s.bare and not _where_time(s):
        return "unrelated"
    if s.unrelated and not named:
        return "unrelated"
    if s.has("debrief") and not (named or s.measure or s.other):
        return "debrief"
    if s.has("brief") and not (named or s.measure):
        return "brief"
    if s.has("balance"):
        return "balance"
    if s.has("potential") and len(s.laps) < 2:
        return "potential"
    if s.has("consistency"):
        return "consistency"
    if event:
        return "events"
    if s.has("why") and s.measure in w.JUDGED and s.has("judge"):
        return "judge"  # "why is my oil temperature above normal?": the reading against its limit
    if s.has("why"):
        return "why_slower"
    if len(s.laps) >= 2:
        return "compare"
    # "did oil pressure ever go to zero?": "ever" of a vital is at any point of this session
    ever = s.ever and not (s.measure in w.JUDGED and " ever " in s.joined and not s.other)
    if (
        s.other
        or ever
        or s.has("visits")
        or s.has("progress")
        or (s.has("sessions") and not s.laps and (s.has("other") or not s.measure or ever or s.compare))
    ):
        return "sessions"
    if s.laps and s.compare:
        return "compare"
    if s.sector_word and _where_time(s):
        return "sector"
    if _where_time(s):
        return "where_time"
    health = s.measure in w.JUDGED or (s.measure is None and s.has("health"))
    cornering = (
        " corner" in s.joined and not s.corner
    )  # "too much in the faster corners": driving, not a vital
    if s.has("judge") and s.aggregation is None and (health or (s.bare and not s.measure and not cornering)):
        return "judge"
    if s.corner:
        return "corner"
    if s.sector is not None or s.sector_word:
        return "sector"
    lapped = s.laps or " lap" in s.joined or s.aggregation is not None
    if s.measure == "lap_time" and not lapped and "session" in s.toks:
        return "unknown"  # "how long was the session?", "what time did it start?": not a lap time
    if s.measure == "lap_time" or s.lap_speed or (s.laps and s.measure is None) or s.lap_figure:
        return "lap_time"
    if s.measure is None and " laps " in s.joined:
        return "lap_time"  # "my laps please"
    if s.measure:
        return "channel"
    if s.compare:
        return "compare"
    if cornering and re.search(r" (?:slow\w*|brak\w*|fast\w*|early|late|too) ", s.joined):
        return "where_time"  # "do I slow down too much in the faster corners?": where the time goes
    return "unknown"


# "finding three tenths", "gain a second"; "where you were slow", "the corners where my speed drops off"
_FIND_TIME = re.compile(
    r" (?:find|finding|gain|gaining|pick up|picking up|make up|(?:giv\w*|gave|throw\w*|threw) away|wast\w*"
    r"|leak\w*) (?:\w+ ){0,2}(?:tenths?|seconds?|time) | time (?:is )?(?:hiding|leaking|going) "
)
_WHOLE_CAR = re.compile(r" (?:engine|car|vitals|gauges|health|everything) ")
_WHERE_SLOW = re.compile(
    r" where (?:\w+ ){0,4}(?:slow|slower|slowest|slowing|lose|losing|lost|drop|drops|dropping|bleed|bleeding) "
)


def _where_time(s: Slots) -> bool:
    """Where the time goes: the cue words, or time to find, or where the driver is slow (never a vital's
    drop: "where did my oil pressure drop?" is the judge's)."""
    said = bool(_FIND_TIME.search(s.joined) or _WHERE_SLOW.search(s.joined))
    return s.has("where_time") or (said and s.measure not in w.JUDGED)


def _tidy(q: Question, s: Slots) -> Question:
    """The slots each intent reads, in one form: a lap question's measure is ``lap_time``; a comparison's
    and a coaching question's time is the comparison itself; "speed" on a lap is its top speed."""
    measure, agg = q.measure, q.aggregation
    if q.intent == "lap_time":
        measure = "lap_time"
        agg = _lap_aggregation(q, s)
    elif q.intent in ("sector", "compare", "why_slower", "where_time", "potential", "consistency", "balance"):
        measure = None if measure == "lap_time" else measure
    elif q.intent == "sessions":
        measure, agg = ("lap_time", "min") if s.ever else (None, agg)  # "my best lap ever": the best of all
    if q.intent == "judge" and measure is None and re.search(r" temp(?:erature)? ", s.joined):
        measure = "temps"  # "are my temps fine?": the engine's temperatures
    if q.intent in ("unrelated", "unknown"):
        measure, agg = None, None  # "what is 17 times 23?", "how long was the session?": no lap time
    if measure == "speed" and q.corner is None:
        measure = {"avg": "speed", "min": "min_speed"}.get(str(agg), "top_speed")
        agg = agg if measure == "speed" else None
    elif measure == "speed" and agg in ("max", "min"):
        measure, agg = ("top_speed" if agg == "max" else "min_speed"), None
    several = len(q.laps) >= 3 or any(x.count > 1 for x in q.laps)  # "average rpm over laps 2 to 6"
    if agg is not None and q.intent not in ("lap_time", "channel", "corner", "sector", "sessions", "events"):
        agg = agg if q.intent == "compare" and several and measure not in (None, "lap_time") else None
    laps = () if q.intent == "sessions" and s.ever else q.laps
    out = Question(q.text, q.intent, laps, q.corner, q.sector, measure, None, q.follow_up, q.within_s)
    return replace(out, aggregation=agg)


def _lap_aggregation(q: Question, s: Slots) -> Aggregation | None:
    """A lap-time question's aggregation: "peak" or "top" lap times are the best ("min"); lap times asked
    with no lap and no figure ("my lap times", "analyse my laps", "the lap time delta") are every lap's
    ("each_lap")."""
    agg = q.aggregation
    if agg == "max" and re.search(r" (?:peak|top) ", s.joined):
        return "min"
    plural = re.search(r" (?:times|laps) ", s.joined) or (s.compare and not s.has("why"))
    if agg is None and not q.laps and q.within_s is None and plural:
        return "each_lap"
    return agg

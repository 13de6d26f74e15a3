"""A driver's question read once into a ``Question``: the words tokenized and spelled once
(``words.tokens``), then the slots filled (measures, corner, sector, laps, picks, other session,
aggregation) and the intent chosen from the cues and the slots; a question that leans on the one before
it takes what it lacks from ``previous`` (``conversation.follow``). Pure: no I/O.

Rules (docs/ARCHITECTURE.md, "Questions"): two or more laps named make a comparison of those laps, never the
session's opportunities ("where did lap 5 lose time against lap 3?" is ``compare`` 5 and 3); "laps 3 to 5"
(plural, or "3-5") is every lap of the range, at most ``lap_slots.MAX_RANGE`` (20) of them; "lap 3 to lap 5" is
two laps; "first lap" is the first full lap (a pick), "second/3rd lap" is that lap number."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from services.paddock import measures as ms
from services.paddock.questions import numerals as n
from services.paddock.questions import phrases as ph
from services.paddock.questions import words as w
from services.paddock.questions.conversation import carries_on, follow, moved_only
from services.paddock.questions.intents import (
    PLACE_ASKED,
    also_time,
    best_alone,
    fading,
    intent_of,
    several_figures,
)
from services.paddock.questions.model import Aggregation, Intent, LapRef, Question
from services.paddock.questions.slot_state import Slots
from services.paddock.questions.slots import read_slots
from services.paddock.questions.turns import Corners
from services.paddock.questions.unread import unread


def parse(text: str, corners: Corners = (), previous: Question | None = None) -> Question:
    """``text`` read as a ``Question``. ``corners``: the corner ids of the session's track in lap order
    (``("t1", ..., "t11")``), or a mapping of each id to the names the track gives it (``{"t7":
    ("the hairpin",)}``, ``resolve.corner_names``); "turn 11", "T11", "corner eleven" and a name become
    an id. ``previous``: the question before it in this conversation."""
    toks = w.tokens(_TAG.sub("", text))  # "my first lap isn't my quickest, right?": the tag asks nothing
    s = read_slots(toks, corners)
    target_s = ph.target_time(text) if not (s.laps or s.corner or s.sector is not None) else None
    target = target_s is not None
    if target:
        s.laps, s.measures = [LapRef(pick="fastest")], ["lap_time"]  # "did I break 1:47?": the best lap
    intent = intent_of(s)
    if target and intent in ("compare", "consistency"):
        intent = "lap_time"  # "how far off a 1:35 was I?": the best lap against the time, no other lap
    toks, s, intent = _without_context(text, corners, toks, s, intent)
    if intent == "where_time" and s.corner is None and ph.corner_phases(s.joined):
        # "entry, middle or end?": each part of the corner's speed, never a lap's top speed
        s.measures = ["corner_phases"]
    if s.measure == "gear" and s.corner is not None and intent in ("where_time", "potential"):
        intent = "corner"  # "would holding 4th out of T10 be quicker?": the gear there, not time to find
    if s.measure == "gear" and s.corner is None and not s.laps and ph.gear_places(s.joined):
        s.measures = ["corner_gears"]  # "am I in the wrong gear anywhere?": the gear at every corner
    if s.measure == "corner_gears" and (s.corner or s.laps):
        s.measures = ["gear"]  # "the gear at each corner on lap 3": that lap's gear (one corner: its own)
    shifting = {"gear", "rpm"} & set(s.measures) and set(s.measures) <= {"gear", "rpm", "lap_time"}
    if shifting and s.corner is None and not s.laps and ph.shift_when(s.joined):
        s.measures = ["shift_rpm"]  # "do I upshift too early?", "what rpm am I at when I shift to 4th?"
    if "shift_rpm" in s.measures and s.corner is None:
        s.measures = ["shift_rpm"]  # "I never hit the limiter, am I short shifting?": the upshifts asked
    if s.measure == "shift_rpm" and s.corner is not None:
        s.measures = ["gear"]  # "do I short shift out of T11?": the gear there (no upshift is kept by corner)
    within_s = n.within(toks, text)
    of_laps = s.corner is None and s.sector is None and intent != "sessions"  # the laps' times, not a place's
    under_s = ph.under_time(text) if of_laps else None
    if under_s is not None:
        s.laps, within_s, intent = [], None, "lap_time"  # "how many laps under 1:36?": every lap against it
    elif within_s is not None and of_laps:
        intent = "lap_time"  # "were my laps within half a second of each other?": the laps that close
    elif several_figures(s) and not target:
        s.laps, s.aggregation = [], "each_lap"
        intent = "lap_time"  # "my best, my average and the spread": every lap's time with those figures
    elif fading(s):
        s.laps = [
            *([x for x in s.laps if x.pick == "fastest"][:1] or [LapRef(pick="fastest")]),
            LapRef(pick="last"),
        ]
        intent = "compare"  # "did I get slower as the race went on?": the last lap against the best
    elif (
        intent == "lap_time"
        and ph.up_on_best(s.joined)
        and [(x.pick, x.session) for x in s.laps] == [("fastest", "this")]
    ):
        s.laps = [s.laps[0], LapRef(pick="last")]
        intent = "compare"  # "am I up or down on my best lap?": the lap now (the last) against the best
    if intent in ("why_slower", "where_time") and best_alone(s):
        s.laps = []  # "why am I slower than my best lap?": the session's analysis against the good laps
    if intent == "compare" and len(s.laps) == 1 and s.laps[0].offset:
        s.laps = [replace(s.laps[0], offset=0), s.laps[0]]  # "the lap after my best, compared": with the best
    q = Question(
        text=text,
        intent=intent,
        laps=tuple(s.laps),
        corner=s.corner,
        sector=s.sector,
        measure=s.measure,
        aggregation=s.aggregation,  # type: ignore[arg-type]
        within_s=within_s,
        under_s=under_s,
        target_s=target_s if under_s is None else None,
        stated=ph.stated_time(text) if target_s is None and under_s is None else None,
        also_lap_time=also_time(s, intent),
        without=tuple(s.without),
        vitals=_vitals(s),
        also=s.beside,
        against=intent == "channel"
        and s.compare
        and bool(s.laps)
        and all(x.session != "this" for x in s.laps),
        unread=unread(s.toks, s.used, (*_names(corners), *_tracks(s.laps))),
    )
    # "is the engine ok?", "was the temp ok?" after a question about the throttle: complete in itself
    whole = q.intent == "judge" and q.measure is None and bool(_WHOLE_CAR.search(s.joined))
    whole |= (
        q.intent == "judge" and s.has("health") and previous is not None and previous.measure not in ms.JUDGED
    )
    got = follow(None if whole else previous, q)
    if any(moved_only(x) for x in got.laps):  # "the lap after that" with nothing before: not understood
        got = replace(got, intent="unknown", laps=tuple(x for x in got.laps if not moved_only(x)))
    return _tidy(got, s)


# a tag after a statement, asking for agreement: "..., right?", "..., yeah?"
_TAG = re.compile(r",\s*(?:right|yeah|yes|eh|no|innit|correct|true)\s*\?+\s*$", re.IGNORECASE)
# a question's clauses: sentences, and a dash or semicolon between two parts
_WHOLE_CAR = re.compile(r" (?:engine|car|vitals|gauges|health|everything) ")
_CLAUSES = re.compile(
    r"(?<=[.?!])\s+|\s+[-\u2013\u2014]+\s+|;\s*|,\s*(?=(?:what|whats|what's|how|which|was|did)\b)",
    re.IGNORECASE,
)
_ASKING = re.compile(r"^\W*(?:what|whats|how|which|where|when|was|did|is|were|do|does)\b", re.IGNORECASE)
_CORRECTING = re.compile(r"^\W*(?:no\W+)?(?:i mean|i meant|sorry|actually)\b", re.IGNORECASE)


def _asked(text: str) -> tuple[str, bool] | None:
    """The question a driver put after its context ("My coach says consistency is key. What's my average
    lap?", "I've worked on my braking all day, what was my best lap?"): the last clause, when there are two
    or more and it asks; True when it corrects the one before ("average speed? no I mean average lap
    time"); else None."""
    parts = [p for p in _CLAUSES.split(text.strip()) if p.strip()]
    if len(parts) < 2:
        return None
    if _CORRECTING.match(parts[-1]):
        return parts[-1], True
    return (parts[-1], False) if _ASKING.match(parts[-1]) else None


def _without_context(
    text: str, corners: Corners, toks: list[str], s: Slots, intent: Intent
) -> tuple[list[str], Slots, Intent]:
    """The words, slots and intent of the question itself when context stands before it: the last clause
    when the whole reads as nothing, when it corrects the one before, or when it names the same laps,
    corner and sector as the whole and asks about them in itself (no "it", "that") — the context's
    channel or cue is no part of it ("working on my braking all day, what was my quickest lap?")."""
    asked = _asked(text)
    if asked is None:
        return toks, s, intent
    clause, correcting = asked
    toks_a = w.tokens(clause)
    s_a = read_slots(toks_a, corners)
    intent_a = intent_of(s_a)
    if intent_a in ("unrelated", "unknown") or (intent == "potential" and intent_a == "lap_time"):
        return toks, s, intent  # "piecing together my best sectors, what's my best lap?": the lap possible
    own = s_a.laps == s.laps and s_a.corner == s.corner and s_a.sector == s.sector
    whole = bool(s_a.laps or s_a.aggregation or s_a.measure) and not carries_on(clause)
    if (
        intent in ("unrelated", "unknown")
        or correcting
        or (own and (whole or (s.has("why") and not s_a.has("why"))))
    ):
        return toks_a, s_a, intent_a
    return toks, s, intent


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
    intent = "unknown" if measure in ms.UNREAD_HABITS and q.intent != "unrelated" else q.intent
    q = replace(q, intent=intent)  # "do I rev match?": what was understood, never another figure
    if q.intent == "unrelated" or (q.intent == "unknown" and measure not in ms.UNREAD_HABITS):
        measure, agg = None, None  # "what is 17 times 23?", "how long was the session?": no lap time
    if q.intent == "compare" and measure == "speed" and PLACE_ASKED.search(s.joined):
        measure = None  # "where are the big differences in speed, lap 4 vs 9?": the laps along the track
    if (
        measure == "top_speed"
        and agg == "avg"
        and re.search(r" (?:average|mean|typical) top speed ", s.joined)
    ):
        agg = "each_lap"  # "my average top speed": each lap's top speed, never the mean of every sample
    if measure in ("speed", "top_speed", "min_speed") and agg == "range":
        measure = "speed"  # "highest and lowest speed": both ends of the speed
    elif measure == "speed" and q.corner is None:
        measure = {"avg": "speed", "min": "min_speed"}.get(str(agg), "top_speed")
        agg = agg if measure == "speed" else None
    elif measure == "speed" and agg in ("max", "min"):
        measure, agg = ("top_speed" if agg == "max" else "min_speed"), None
    several = len(q.laps) >= 3 or any(x.count > 1 for x in q.laps)  # "average rpm over laps 2 to 6"
    if agg is not None and q.intent not in ("lap_time", "channel", "corner", "sector", "sessions", "events"):
        agg = agg if q.intent == "compare" and several and measure not in (None, "lap_time") else None
    laps = () if q.intent == "sessions" and s.ever else q.laps
    out = Question(q.text, q.intent, laps, q.corner, q.sector, measure, None, q.follow_up, q.within_s)
    out = replace(out, aggregation=agg, also_lap_time=q.also_lap_time, without=q.without, vitals=q.vitals)
    out = replace(out, under_s=q.under_s, target_s=q.target_s, stated=q.stated, also=q.also, unread=q.unread)
    return replace(out, against=q.against and out.intent == "channel")


def _tracks(laps: list[LapRef]) -> tuple[str, ...]:
    """The tracks the session reader read ("last time at Sonoma": ``when:track=sonoma``)."""
    return tuple(x.session.split("track=", 1)[1] for x in laps if "track=" in x.session)


def _names(corners: Corners) -> tuple[str, ...]:
    """The track's names for its corners ("the hairpin"): words the question may use as a corner's."""
    return tuple(x for names in corners.values() for x in names) if isinstance(corners, Mapping) else ()


def _vitals(s: Slots) -> tuple[str, ...]:
    """The vitals named, when two or more are ("did the water temp climb while the oil pressure fell?");
    the engine's two temperatures alone are ``temps``."""
    named = [m for x in s.measures for m in (("coolant_temp", "oil_temp") if x == "temps" else (x,))]
    if "oil_pressure" in named and re.search(r" (?:the |my |engine )temp(?:erature)?s? ", s.joined):
        named += [
            "coolant_temp",
            "oil_temp",
        ]  # "the oil pressure and the temps": the engine's temperatures too
    got = tuple(dict.fromkeys(m for m in named if m in ms.JUDGED and m != "rpm"))
    if "oil_pressure" in got and not re.search(r" (?:temp\w*|hot\w*|heat\w*) ", s.joined):
        got = tuple(
            m for m in got if m != "oil_temp"
        )  # "oil pressure ok? no oil pump": "oil" is no temperature
    return got if len(got) >= 2 and set(got) != {"oil_temp", "coolant_temp"} else ()


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

"""The one plan: a ``Question``'s intent and filled slots -> the families that answer it, tried in order
(the first answer wins; a family is tried only when it reads every slot the question filled,
``coverage.reads``). A question no family can answer gets what was understood and what can be
answered ("I read this as …; I can answer …"), never another question's answer. Runs the families'
tools and SQL (call it in a worker thread)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.paddock.questions import stated
from services.paddock.questions.coverage import SPEEDS, Family, reads, unread_measures
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
from services.paddock.questions.model import Answer, Intent, Question
from services.paddock.questions.reading import heading, read_as
from services.paddock.tools.base import session_row

TABLE: dict[Intent, tuple[Family, ...]] = {
    "lap_time": (laps.answer,),
    "compare": (compare.answer,),
    "corner": (corners.answer,),
    "sector": (sectors.answer,),
    "channel": (channels.answer,),
    "judge": (judge.answer, channels.answer),
    "events": (events.answer,),
    "balance": (balance.answer,),
    "where_time": (coaching.where_time,),
    "brief": (coaching.where_time,),  # "what should I work on next session?": where the time is
    "why_slower": (coaching.why_slower, compare.answer),
    "potential": (coaching.potential, sectors.answer),
    "consistency": (coaching.consistency,),
    "strengths": (coaching.strengths,),
    "sessions": (sessions.answer, coaching.threads),
}
# a topic the driver picked on the tablet (the classifier's intents) -> the families that answer it first:
# the words cannot tell a coaching thread from another session, nor a vague "how is it holding up?"
PICKED: dict[str, tuple[Family, ...]] = {
    "threads": (coaching.threads,),
    "race_pace": (coaching.consistency,),
    "lap_comparison": (compare.answer,),
}
# the slots that send a question elsewhere than its intent: a second lap is a comparison; a corner
# named with a channel is the corner's figure; a brake point at a corner is its brake marker
PER_LAP = ("lap_time", "channel", "corner", "sector", "where_time", "why_slower")

DECLINE = (
    "I can only answer questions about your driving data: laps, corners, braking, speed and the car's "
    "channels in this session."
)
CAN = (
    "lap times (a lap, the best, slowest or average, lap against lap), a corner's figures and brake markers, "
    "sector times, a channel's figures per lap or over the session, whether a reading was ok, warnings and "
    "events, where the time is and what went well, why a lap was slower, the achievable lap, consistency and your sessions here"
)


def families(q: Question) -> tuple[Family, ...]:
    """The families that answer ``q``, from its intent and its filled slots."""
    if q.measure == recorded.MEASURE:  # "what channels are there?": the file's own, whatever the intent
        return (recorded.answer,)
    # neither pedal, by corner and lap ("and was I coasting anywhere?" after a lock-up: the coasting)
    if q.measure == "coasting" and q.intent in (*PER_LAP, "compare", "events"):
        return (coasting.answer,)
    if q.measure in (gears.CORNER_GEARS, gears.SHIFT_RPM) and q.corner is None:
        return (gears.answer,)
    # "entry, middle or end?": each part of the corner, else where the time is
    if q.measure == phases.MEASURE:
        return (phases.answer, coaching.where_time)
    if q.measure == trail.MEASURE:  # brake pressure at each turn-in and where it came off, lap by lap
        return (trail.answer,)
    if lap_set.asks(q):
        return (lap_set.answer,)
    if (q.measure == "temps" or q.vitals) and q.intent in (
        "channel",
        "lap_time",
    ):  # "oil and water temp on lap 6?"
        return (judge.answer,)
    if channel_set.asks(q):  # a channel over a set of laps: every lap's figure and the set's
        return (channel_set.answer,)
    if q.intent in ("lap_time", "compare") and any(x.pick in ("out", "in") for x in q.laps):
        return (laps.answer,)  # "my out lap", "in lap against my best": no timed lap to compare, their times
    if len(q.laps) >= 2 and q.intent in PER_LAP:
        return (compare.answer,)
    # "where did I lose time on lap 4?": that lap against the best, never the session's opportunities
    if q.intent == "where_time" and q.corner is None and q.sector is None and len(q.laps) == 1:
        return (coaching.why_slower,)
    if q.sector is not None and q.measure in ("top_speed", "min_speed", "speed"):
        return ()  # "top speed in sector 2": no sector's speed is kept; never the sector's time instead
    if q.measure == lifts.MEASURE and q.intent in (*PER_LAP, "compare") and len(q.laps) <= 1:
        return (lifts.answer,)  # where the throttle came off before each corner, or flat
    if q.measure == lifts.PICKUP and q.intent != "balance":  # back on the throttle after each corner's apex
        return (lifts.pickups,)
    if q.measure == inputs.MEASURE and q.intent not in ("where_time", "why_slower", "potential"):
        return (inputs.answer,)  # "was I smooth on the throttle?" ("where do I need to be smoother?": where)
    if _brake_markers(q):
        return (markers.answer, corners.answer) if q.corner is not None else (markers.answer,)
    if corner_channel.asks(q):  # "how hot did the oil get in turn 11?": the channel over the corner's span
        return (corner_channel.answer,)
    if q.corner is not None and q.intent in ("channel", "corner"):
        return (corners.answer,)
    if q.corner is not None and q.intent == "where_time" and len(q.laps) == 1 and q.measure in SPEEDS:
        return (corners.answer,)  # "lap 7, did I gain 4 mph through T1?": that lap's speeds there
    if q.corner is not None and q.intent == "why_slower":  # "…, causing a downshift to 2nd in T6?": the gear
        return (corners.answer,) if q.measure == "gear" and not q.laps else (compare.answer,)
    if q.sector is not None and q.intent in ("lap_time", "where_time", "why_slower", "potential"):
        return (sectors.answer,)
    if q.intent == "lap_time" and q.measure not in (None, "lap_time"):
        return (channels.answer,)
    return TABLE.get(q.intent, ())


def _brake_markers(q: Question) -> bool:
    """Where braking started, in metres before the corner, each lap against the others: a brake point asked
    of one corner (on no lap, the best, or one lap of this session), or of no corner and no lap number ("am
    I braking earlier than my best anywhere?"); "where do I lose time braking?" stays the session analysis."""
    if q.measure != "brake_point":
        return False
    if q.corner is not None and not q.laps:
        return True
    if q.intent not in ("channel", "corner", "lap_time", "compare", "consistency"):
        return False  # "is my braking consistent?": each lap's brake point against the others', every corner
    own = all(x.session == "this" and not x.offset and x.count == 1 for x in q.laps)
    numbered = [x for x in q.laps if x.number is not None]
    best = all(x.number is not None or (x.pick == "fastest" and x.rank == 1) for x in q.laps)
    return own and best and len(numbered) <= (1 if q.corner is not None else 0) and len(q.laps) <= 1


def understood(q: Question, s: dict[str, Any]) -> Answer:
    """What was understood of ``q`` and what can be answered, in driver words; a reading the file does not
    record is said so ("are my tyre pressures all over the place?" with no pressure channel)."""
    sid = str(s["session_id"])
    if q.measure is not None and channels.lacks(sid, q.measure):
        got = channels.not_recorded(s, q.measure, lead=f"I read this as {read_as(q)}, but ")
        return replace(got, result=got.result | {"understood": True})
    text = f"I read this as {read_as(q)}, which this session's data cannot answer; I can answer {CAN}."
    return Answer(text, "none", {"session_id": sid}, {"understood": True})


def plan(q: Question, session_id: str, picked: str | None = None) -> Answer:
    """The answer to ``q`` over the session: the first family that answers it, else what was understood.
    ``picked``: the topic the driver picked (the tablet's intent picker), whose families come first; a
    question with a topic picked is about driving, never declined."""
    if q.also_lap_time:  # "lap 4 top speed and lap time": the lap time, then the measure's figure
        agg = q.aggregation if q.aggregation in ("avg", "each_lap") else None
        first = plan(
            replace(
                q, intent="lap_time", measure="lap_time", aggregation=agg, also_lap_time=False, unread=()
            ),
            session_id,
        )
        rest = plan(replace(q, also_lap_time=False), session_id, picked)
        if first.text == rest.text or first.result.get("understood") or rest.result.get("understood"):
            return rest
        return _joined(q, [first, rest], rest)
    if q.intent == "consistency" and q.measure == inputs.MEASURE:  # "am I smooth and consistent?": both,
        first = plan(replace(q, measure=None), session_id, picked)  # the inputs over the whole session
        inputs_said = plan(replace(q, intent="channel", laps=()), session_id)
        return first if inputs_said.result.get("understood") else _joined(q, [first, inputs_said], first)
    if (extra := unread_measures(q)) and q.measure is not None:
        return _each_measure(q, (q.measure, *extra), session_id, picked)
    s = session_row(session_id)
    if q.intent == "unrelated" and not picked:
        return Answer(DECLINE, "none", {"session_id": s["session_id"]}, {"declined": True})
    if (gone := laps.missing_lap(q, s)) is not None and not lap_set.asks(q):
        return gone
    for family in (*PICKED.get(picked or "", ()), *families(q)):
        if not reads(family, q):  # a slot named that the family does not read: never part of an answer
            continue
        got = family(q, s)
        if got is not None:  # a part of the question not read: the answer says what it answers
            return _headed(q, stated.checked(q, got))
    return understood(q, s)


def _each_measure(q: Question, measures: tuple[str, ...], session_id: str, picked: str | None) -> Answer:
    """Two or three measures no one family reads together ("my throttle and speed at T7 on lap 2"): each
    answered as asked alone, in the order named; when one of them cannot be, what was understood."""
    # a speed beside another figure of a corner is the corner's speeds (entry, slowest, exit): "did I get on
    # the gas early and not carry enough speed in?" asks how the speed went through it, not one of them
    measures = tuple(dict.fromkeys("speed" if q.corner and m in SPEEDS else m for m in measures))
    parts = [plan(replace(q, measure=m, also=()), session_id, picked) for m in measures[:3]]
    if any(p.result.get("understood") or p.result.get("declined") for p in parts):
        return understood(q, session_row(session_id))
    return _joined(q, parts, parts[0])


def _joined(q: Question, parts: list[Answer], lead: Answer) -> Answer:
    """The answers to parts of ``q`` said one after another (each once, none headed), their results merged,
    the whole headed with what ``q`` was read as; ``lead``'s tool names the answer."""
    text = " ".join(dict.fromkeys(p.text.removeprefix(heading(q)) for p in parts))
    result = {k: v for p in parts for k, v in p.result.items()}
    return _headed(q, Answer(text, lead.tool, lead.args, result))


def _headed(q: Question, got: Answer) -> Answer:
    """``got`` headed with what ``q`` was read as when a part of it was not read, unless it says so itself
    (a session by a description no session fits: "I read this as your session on 3 Mar 2026, but …")."""
    if not heading(q) or got.text.startswith("I read this as"):
        return got
    return replace(got, text=heading(q) + got.text)

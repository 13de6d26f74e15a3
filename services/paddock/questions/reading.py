"""How much of a question the reader read, and what it read it as, in driver words: one place for the
"I read this as …" both of an answer headed because a part of the question was not read (``heading``) and
of the answer that says what was understood when the data cannot answer (``plan.understood``).

A word is **unread** when it is a content word the vocabulary does not know (``words.vocabulary``: the
slots', the cues', the measures' and the plain English it leaves alone) and is no filler of speech: "what's
my epic lap time?" reads "epic" as nothing, so its answer (the best lap) is headed with what it
answers. A plain question ("what was my best lap?") reads every word and is never headed. Pure."""

from __future__ import annotations

from services.paddock.questions.coverage import unread_measures
from services.paddock.questions.families import channels, corners
from services.paddock.questions.model import Question

_INTENT_WORDS = {
    "lap_time": "a lap time",
    "compare": "a comparison of laps",
    "corner": "a corner's figures",
    "sector": "sector times",
    "channel": "a channel's figures",
    "judge": "whether a reading was ok",
    "events": "warnings and events",
    "balance": "the car's balance (understeer or oversteer)",
    "where_time": "where the time is",
    "why_slower": "why a lap was slower",
    "potential": "what lap time is possible",
    "consistency": "consistency",
    "strengths": "what went well",
    "sessions": "your sessions",
    "debrief": "a debrief of the session",
    "brief": "a brief for the next session",
}


def _lap_words(q: Question) -> str:
    said = []
    for ref in q.laps:
        lap = f"lap {ref.number}" if ref.number is not None else f"your {ref.pick or 'best'} lap"
        said.append(lap + (" of your other session" if ref.session == "other" else ""))
    return " and ".join(said)


def read_as(q: Question) -> str:
    """What ``q`` was read as, in driver words: "a lap time on your fastest lap", "a corner's figures about
    entry speed at T7"."""
    bits = [_INTENT_WORDS.get(q.intent, "a question about your driving data")]
    measures = dict.fromkeys(m for m in (q.measure, *q.vitals, *unread_measures(q)) if m and m != "lap_time")
    said = set(bits[0].split()) - {
        "a",
        "and",
        "the",
    }  # "warnings and events", never "about alarms and warnings"
    labels = [x for x in (channels.label(m) for m in measures) if not set(x.split()) & said]
    if labels:
        bits.append(f"about {' and '.join(labels)}")
    if q.laps:
        bits.append(f"on {_lap_words(q)}")
    if q.corner:
        bits.append(f"at {corners.name_of(q.corner, None)}")
    if q.sector is not None:
        bits.append(f"in sector {q.sector}")
    return " ".join(bits)


def heading(q: Question) -> str:
    """The words that head an answer to ``q`` when a part of it was not read, else "": what was answered
    and which of the driver's words were left aside ("I read this as a lap time on your fastest lap,
    leaving aside “epic”: ")."""
    if not q.unread:
        return ""
    left = ", ".join(f"“{x}”" for x in q.unread[:3])
    return f"I read this as {read_as(q)}, leaving aside {left}: "

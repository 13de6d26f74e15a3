"""A conversation: a question that leans on the one before it takes what it lacks from it ("and the
slowest?", "what about turn 3?", "why?", "compare that with lap 5"), and the previous question kept in
the driver's agent session state under ``STATE_KEY`` (one ADK session per driver and lake session, so a
new session starts a new thread). Pure: the state is the caller's dict."""

from __future__ import annotations

import re
from dataclasses import asdict, replace
from typing import Any, get_args

from services.paddock import measures as ms
from services.paddock.questions import cues as c
from services.paddock.questions import words as w
from services.paddock.questions.model import Aggregation, Intent, LapRef, Pick, Question

STATE_KEY = "question"
# intents that mean nothing without laps, a corner or a measure: "why?", "compare that", "was it ok?"
_NEEDS = frozenset({"unknown", "why_slower", "compare", "judge"})
# intents read from the words alone: carried on, they keep the previous question's intent
_WEAK = frozenset({"unknown", "lap_time", "channel", "corner", "sector"})
# the previous question's frame a fragment stays in ("what about turn 3?" after lap 3 vs lap 5)
_FRAMES = frozenset(
    {"compare", "why_slower", "where_time", "judge", "corner", "channel", "sector", "events", "balance"}
)
_STANDALONE = frozenset({"unrelated", "debrief", "brief"})


_A_LAP_ALONE = re.compile(
    r"^\W*(?:(?:and|on|in|for|then)\s+)*lap\s+\w+\W*(?:please|pls|then)?\W*$", re.IGNORECASE
)


# "what about 2 and 7?" after laps compared by number: bare numbers are the laps
_BARE_LAPS = re.compile(
    r"^\W*(?:(?:and|what|how|about|then)\s+)*(\d{1,3})\s*(?:,|&|and|vs|versus|against|to)\s*(\d{1,3})\W*$",
    re.IGNORECASE,
)


def bare_laps(previous: Question, text: str) -> tuple[LapRef, ...]:
    """The laps two bare numbers name after a comparison of numbered laps ("what about 2 and 7?"), else ()."""
    m = _BARE_LAPS.match(text)
    if m is None or previous.intent != "compare":
        return ()
    if not any(x.number is not None for x in previous.laps):
        return ()
    return (LapRef(number=int(m.group(1))), LapRef(number=int(m.group(2))))


def carries_on(text: str) -> bool:
    """The words lean on the question before: "and ...", "what about ...", "that", "it", "them"."""
    toks = w.tokens(text)
    joined = " ".join(toks) + " "
    return any(joined.startswith(p + " ") for p in c.CARRY_ON) or any(t in c.REFERS for t in toks)


def follow(previous: Question | None, q: Question) -> Question:
    """``q`` with the laps, corner or sector and measure it did not name taken from ``previous`` when it
    leans on it (``follow_up=True``); a question complete in itself is returned as it is."""
    if previous is None:
        return q
    if laps := bare_laps(previous, q.text):
        return replace(q, intent="compare", laps=laps, measure=q.measure or previous.measure, follow_up=True)
    if q.intent in _STANDALONE:
        return q
    own = bool(q.laps or q.corner or q.sector is not None or q.measure)
    # "lap four?" after "my top speed?": the same figure of that lap
    carry = carries_on(q.text) or (
        previous.measure not in (None, "lap_time") and bool(_A_LAP_ALONE.match(q.text))
    )
    if not carry and (own or q.intent not in _NEEDS):
        return q
    intent = q.intent
    if q.intent == "unknown" or (q.intent in _WEAK and previous.intent in _FRAMES):
        intent = previous.intent
    if q.corner and intent in ("lap_time", "channel", "sector"):
        intent = "corner"  # "what about turn 3?" after a lap's figure: that figure at the corner
    elif q.sector is not None and intent in ("lap_time", "channel", "corner"):
        intent = "sector"
    laps = tuple(_moved(x, previous) for x in q.laps) or previous.laps
    if intent == "compare" and len(q.laps) == 1 and previous.laps and previous.laps[0] != q.laps[0]:
        laps = (previous.laps[0], q.laps[0])  # "compare that with lap 5"
    corner, sector = q.corner, q.sector
    if corner is None and sector is None:
        corner, sector = previous.corner, previous.sector
    measure = q.measure
    if measure is None and intent not in ("why_slower", "where_time"):
        measure = previous.measure
    out = replace(
        q,
        intent=intent,
        laps=laps,
        corner=corner,
        sector=sector,
        measure=measure,
        aggregation=q.aggregation or (None if any(x.pick for x in q.laps) else previous.aggregation),
    )
    return replace(out, follow_up=out != q)


def to_state(q: Question) -> dict[str, Any]:
    """``q`` as the JSON the agent session state keeps under ``STATE_KEY``."""
    return asdict(q)


def from_state(value: object) -> Question | None:
    """The question a state kept (``to_state``), or None when there is none or it is not one (a state
    from an older release, or damaged): a conversation then starts afresh, never fails."""
    if not isinstance(value, dict):
        return None
    try:
        laps = tuple(
            LapRef(
                number=int(x["number"]) if x.get("number") is not None else None,
                pick=_member(x.get("pick"), Pick),
                session=str(x.get("session") or "this"),
                count=int(x.get("count") or 1),
                rank=int(x.get("rank") or 1),
                offset=int(x.get("offset") or 0),
            )
            for x in value.get("laps") or ()
        )
        intent = _member(value.get("intent"), Intent)
        if intent is None:
            return None
        measure = value.get("measure")
        sector = value.get("sector")
        return Question(
            text=str(value.get("text") or ""),
            intent=intent,
            laps=laps,
            corner=str(value["corner"]) if value.get("corner") else None,
            sector=int(sector) if sector is not None else None,
            measure=measure if measure in ms.MEASURES else None,
            aggregation=_member(value.get("aggregation"), Aggregation),
            follow_up=bool(value.get("follow_up")),
            within_s=float(value["within_s"]) if value.get("within_s") is not None else None,
            under_s=float(value["under_s"]) if value.get("under_s") is not None else None,
            target_s=float(value["target_s"]) if value.get("target_s") is not None else None,
        )
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def _moved(ref: LapRef, previous: Question) -> LapRef:
    """ "and the lap after that?": the previous question's (last) lap, moved by ``ref.offset``."""
    if not (moved_only(ref) and previous.laps):
        return ref
    return replace(previous.laps[-1], offset=previous.laps[-1].offset + ref.offset)


def moved_only(ref: LapRef) -> bool:
    """A lap named only as beside the one before ("the lap after that"): no number, pick or session."""
    return ref.number is None and ref.pick is None and ref.session == "this" and ref.offset != 0


def _member(v: object, kind: Any) -> Any:
    return v if v in get_args(kind) else None

"""Laps named by what they were for, and laps left out (over the question's spelled words): the out and in
laps ("my out lap", "the in and out laps", never "in lap 3"), the runs of words after "excluding",
"without", "not counting" that name the laps a figure leaves out, and better or worse between sessions
with no session named ("did I drop several seconds off my best time?"). Pure."""

from __future__ import annotations

import re

from services.paddock.questions import numerals as n
from services.paddock.questions import words as w
from services.paddock.questions.model import LapRef

# before "in lap" when it names the lap into the pits ("my in lap", "the in lap"), not "in lap 3" or "time in lap"
_IN_LAP_AFTER = w.word_set("my the an your his her their and or versus slow")
_PAIRS = (["and", "out"], ["and", "in"], ["or", "out"], ["or", "in"])


def entry_laps(toks: list[str], used: list[bool]) -> list[tuple[int, LapRef, int]]:
    """(where, the out or in lap, where its words end) of each named: "my out lap", "the in lap", "the in
    and out laps" (two); never "in lap 3" nor a word already read (``used``)."""
    out: list[tuple[int, LapRef, int]] = []
    for i, t in enumerate(toks):
        if t not in ("out", "in") or used[i] or (t == "in" and i > 0 and toks[i - 1] not in _IN_LAP_AFTER):
            continue
        pair = toks[i + 1 : i + 3] in _PAIRS and toks[i + 2] != t
        j = i + 1 + 2 * pair
        if toks[j : j + 1] not in (["lap"], ["laps"]) or n.number(toks, j + 1) is not None:
            continue
        out.append((i, LapRef(pick=t), j + 1))  # type: ignore[arg-type]
        if pair:
            out.append((i + 2, LapRef(pick=toks[i + 2]), j + 1))  # type: ignore[arg-type]
    return out


# a lap left out of a figure: "my average excluding lap 1", "without the in and out laps", "not counting lap 1"
_LEAVE_OUT = re.compile(
    r" (?:excluding|exclude|except|without|minus|ignoring|ignore|discounting|not counting|not including"
    r"|leaving out|leave out|apart from|other than|taking out|take out|throwing out|throw out)(?: the| my)? $"
)
_LEFT_RUN = w.word_set("lap laps and or the my in out one ones th") | frozenset(w.PICKS) | w.PICK_SKIP


def left_out_runs(toks: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of lap words after a leaving-out phrase ("excluding laps 1 and 9", "without
    the in and out laps", "not counting my slowest lap"): the laps there are left out of the figure."""
    out: list[tuple[int, int]] = []
    if not w.LEAVE_WORDS & set(toks):
        return out
    j = 0
    for i in range(1, len(toks)):
        if i < j or not _LEAVE_OUT.search(" " + " ".join(toks[:i]) + " "):
            continue
        j = i
        while j < len(toks) and (toks[j] in _LEFT_RUN or n.number(toks, j) is not None):
            j += 1
        out.append((i, j))
    return out


# better or worse between sessions, no session named: "from session to session", "by the end of the event",
# "before this session", "since my first time here"; a time taken off the best ("did I drop several seconds
# off my best time?"); a lap time come down from one figure to another ("did my lap time drop from 1:30 to
# 1:27?": each figure is the words "lap time")
_ACROSS = re.compile(
    r" session to session | (?:one|each) session to the next | between (?:the |my )?sessions "
    r"| since (?:my |the )?(?:first|last|previous) (?:time|visit|session|outing) "
    r"| (?:today|this session|this time) than (?:before|previously|last time) | this time (?:round|around) "
    r"| by the end of the (?:event|weekend|day|meeting|trip) | before this (?:session|one|run|outing|stint) "
    r"| did i (?:drop|shave|knock|take|cut|chop|trim|lop) (?:\w+ ){0,4}off (?:of )?(?:my |the )?(?:\w+ ){0,2}"
    r"(?:time|times|best|personal best|pb) "
    r"| (?:did i (?:take|drop|knock|shave|find|chop)|took|dropped|knocked|shaved|found|chopped) another (?:\w+ ){0,2}off "
    r"| (?:lap )?times? (?:\w+ ){0,2}(?:drop|dropped|come down|came down|fall|fell|go down|went down|improve"
    r"|improved|go|went) from (?:a |the )?(?:lap time )?(?:to|down to) "
)


def across_sessions(joined: str) -> re.Match[str] | None:
    """Where the words ask about better or worse between sessions, no session named (``_ACROSS``)."""
    return _ACROSS.search(joined)

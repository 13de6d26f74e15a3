"""Another session named by when or which: "my session yesterday", "last Saturday", "on the 14th", "14
March", "this morning", "the first one today", "two sessions ago", "the session before this one", "my best
session here", "last time at Sonoma", "my session in the wet". Read from a question's words (after
``words.tokens``) into a description that ``LapRef.session`` carries (``when:…``); ``resolve.which_session``
resolves it against the driver's sessions' dates and order. Pure."""

from __future__ import annotations

import re

from services.paddock.questions import numerals as n

PREFIX = "when:"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
PARTS = {"morning": (0, 12), "afternoon": (12, 17), "evening": (17, 24)}  # hours of the day

_DAY = r"(?P<day>\d{1,2})(?: th)?"
_MONTH = r"(?P<month>jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september|oct|october|nov|november|dec|december)"
_COUNT = r"(?P<count>\d|" + "|".join(n.ONES[1:10]) + ")"
_RUN = r"(?:sessions?|runs?|outings?|stints?|track days?|times? out|times?)"
_NOT_A_DAY = r"(?! (?:lap|laps|corner|turn|sector|gear|fastest|best|slowest|quickest|place|time)\b)"

_SPAN_DAYS = {"week": 7, "month": 30, "year": 365}
# (description, pattern) in the order tried: the first found names the session
_SAID: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "wet",
        re.compile(
            # a session said to be wet, never the wet itself ("should I change my line in the wet?")
            r" (?:sessions?|runs?|outings?|stints?|one|day) (?:in|on) the (?:wet|rain|damp) "
            r"| (?:wet|rainy|damp) (?:session|run|day|outing|track) "
            r"| when it (?:rained|was raining|was wet|was damp) "
        ),
    ),
    ("day=-2", re.compile(r" (?:the )?day before yesterday ")),
    ("day=-1", re.compile(r" yesterdays? ")),
    (
        "nth",
        re.compile(
            r" (?:my |the )?(?P<nth>first|second|third|1 th|2 th|3 th) (?:one|session|run|outing|stint) "
            r"(?:of (?:the day|today)|today|this morning) "
        ),
    ),
    (
        "part",
        re.compile(
            r" (?:this|from the|in the|during the) (?P<part>morning|afternoon|evening)s? (?!session)"
            r"| (?P<part2>morning|afternoon|evening)s? (?:session|run|outing|stint) "
        ),
    ),
    ("day=0", re.compile(r" earlier (?:on )?today | (?:before|prior to) this one today ")),
    ("weekday", re.compile(r" (?:last |on |this past |past )?@?(?P<weekday>" + "|".join(WEEKDAYS) + r")s? ")),
    ("date", re.compile(rf" (?:on )?(?:the )?{_DAY} (?:of )?{_MONTH} ")),
    ("date", re.compile(rf" {_MONTH} (?:the )?{_DAY}{_NOT_A_DAY} ")),
    ("date", re.compile(rf" on the {_DAY.replace('(?: th)?', ' th')}{_NOT_A_DAY} ")),
    ("ago", re.compile(rf" {_COUNT} {_RUN} ago | (?P<last>(?:session|one|run|outing) before last) ")),
    (  # "a month ago", "two weeks ago", "last year": around that many days before this session's day
        "span",
        re.compile(
            rf" (?:{_COUNT}|(?P<a>a couple of|couple of|a few|few|a|an)) (?P<unit>weeks?|months?|years?) ago "
            r"| last (?P<unit2>week|month|year) "
        ),
    ),
    (
        "ago=1",
        re.compile(
            r" (?:session|one|run|outing) (?:right |just )?before (?:this|the current|today)"
            r"(?: one| session| run)? "
        ),
    ),
    ("best", re.compile(r" (?:my |the )?(?:best|fastest|quickest) (?:ever )?(?:session|outing|run) ")),
    ("worst", re.compile(r" (?:my |the )?(?:worst|slowest) (?:ever )?(?:session|outing|run) ")),
    (
        "track",
        re.compile(
            r" (?:last time|last visit|last trip|last session|session|outing|visit|trip) (?:i was )?"
            r"(?:out )?(?:at|to|around) (?P<track>(?!(?:this|the|my|turn|session|sessions|lap|laps|day|"
            r"days|home|work|it|me|him|her|them|around|about|roughly|nearly|almost|under|over|a|an)\b)[a-z][a-z]+) "
        ),
    ),
)


def described(session: str) -> bool:
    """``LapRef.session`` names a session by when or which (not "this", "other" or an id)."""
    return session.startswith(PREFIX)


def describe(joined: str) -> tuple[int, int, str] | None:
    """(first word, the word after, description) of the session the words name by when or which; None when
    they name none. ``joined``: the words with a space either side."""
    for kind, pattern in _SAID:
        m = pattern.search(joined)
        if m is None:
            continue
        got = _value(kind, m.groupdict())
        if got is None:
            continue
        i = joined[: m.start()].count(" ")
        return i, i + len(m.group(0).split()), PREFIX + got
    return None


def _counted(count: str) -> int:
    """ "2" or "two": 2."""
    return int(count) if count.isdigit() else n.NUMBERS[count]


def _value(kind: str, g: dict[str, str | None]) -> str | None:
    if kind == "nth":
        said = str(g["nth"])
        return f"nth={n.ORDINAL[said] if said in n.ORDINAL else int(said.split()[0])}"
    if kind == "part":
        return f"part={g['part'] or g['part2']}"
    if kind == "weekday":
        return f"weekday={WEEKDAYS.index(str(g['weekday']))}"
    if kind == "date":
        month = MONTHS.index(str(g["month"])[:3]) + 1 if g.get("month") else 0
        day = int(str(g["day"]))
        return f"date={month}-{day}" if 1 <= day <= 31 else None
    if kind == "ago":
        if g.get("last"):
            return "ago=2"
        k = _counted(str(g["count"]))
        return f"ago={k}" if k >= 1 else None
    if kind == "span":
        unit = str(g["unit"] or g["unit2"]).rstrip("s")
        a = g.get("a")
        if a:  # "a couple of weeks", "a few months", "a year"
            k = 2 if "couple" in a else 3 if "few" in a else 1
        else:
            k = _counted(str(g["count"])) if g.get("count") else 1  # "last week": one
        return f"span={k * _SPAN_DAYS[unit]}"
    if kind == "track":
        return f"track={g['track']}"
    return kind

"""Numbers as a driver says them: digits, words ("eleven", "twenty one") and ordinals ("3rd", "third";
"first" is a pick of a lap, not a number); a closeness in seconds ("within half a second"); the count or
place said beside a pick of laps ("my last 3 laps", "second best"). Pure."""

from __future__ import annotations

import re


def _list(text: str) -> list[str]:
    return text.split()


ONES = _list(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
)
ORDINALS = _list(
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
)
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
NUMBERS: dict[str, int] = {w: i for i, w in enumerate(ONES)} | TENS
ORDINAL: dict[str, int] = {w: i for i, w in enumerate(ORDINALS)}
NUMBERISH = frozenset(NUMBERS) | frozenset(ORDINAL)


def number(toks: list[str], i: int) -> tuple[int, int] | None:
    """(the number at ``toks[i]``, the index after it): digits or words ("eleven", "twenty one")."""
    if i >= len(toks):
        return None
    t = toks[i]
    if t.isdigit():
        return int(t), i + 1
    if t in NUMBERS:
        v = NUMBERS[t]
        if t in TENS and i + 1 < len(toks) and toks[i + 1] in NUMBERS and 0 < NUMBERS[toks[i + 1]] < 10:
            return v + NUMBERS[toks[i + 1]], i + 2
        return v, i + 1
    return None


def ordinal(toks: list[str], i: int) -> tuple[int, int] | None:
    """(N, index after) for "3 th" / "third" at ``i`` (not "first", which is a pick of a lap)."""
    if i + 1 < len(toks) and toks[i].isdigit() and toks[i + 1] == "th":
        return int(toks[i]), i + 2
    if i < len(toks) and toks[i] in ORDINAL and toks[i] != "first":
        return ORDINAL[toks[i]], i + 1
    return None


def ordinal_before(toks: list[str], i: int) -> tuple[int, int] | None:
    """(N, where it starts) for an ordinal right before ``toks[i]``: "3 th" or "third"."""
    for start in (i - 2, i - 1):
        o = ordinal(toks, start) if start >= 0 else None
        if o is not None and o[1] == i:
            return o[0], start
    return None


_UNITS = {"second": 1.0, "seconds": 1.0, "tenth": 0.1, "tenths": 0.1, "hundredth": 0.01, "hundredths": 0.01}


# a closeness said in decimals, read off the text: the words have lost the decimal point ("0.5s" -> 0, 5s)
_WITHIN_DECIMAL = re.compile(r"\b(?:within|inside)\s+(?:of\s+)?(\d*\.\d+)\s*(?:s|secs?|seconds?)\b", re.I)


def within(toks: list[str], text: str = "") -> float | None:
    """The closeness in seconds after "within" / "inside": "within half a second" 0.5, "within 2 tenths"
    0.2, "within a tenth" 0.1, "inside a second" 1.0, "within 0.5s" (in ``text``) 0.5; None when none is
    said."""
    if (m := _WITHIN_DECIMAL.search(text)) and float(m.group(1)) > 0:
        return float(m.group(1))
    for i, t in enumerate(toks[:-1]):
        if t not in ("within", "inside"):
            continue
        j, half = i + 1, toks[i + 1] == "half"
        j += half
        got = number(toks, j)
        if got is None:
            got = (1, j + (j < len(toks) and toks[j] in ("a", "an")))
        how_many, j = got
        if j < len(toks) and toks[j] in _UNITS and how_many > 0:
            return round(how_many * _UNITS[toks[j]] * (0.5 if half else 1.0), 3)
    return None


def beside_pick(toks: list[str], i: int, j: int) -> tuple[int, int, int, int]:
    """(start, end, count, rank) of the pick at ``toks[i]`` (``j``: the word after it and its skipped
    words): "last 3 laps" / "3 best laps" count 3, "second best" / "next best" rank 2."""
    a, b, count, rank = i, i + 1, 1, 1
    after = number(toks, i + 1)
    before = number(toks, i - 1) if i > 0 else None
    if after is not None and after[1] < len(toks) and toks[after[1]] == "laps":
        b, count = after[1], after[0]  # "my last 3 laps"
    elif before is not None and j < len(toks) and toks[j] == "laps":
        a, count = i - 1, before[0]  # "my 3 best laps"
    elif (o := ordinal_before(toks, i - (i > 0 and toks[i - 1] == "to"))) is not None:
        a, rank = o[1], o[0]  # "my second best lap", "the 3rd fastest", "second to last"
    elif i > 0 and toks[i - 1] == "next":
        a, rank = i - 1, 2  # "the next best lap"
    return a, b, count, rank

"""The answer eval's scorer: is a final answer correct, wrong or evasive, judged against independent truth.

A figure is read the way a driver reads it: ``1:46.984`` and ``106.98 s`` are lap times (seconds), a
seconds figure under 20 s is a gap (``0.91 s``, ``+0.910 s``, ``−0.9 s``: its size; the direction is read
from the words, ``slower``/``faster ... than lap N``), ``km/h`` (``mph`` converted), ``rpm``, ``bar``
(``psi`` converted), ``°C`` (``°F`` converted), ``m``, ``%``. A rounded figure matches when the truth
rounds to it (``1:47`` is right for 106.984): the tolerance is the kind's own or half the last digit
stated, whichever is larger.

Verdicts (``score``):
- **correct**: every required group is met (a figure within tolerance, or a word such as the corner) and
  nothing is wrong; for a restraint case, the absence is named and no unsupported number is stated;
- **wrong**: a figure of a checked kind that matches no true value, a claim that contradicts the truth
  (``lap 5 was faster than lap 2``), a forbidden denial (``no lockups``); for a restraint case, any
  number the truth does not support;
- **evasive**: neither (an empty answer, an answer that says nothing about what was asked).
An evasive answer that states figures without saying what was understood and what can be answered
(``I read this as …``, ``I can only answer …``) is **off**: another question's answer (``was my brake bias
off?`` answered with brake points). The issue counts that as wrong; the eval reports it beside ``wrong``.
A wrong answer whose narrator is the model (anything but ``data``, ``template``, ``none``) is a wrong fact
shown as model text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

UNITS = ("time", "gap", "kmh", "rpm", "bar", "c", "m", "pct")
TOL = {"time": 0.05, "gap": 0.05, "kmh": 1.0, "rpm": 50.0, "bar": 0.1, "c": 1.0, "m": 10.0, "pct": 1.0}
MODEL_FREE = {"data", "template", "none"}  # narrators that are not the model's own words

_MSS = re.compile(r"(?<![\d.:])(\d{1,2}):(\d{2}(?:\.\d+)?)(?![\d:])")
_NUM = r"([+\-−]?\d+(?:,\d{3})*(?:\.\d+)?)"
_UNIT = re.compile(
    _NUM + r"\s*(km/h|kmh|kph|mph|m/s|rpm|bar|psi|°\s*c|°\s*f|degrees? c(?:elsius)?|deg c|%|percent|"
    r"metres|meters|m|seconds?|secs?|s)(?![\w/])",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w.])" + _NUM + r"(?!\.?\d)")
_CLAIM = re.compile(
    r"\blap (\d+)\b(?:[^.;]|\.\d)*?"
    + r"(?<![\d.])(\d+(?:\.\d+)?)\s*s\w*\s+(slower|faster|quicker)\s+than\s+(?:on\s+)?lap\s+(\d+)",
    re.I,
)
_DIRECTION = re.compile(
    r"\blap (\d+)\b(?:[^.;]|\.\d)*?\b(slower|faster|quicker)\s+than\s+(?:on\s+)?lap\s+(\d+)", re.I
)

ABSENCE = {
    "no_lap": r"no lap \d+|no such lap|(?:does not|doesn't|did not|didn't) (?:exist|have)|not (?:a lap|found|"
    r"in th)|isn't (?:a lap|in)|only (?:has|had|\d+|laps)|there (?:is|was) no lap|unknown lap|not a valid lap|"
    r"out of range|no (?:data|telemetry) for lap|has no (?:data|telemetry)|not available",
    "not_recorded": r"not (?:recorded|logged|measured|available|fitted)|no .{0,40}(?:channel|sensor|data)|"
    r"(?:wasn't|was not|weren't|were not|isn't|is not) (?:recorded|logged|measured|available)|unavailable|"
    r"(?:does not|doesn't|did not|didn't) (?:record|log|have|measure)|without (?:a|an|any) .{0,30}(?:channel|sensor)",
    "no_such": r"there (?:is|was|are) no|\bha(?:s|ve|d) no\b|no such|\bno valid|not a valid|\b(?:an? )?(?:out|in) lap\b|"
    r"only (?:has|had|\d+)|(?:does not|doesn't) have|not (?:recorded|found)",
    "decline": r"can(?:'|no)?t (?:help|answer)|cannot (?:help|answer)|only (?:help|answer|talk)|not (?:able|"
    r"something i)|outside|unrelated|(?:about|with) (?:your )?(?:driving|sessions?|laps?|telemetry|data)|"
    r"i'm a race engineer|i am a race engineer|not my (?:area|job)|no data (?:on|about)",
}


@dataclass(frozen=True)
class Fig:
    unit: str
    value: float
    res: float = 0.0  # half the last digit stated: the rounding the driver sees


def _num(s: str) -> tuple[float, float]:
    s = s.replace("−", "-").replace(",", "")
    nd = len(s.split(".")[1]) if "." in s else 0
    return float(s), 0.5 * 10**-nd


def figures(text: str) -> list[Fig]:
    """Every figure with a unit in ``text`` (see the module docstring for the reading rules)."""
    out: list[Fig] = []
    low = text.lower()
    for m in _MSS.finditer(low):
        v, res = _num(m.group(2))
        out.append(Fig("time", int(m.group(1)) * 60 + v, res))
    low = _MSS.sub(" ", low)
    for m in _UNIT.finditer(low):
        v, res = _num(m.group(1))
        u = re.sub(r"\s+", "", m.group(2))
        if u in ("km/h", "kmh", "kph"):
            out.append(Fig("kmh", v, res))
        elif u == "m/s":
            out.append(Fig("kmh", v * 3.6, res * 3.6))
        elif u == "mph":
            out.append(Fig("kmh", v * 1.609344, res * 1.609344))
        elif u == "rpm":
            out.append(Fig("rpm", v, res))
        elif u == "bar":
            out.append(Fig("bar", v, res))
        elif u == "psi":
            out.append(Fig("bar", v / 14.5038, res / 14.5038))
        elif u in ("%", "percent"):
            out.append(Fig("pct", v, res))
        elif u in ("m", "metres", "meters"):
            out.append(Fig("m", abs(v), res))
        elif u.startswith("°f"):
            out.append(Fig("c", (v - 32) / 1.8, res / 1.8))
        elif u.startswith(("°c", "degree", "deg")):
            out.append(Fig("c", v, res))
        else:  # seconds
            out.append(Fig("time" if abs(v) >= 20 else "gap", abs(v), res))
    return out


_REFS = re.compile(
    r"\b(?:laps?|turns?|corners?|sectors?|top|session)\s+\d+(?:(?:,\s*|\s+and\s+|\s+to\s+)\d+)*\b"
)


def bare_numbers(text: str) -> list[float]:
    """The numbers with no unit, lap or corner reference: counts, or an answer to an unrelated question."""
    low = _REFS.sub(" ", _UNIT.sub(" ", _MSS.sub(" ", text.lower())))
    return [abs(_num(m.group(1))[0]) for m in _NUMBER.finditer(low)]


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends and line breaks (a decimal point is not one)."""
    return [x for x in re.split(r"(?<!\d)[.!?\n]+|[.!?\n]+(?!\d)", text) if x.strip()]


@dataclass
class Expect:
    """What a correct answer to one question holds, and what would make it wrong."""

    need: list[list[Fig]] = field(default_factory=list)  # every group: one of its figures must appear
    need_range: dict[str, tuple[float, float]] = field(default_factory=dict)  # a figure in each interval
    words: list[str] = field(default_factory=list)  # every regex must match (e.g. the corner)
    check: dict[str, list[float]] = field(default_factory=dict)  # unit -> all true values of that kind
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # unit -> a true interval
    slower: tuple[int, int] | None = None  # (slower lap, faster lap): a claim the other way is wrong
    forbid: str | None = None  # a denial of the truth (``no lockups``)
    context: str | None = None  # ``need`` and ``words`` count only in a sentence matching this
    restraint: str | None = None  # no_lap | not_recorded | decline
    topic: str | None = None  # restraint: what does not exist; any number in a sentence about it is wrong
    allowed_numbers: list[float] = field(default_factory=list)  # restraint: numbers that may appear
    tol: dict[str, float] = field(default_factory=dict)


@dataclass
class Verdict:
    kind: str  # correct | wrong | evasive
    why: str
    wrong_as_model_text: bool = False
    off: bool = False  # evasive, with figures and no word of what was understood: another question's answer


# what an answer that cannot answer says instead of figures: what it understood, what it can answer
UNDERSTOOD = re.compile(
    r"\bi read (?:this|that|it) as\b|\bi (?:can|could) only\b|\bi can answer\b|\bi understood\b|"
    r"\b(?:cannot|can't|can not) answer\b",
    re.I,
)


def _close(f: Fig, v: float, tol: dict[str, float]) -> bool:
    return abs(f.value - v) <= max(tol.get(f.unit, TOL[f.unit]), f.res) + 1e-9


def _in_range(f: Fig, lo_hi: tuple[float, float], tol: dict[str, float]) -> bool:
    t = max(tol.get(f.unit, TOL[f.unit]), f.res) + 1e-9
    return lo_hi[0] - t <= f.value <= lo_hi[1] + t


# "below 1.00 bar under load (Pitwall's default limit)", "never above 105.0 °c (the car's limit)"
_LIMIT = re.compile(r"\b(?:below|above|over|under) [\d.,]+ ?[^\s(]+(?: under load)? \([^)]*\blimit\)")
_IDS = re.compile(r"\b\d{8}-\d{6}(?:-[0-9a-f]*)?")  # a session id is a name, not a figure


def _judge(e: Expect, text: str) -> tuple[str, str]:
    low = " ".join(_IDS.sub("this session", text.lower()).split())
    low = _LIMIT.sub("past the limit", low)  # a limit is a rule of the car, not a reading of the file
    if not low:
        return "evasive", "no answer"
    tol = {**TOL, **e.tol}
    figs = figures(low)
    if e.restraint:
        return _restraint(e, low, figs, tol)
    for f in figs:
        if f.unit in e.check or f.unit in e.ranges:
            true = e.check.get(f.unit, [])
            fits = any(_close(f, v, tol) for v in true) or (
                f.unit in e.ranges and _in_range(f, e.ranges[f.unit], tol)
            )
            if not fits:
                return "wrong", f"{f.unit} {f.value:g} matches no true value"
    if e.slower is not None:
        slow, fast = e.slower
        for m in _DIRECTION.finditer(low):
            a, word, b = int(m.group(1)), m.group(2), int(m.group(3))
            if {a, b} == {slow, fast} and (a == slow) != (word == "slower"):
                return "wrong", f"says lap {a} {word} than lap {b}"
        gaps = [n for g in e.need for n in g if n.unit == "gap"]
        for m in _CLAIM.finditer(low):
            if {int(m.group(1)), int(m.group(4))} == {slow, fast} and gaps:
                f = Fig("gap", float(m.group(2)), _num(m.group(2))[1])
                if not any(_close(f, g.value, tol) for g in gaps):
                    return "wrong", f"says the gap is {m.group(2)} s"
    if e.forbid and re.search(e.forbid, low):
        return "wrong", "denies what the data shows"
    if e.context:  # the figures and words must be said about the thing asked
        low = " | ".join(x for x in sentences(low) if re.search(e.context, x))
        figs = figures(low)
    for group in e.need:
        if not any(f.unit == n.unit and _close(f, n.value, tol) for f in figs for n in group):
            return "evasive", f"missing one of {[(n.unit, round(n.value, 3)) for n in group]}"
    for unit, lo_hi in e.need_range.items():
        if not any(f.unit == unit and _in_range(f, lo_hi, tol) for f in figs):
            return "evasive", f"no {unit} in {lo_hi}"
    for w in e.words:
        if not re.search(w, low):
            return "evasive", f"does not name {w}"
    return "correct", "has the expected figures"


def _restraint(e: Expect, low: str, figs: list[Fig], tol: dict[str, float]) -> tuple[str, str]:
    """Nothing may be said about what does not exist; checkable figures must still be true."""
    ok = e.allowed_numbers
    for f in figs:
        if f.value in ok:  # a number of the question's own, said back
            continue
        if f.unit in e.check and not any(_close(f, v, tol) for v in e.check[f.unit]):
            return "wrong", f"{f.unit} {f.value:g} matches no true value"
    if e.topic:
        for x in sentences(low):
            if re.search(e.topic, x):
                true = [f for f in figures(x) if any(_close(f, v, tol) for v in e.check.get(f.unit, []))]
                bad = [f.value for f in figures(x) if f not in true] + [
                    n for n in bare_numbers(x) if n not in ok
                ]
                if bad:
                    return "wrong", f"figures for what does not exist: {bad[:4]}"
    if e.restraint == "decline":
        bad = [n for n in bare_numbers(low) if n not in ok]
        if bad:
            return "wrong", f"numbers that answer an unrelated question: {bad[:4]}"
    if e.forbid and re.search(e.forbid, low):
        return "wrong", "a claim about what was not recorded"
    if re.search(ABSENCE[e.restraint or ""], low):
        return "correct", f"names the absence ({e.restraint})"
    return "evasive", f"no {e.restraint} statement"


def is_off(text: str) -> bool:
    """An answer with figures of its own and no word of what was understood (scored on evasive answers)."""
    low = _IDS.sub("this session", text.lower())
    return bool(figures(low)) and not UNDERSTOOD.search(low)


def score(e: Expect, text: str, narrator: str | None) -> Verdict:
    kind, why = _judge(e, text or "")
    model = kind == "wrong" and (narrator or "none") not in MODEL_FREE
    return Verdict(kind, why, model, kind == "evasive" and is_off(text or ""))

"""The one vocabulary a driver's question is read with: spellings and shorthand, numbers, the measures
(their words in ``questions.measures``), the words that pick a lap, aggregate, compare, and cue an intent; and the typo fixer (difflib over this vocabulary, word
by word, cached). Pure data and pure functions: ``parse`` reads questions with it."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from services.paddock.measures import MEASURE_WORDS
from services.paddock.questions import cues as c
from services.paddock.questions import numerals as n


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _pairs(text: str) -> dict[str, str]:
    """``"a=b, c=d e"`` -> ``{"a": "b", "c": "d e"}``."""
    return {k.strip(): v.strip() for k, v in (p.split("=") for p in text.split(",") if p.strip())}


# a misspelling, contraction or shorthand -> its words (whole words only; before the typo fixer)
SPELLING: dict[str, str] = _pairs(
    """hw=how, wat=what, wht=what, whats=what is, wats=what is, wheres=where is, hows=how is, whys=why is,
    u=you, r=are, ur=your, im=i am, ive=i have, didnt=did not, wasnt=was not, isnt=is not, pls=please,
    plz=please, laptime=lap time, laptimes=lap time, avg=average, ave=average, breaking=braking,
    brakeing=braking, break=brake, breaks=brakes, tire=tyre, tires=tyre, tyres=tyre, temps=temp,
    temperatures=temperature, pressures=pressure, rpms=rpm, kph=kmh, pb=personal best, vs=versus,
    vrs=versus, compared=compare, comparing=compare, comparison=compare, secs=seconds, diff=difference,
    sectors=sector, splits=sector, split=sector, corners=corner, turns=turn, quicker=faster,
    quickest=fastest, worst=slowest, final=last, latest=last, okay=ok, alright=ok, understeering=understeer,
    understeers=understeer, oversteering=oversteer, oversteers=oversteer, consistant=consistent,
    consistancy=consistency, consistensy=consistency, inconsistent=consistent, max=maximum, min=minimum,
    alltime=all time, straightaway=straight, straightaways=straights, yesterdays=yesterday, trackday=track day,
    trackdays=track days, outlap=out lap, outlaps=out laps, inlap=in lap, inlaps=in laps, sec=sector,
    thru=through, motor=engine, 10ths=tenths, 100ths=hundredths,
    h2o=water, oilp=oil pressure, oilt=oil temp, eop=oil pressure, eot=oil temp, ect=coolant temp,
    clt=coolant temp, egts=egt, overrev=over rev, overrevs=over rev, overrevved=over rev, overreved=over rev,
    overrevving=over rev, overreving=over rev, redlined=redline, redlining=redline"""
)


# a lap named by what it was ("my fastest lap"); "first" is the first full lap, not lap 1
PICKS: dict[str, str] = _pairs(
    "fastest=fastest, best=fastest, fast=fastest, quick=fastest, top=fastest, faster=fastest, slowest=slowest, slower=slowest, last=last, recent=last, current=last, "
    "first=first, opening=first, "
    "previous=previous"
)
# after a pick, the words that make it a lap ("my best lap", "my last one", "best vs worst")
PICK_LAP = word_set("lap laps one time run versus and or to than with against compare all today")
PICK_NOT = word_set("corner turn sector bits parts sections segments pieces speed")  # "my best corners"
PICK_SKIP = word_set("full timed valid flying clean racing proper hot dry legit legal")
NOT_A_LAP = word_set("theoretical ultimate ideal perfect achievable optimal possible potential virtual")
LAP_SEP = word_set("and or versus to through with against than compare")
# words that set the figure after them aside: "not my average", "ignore the mean", "don't care about"
NEGATING = word_set("not dont ignore ignoring forget except excluding")
# the words that leave laps out of a figure ("my average excluding lap 1", "throwing out the in lap")
LEAVE_WORDS = word_set(
    "excluding exclude except without minus ignoring ignore discounting counting including leaving leave apart "
    "other taking take throwing throw"
)
# a lap named beside another: "the lap before my best" (-1), "the one after lap 5" (+1)
BESIDE: dict[str, int] = {"before": -1, "preceding": -1, "prior": -1, "after": 1, "following": 1}
BESIDE_SKIP = word_set("right just immediately straight directly")  # "the lap right after my pb"
AGGREGATIONS: dict[str, str] = _pairs(
    """maximum=max, highest=max, peak=max, peaked=max, topped out=max, top=max, most=max, how hot=max, how high=max, how hard=max,
    minimum=min, lowest=min, least=min, hottest=max, coldest=min, how low=min, how cold=min, average=avg, mean=avg, typical=avg,
    how many=count, number of=count, count=count, each lap=each_lap, every lap=each_lap, per lap=each_lap,
    by lap=each_lap, lap by lap=each_lap, all my laps=each_lap, all laps=each_lap, lap to lap=each_lap,
    averaging=avg, averaged=avg, range=range, min and max=range, max and min=range, highest and lowest=range, lowest and highest=range,
    session went on=each_lap, session progressed=each_lap, change over=each_lap, changed over=each_lap"""
)
# how a comparison joins its two sides
COMPARE = word_set("versus against compare than difference gap delta between off behind differently")


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """Every word the reader knows: the typo fixer corrects towards these and leaves them alone."""
    words: set[str] = set(c.DRIVING | c.UNRELATED | c.COMMON | n.NUMBERISH | COMPARE | c.REFERS)
    words |= NEGATING | LEAVE_WORDS  # "ecxluding" is "excluding"
    for table in (MEASURE_WORDS, AGGREGATIONS, SPELLING, PICKS):
        for phrase in table:
            words.update(phrase.split())
    for phrases in c.CUES.values():
        for phrase in phrases:
            words.update(phrase.split())
    for value in SPELLING.values():
        words.update(value.split())
    return frozenset(words)


@lru_cache(maxsize=1)
def _targets() -> dict[int, tuple[str, ...]]:
    """The words a typo may be of, by length: the driving vocabulary's own (a typo of a plain English word
    is left as it is)."""
    plain = c.COMMON | c.UNRELATED | n.NUMBERISH
    out: dict[int, list[str]] = {}
    for w in sorted(vocabulary() - plain):
        if len(w) >= 4 and w.isalpha():
            out.setdefault(len(w), []).append(w)
    return {n: tuple(ws) for n, ws in out.items()}


# a thumb's slip on a phone keyboard: the keys beside each key (QWERTY rows)
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_BESIDE_KEY = {
    k: "".join(r[j] for j in (i - 1, i + 1) if 0 <= j < len(r)) for r in _ROWS for i, k in enumerate(r)
}
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _slips(word: str) -> tuple[set[str], ...]:
    """The words ``word`` is one thumb's slip away from, likeliest slip first: two letters swapped, a
    letter doubled; in a longer word (six letters or more, where few real words are one letter apart), a
    letter dropped, a key beside the right one."""
    out = (
        {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)} - {word},
        {word[:i] + word[i + 1 :] for i in range(len(word) - 1) if word[i] == word[i + 1]},
    )
    if len(word) < 6:
        return out
    return (
        *out,
        {word[:i] + ch + word[i:] for i in range(len(word) + 1) for ch in _LETTERS},
        {word[:i] + k + word[i + 1 :] for i, ch in enumerate(word) for k in _BESIDE_KEY.get(ch, "")},
    )


@lru_cache(maxsize=4096)
def fix(word: str) -> str:
    """A word as the vocabulary spells it: ``throtle`` -> ``throttle``, ``brakng`` -> ``braking``,
    ``gaer`` -> ``gear``, ``whaat`` -> ``what``; a word the vocabulary knows, a short word or one close to
    nothing is returned as it is. One slip (:func:`_slips`, the likeliest first) from one word the
    vocabulary knows, a driving word before a plain one, is that word; else the nearest driving word by
    difflib."""
    if len(word) < 4 or not word.isalpha() or word in vocabulary():
        return word
    known: set[str] = set()
    for slip in _slips(word):
        found = slip & vocabulary()
        driving = {w for w in found if w in _targets().get(len(w), ())}
        for one in (driving, found):
            if len(one) == 1:
                return next(iter(one))
        known |= found
    if known:
        return word
    near = [w for n in range(len(word) - 2, len(word) + 3) for w in _targets().get(n, ())]
    got = difflib.get_close_matches(word, near, 1, 0.84)
    return got[0] if got else word


_SESSION_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{2,}\b")
# a lap time or a decimal: not a lap number; "a 0:59 flat" is that time exactly, no throttle
_CLOCK = re.compile(r"(?:\b\d+:\d+(?:\.\d+)?\b|\b\d+\.\d+\b)(?:\s+flat\b)?")
# a lap time as written ("averaging 1:49", "a 1:35.0"): minutes under ten, not a time of day ("2:30 pm")
LAP_CLOCK = r"(?<![\d:])(\d):([0-5]\d(?:\.\d+)?)(?![\d:])(?!\s*(?:am|pm|a\.m|p\.m)\b)"  # (minutes, seconds)
_LAP_CLOCK = re.compile(LAP_CLOCK + r"(?:\s+flat\b)?")
MAX_CHARS, MAX_WORDS = 1000, 64  # a question is read up to here: a pasted essay costs no more than this
_POSSESSIVE = re.compile(r"\b([a-z]+)'s\b")  # "bo's best lap": a driver's; "what's", "session's": nothing
_RANGE = re.compile(r"\b(\d{1,3})\s*-\s*(\d{1,3})\b(?!\s*(?:s|secs?|seconds?)\b)")  # "58-59 seconds": no laps
# a speed as a figure ("hitting 68mph", "309 km/h", "120 kph"): the question is about speed, the figure no lap
# a short word run into the number after it: "pushing it to100km/h", "at5000 rpm"
_GLUED = re.compile(r"\b(to|at|of|over|under|about|around|near|past|by|hit)(?=\d)")
_SPEED_VALUE = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:mph|kph|kmh|kmph|km/h|km / h|kms|miles an hour|miles per hour)\b"
)
# a break from driving, not a brake: "after my eight week break", "a long winter break"
_PAUSE = re.compile(
    r"\b(week|weeks|month|months|year|years|winter|summer|season|long|short|little|lunch|coffee)[- ]break\b"
)
# a lap time broken, not a brake: "did I break the 59 second barrier?", "break into the 1:35s", "break 59"
_BREAK_TIME = re.compile(
    r"\bbr(?:ea|o)ke?n?(?=\s+(?:the\s+|a\s+|into\s+(?:the\s+)?)?(?:\d|sub\b|\w+\s+barrier))"
)
# a time set, not a wheel locked: "did I lock in my best time on my final run?"
_LOCK_IN = re.compile(
    r"\block(?:ed|ing|s)? in (?=(?:my |a |an |the )?(?:new |\w+ )?(?:best|time|lap|pb|personal))"
)
# revs as a figure ("saw 7k - 7.1k", "6.5k rpm", "shifting at 7,000rpm"): the question is about engine speed
_REVS_VALUE = re.compile(r"\b\d{1,2}(?:\.\d{1,2})?\s*k\b(?:\s*rpm\b)?|\b\d{1,2},?\d{3}\s*rpm\b")
# a number of seconds ("find 6 sec", "2 secs"): not a sector ("sec 2" is one)
_SECONDS_SAID = re.compile(
    r"(?<![.\d])(\d+(?:\.\d+)?)\s*(?:secs?|second)\b"
)  # "1.1 sec": seconds, never a sector
_TOKEN = re.compile(r"\d{8}-\d{6}-[0-9a-f]+|@[a-z]+|[a-z0-9]+")
# shorthand with a number: T11, T3A, C4, L5, S2, 3rd
_SHORT = re.compile(r"^(?:(t|c|l|s|lap|turn|corner|sector)(\d{1,3}[a-z]?)|(\d{1,3})(st|nd|rd|th))$")
_PLACE = word_set("near at before after into through from away")
_SHORT_WORD = {"t": "turn", "c": "corner", "l": "lap", "s": "sector"}  # "lap7", "turn3": the word itself


def _whose(m: re.Match[str]) -> str:
    """ "bo's" -> ``@bo`` (a name the vocabulary does not know is a driver's); "what's", "session's" -> the
    word alone."""
    word = m.group(1)
    return word if word in vocabulary() or fix(word) != word or len(word) < 2 else f"@{word}"


# "held up by a backmarker": traffic, not the engine holding up
_HELD_BY = re.compile(r"\b(?:held|holding) up (?:by|behind|in traffic)\b")
# "did the temps stay under 100 the whole time?": all along, no time asked
_WHOLE_TIME = re.compile(r"\b(?:the (?:whole|entire) ti+me|all the ti+me)\b")

# "what were my pressures?": the tyres' (a pressure of the engine, brakes or fuel is named)
_PRESSURES = re.compile(r"\b(my|the|our|your|what|were|are) pressures\b")
# time won is time gained: "where was time won or lost?" ("won" alone: a race result, no driving)
_WON = re.compile(r"\b(?:time won|won or lost|won and lost)\b")
# an engine's temperature as a figure ("below 190 degrees", "210°F"): a temperature asked
_TEMP_VALUE = re.compile(r"\b(?:[6-9]\d|[1-2]\d\d)\s*(?:degrees|°)\s*(?:c|f|celsius|fahrenheit)?(?!\w)")
# phrases read as the words they mean, in this order
_SAID_AS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_GLUED, r"\1 "),
    (_LOCK_IN, "set "),
    (_SPEED_VALUE, " speed "),
    (_REVS_VALUE, " revs "),
    (_PAUSE, r"\1 pause"),
    (_BREAK_TIME, "beat"),
    (_HELD_BY, " traffic "),
    (_WHOLE_TIME, " throughout "),
    (_SECONDS_SAID, r"\1 seconds"),
    (_PRESSURES, r"\1 tyre pressures"),
    (_WON, "time gained or lost"),
    (_TEMP_VALUE, " temperature "),
)


def _lap_time(m: re.Match[str]) -> str:
    """A lap time written: the words "lap time", or nothing before the word "lap" ("my 1:48.2 lap")."""
    return " " if re.match(r"\s*laps?\b", m.string[m.end() :]) else " lap time "


def tokens(text: str) -> list[str]:
    """The question's words, once: lower case, apostrophes dropped, spellings and shorthand spelled out
    ("T11" -> ``turn 11``, "3rd" -> ``3 th``, "3-5" -> ``3 through 5``), typos of vocabulary words fixed;
    a session id stays one word, another driver's name is ``@name`` ("bo's lap 4"), numbers stay digits
    (number words are read in context by ``parse``); the
    first ``MAX_WORDS`` words of the first ``MAX_CHARS`` characters."""
    t = _POSSESSIVE.sub(_whose, (text or "")[:MAX_CHARS].lower().replace("’", "'")).replace("'", "")
    t = t.replace("&", " and ")  # "my 2nd & 3rd lap"
    for pattern, said in _SAID_AS:
        t = pattern.sub(said, t)
    if not _SESSION_ID.search(t):  # a lap time is the words "lap time"; another clock or decimal, nothing
        t = _RANGE.sub(r"\1 through \2", _CLOCK.sub(" ", _LAP_CLOCK.sub(_lap_time, t)))
    out: list[str] = []
    for raw in _TOKEN.findall(t)[:MAX_WORDS]:
        if raw.startswith("@"):
            out.append(raw)  # another driver's name, as the question spells it
            continue
        if raw.isdigit() and len(raw) > 4:
            continue  # no lap, corner or sector has a number that long
        m = _SHORT.match(raw)
        if m and m.group(1):
            out += [_SHORT_WORD.get(m.group(1), m.group(1)), m.group(2)]
        elif m:
            out += [m.group(3), "th"]
        else:
            word = SPELLING.get(raw) or fix(raw)
            out += SPELLING.get(word, word).split()
    # "right near the end", "right after turn 2": "right" only stresses the place, it judges nothing
    return [
        t for i, t in enumerate(out) if not (t == "right" and out[i + 1 : i + 2] and out[i + 1] in _PLACE)
    ]

"""The laps a question names, read from its words into ``Slots``: numbers, ranges and ordinals, laps named by
what they were ("my fastest"), the out and in laps, laps left out or set aside, and another session's laps
(``attach``). Pure."""

from __future__ import annotations

import re
from dataclasses import replace

from services.paddock.questions import cues as c
from services.paddock.questions import lap_names, session_words
from services.paddock.questions import numerals as n
from services.paddock.questions import phrases as ph
from services.paddock.questions import words as w
from services.paddock.questions.model import LapRef
from services.paddock.questions.slot_state import Slots, mark, negated

MAX_RANGE = 20

_SESSION_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]+$")

_GLUE = w.word_set("of in on from at during my the that")

# two kinds of session named: "between my practice and the race": another session
_KINDS = r"(?:practice|practise|qualifying|quali|race|test|heat)"

_TWO_KINDS = re.compile(
    rf" ({_KINDS}) (?:compare )?(?:and|versus|to|with|against) (?:the |my )?(?!\1 ){_KINDS} "
)

_OUTING = w.word_set("out here at on with using running driving trying back")

# this session against "my previous one", "the last one": another session
_THIS_VS_ONE = re.compile(
    r" (?:this|todays|today) (?:session|run|outing) (?:\w+ ){0,3}(?:and|or|versus|to|with|against|from) (?:the |my )?"
    r"(?:(?:previous|last|earlier|other|first) (?:one|time)|one (?:before|prior)) "
    r"| (?:this|todays|today) (?:session|run|outing) (?:\w+ ){0,3}than (?:the |my )?(?:previous|last|earlier|other)"
    r" (?:one|time|session|run|outing) "
)

# laps named as no part of the question: "not interested in lap 3 vs lap 5", "not asking about lap 4" (a lap
# left out of a figure, "my average excluding lap 1", is another matter: not read here)
_SET_ASIDE = re.compile(
    r" (?:not (?:interested in|asking about|asking for|talking about|about|bothered about|fussed about|after)"
    r"|(?:do not|dont|did not|didnt) (?:care|ask) about) $"
)

_FIRST_OF = w.word_set("my the our a was is vs versus against than with and or to from")  # "... my first"

_TIME_UNITS = w.word_set(
    "second seconds tenth tenths hundredths minute minutes mph kmh km rpm bar psi degrees"
)
_LAP_RUN = w.word_set("lap laps my the and or versus to against with compare than")


def _laps(s: Slots) -> list[tuple[int, LapRef]]:
    """Lap numbers: "lap 5", "laps 4 and 6", "laps 3 to 5", "lap 5 vs 3", "3rd lap", "lap three"."""
    out: list[tuple[int, LapRef]] = []
    toks = s.toks
    for i, t in enumerate(toks):
        if s.used[i]:
            continue
        run = _ordinal_run(toks, i)
        if run is not None:  # "3rd lap", "my 2nd and 3rd laps", "the 4th, 5th or 6th lap"
            ordinals, lap_at = run
            out += [(k, LapRef(number=num)) for k, num in ordinals]
            mark(s, i, lap_at + 1)
            continue
        if t not in ("lap", "laps"):
            continue
        j = i + 1 + (i + 1 < len(toks) and toks[i + 1] in ("number", "no"))
        got = n.number(toks, j)
        if got is None or s.used[j]:  # "best lap two sessions ago": the number is the session's
            continue
        out.append((i, LapRef(number=got[0])))
        mark(s, i, got[1])
        j = got[1]
        while j < len(toks) and (toks[j] in w.LAP_SEP or (t == "laps" and toks[j].isdigit())):
            k = j if toks[j].isdigit() else j + 1  # "lap 5 vs lap 3": the second "lap" is read on its own
            nxt = n.number(toks, k)
            if nxt is None:
                break
            first = out[-1][1].number or 0
            # "laps 2 to 4", "lap 2-4" (a hyphen is a range: "through"); "lap 2 to lap 4" is two laps
            ranged = (toks[j] == "to" and t == "laps") or (toks[j] == "through" and k == j + 1)
            if ranged and 0 < nxt[0] - first <= MAX_RANGE:
                out += [(j, LapRef(number=n)) for n in range(first + 1, nxt[0] + 1)]
            else:
                out.append((k, LapRef(number=nxt[0])))
            mark(s, j, nxt[1])
            j = nxt[1]
    if out:  # "was lap 5 faster than 9?", "lap five faster than nine?": a bare number after a comparing word
        for i in range(1, len(toks)):
            got = n.number(toks, i) if toks[i] != "one" else None  # "than the one before": no lap 1
            if got is None or s.used[i] or toks[i - 1] not in w.LAP_SEP | w.COMPARE:
                continue
            if got[1] < len(toks) and toks[got[1]] in _TIME_UNITS:  # "faster than 2 seconds"
                continue
            if _beside_gear(s, i):
                continue
            out.append((i, LapRef(number=got[0])))
            mark(s, i, got[1])
        # "was my third lap faster than my fifth?": an ordinal naming nothing after a comparing word
        for i in range(2, len(toks)):
            o = n.ordinal(toks, i)
            sep = toks[i - 1] in w.LAP_SEP | w.COMPARE or (
                toks[i - 1] in ("my", "the") and toks[i - 2] in w.LAP_SEP | w.COMPARE
            )
            if o is None or s.used[i] or not sep or (o[1] < len(toks) and toks[o[1]] in c.ORDINAL_NOUNS):
                continue
            if _beside_gear(s, i):
                continue
            out.append((i, LapRef(number=o[0])))
            mark(s, i, o[1])
    return out


def _beside_gear(s: Slots, i: int) -> bool:
    """ "in 2nd and 3rd on lap 4": the ordinal at ``i`` follows "and"/"or" after an ordinal no lap has read
    (a gear), so it is a gear too."""
    b = n.ordinal_before(s.toks, i - 1) if i > 0 and s.toks[i - 1] in ("and", "or") else None
    return b is not None and not s.used[b[1]] and n.ordinal(s.toks, i) is not None


def _ordinal_run(toks: list[str], i: int) -> tuple[list[tuple[int, int]], int] | None:
    """Ordinals from ``i`` joined by "and", "or", commas, ending in "lap"/"laps": ([(place, number) ...],
    the place of "lap"); None when the run does not end in a lap."""
    got: list[tuple[int, int]] = []
    j = i
    while (o := n.ordinal(toks, j)) is not None:
        got.append((j, o[0]))
        j = o[1]
        if j < len(toks) and toks[j] in ("lap", "laps"):
            return got, j
        j += j + 1 < len(toks) and toks[j] in ("and", "or")  # "2nd and 3rd", "4th 5th or 6th" (a comma)
    return None


def set_aside(toks: list[str], at: int) -> bool:
    """The lap named at ``at`` is set aside: a set-aside phrase stands right before it, or before the run of
    laps it is part of ("not interested in lap 3 vs lap 5")."""
    i = at
    while i > 0 and (toks[i - 1] in _LAP_RUN or toks[i - 1].isdigit()):
        i -= 1
    return bool(_SET_ASIDE.search(" " + " ".join(toks[:i]) + " "))


def left_out(s: Slots) -> list[tuple[int, LapRef]]:
    """The laps a leaving-out phrase names, at their places (``lap_names.left_out_runs``)."""
    out: list[tuple[int, LapRef]] = []
    for i, j in lap_names.left_out_runs(s.toks):
        tail = Slots(s.toks[i:j], [False] * (j - i), " " + " ".join(s.toks[i:j]) + " ")
        out += [(i + k, r) for k, r in _laps(tail) + _picks(tail) + _entry(tail)]
        mark(s, i, j)
    return out


def _entry(s: Slots) -> list[tuple[int, LapRef]]:
    """The out and in laps named ("my out lap"), their words read."""
    got = lap_names.entry_laps(s.toks, s.used)
    for i, _, j in got:
        mark(s, i, j)
    return [(i, ref) for i, ref, _ in got]


_GEAR_WORDS = w.word_set("first second third fourth fifth sixth")
_INTO_GEAR = w.word_set("in holding hold held using use used stay stayed stick stuck")


def gear_said(s: Slots) -> bool:
    """ "in 2nd", "3rd or 4th", "is 4th too tall?", "was I in second through T7?", "holding third": an
    ordinal no lap, sector or corner has read, naming nothing after it, is a gear (a word ordinal only
    after "in", "holding", ...)."""
    toks = s.toks
    for i in range(len(toks)):
        if s.used[i]:
            continue
        nxt = toks[i + 2 : i + 3] if toks[i + 1 : i + 2] == ["th"] else toks[i + 1 : i + 2]
        if nxt and nxt[0] in c.ORDINAL_NOUNS:
            continue
        if toks[i].isdigit() and toks[i + 1 : i + 2] == ["th"] and 1 <= int(toks[i]) <= c.TOP_GEAR:
            return True
        if toks[i] in _GEAR_WORDS and i > 0 and toks[i - 1] in _INTO_GEAR:
            return True
    return False


def _picks(s: Slots) -> list[tuple[int, LapRef]]:
    """Laps named by what they were: "my fastest lap", "best vs worst", "the last one", "and the slowest?"."""
    out: list[tuple[int, LapRef]] = []
    toks = s.toks
    for i, t in enumerate(toks):
        if t not in w.PICKS or s.used[i] or any(x in w.NOT_A_LAP for x in toks[max(0, i - 2) : i]):
            continue
        if negated(toks, i):
            continue  # "average lap (not counting the first lap)": no lap named
        if t == "first" and ph.occasion(toks, i):
            continue  # "first time on a big track", "my first time here": the occasion, no lap
        if w.PICKS[t] == "previous" and (" lap" not in s.joined or toks[i - 1 : i] == ["best"]):
            continue  # "this session against my previous one", "my best previous lap time here": no lap
        if toks[max(0, i - 1)] == "i" or toks[max(0, i - 2) : i] == ["i", "am"]:
            continue  # "where am I slowest?", "where was I fastest": the driver, not a lap
        if (
            t == "first"
            and toks[i + 1 : i + 2] == ["time"]
            and toks[i + 2 : i + 3]
            and toks[i + 2] in _OUTING
        ):
            continue  # "first time out with the new radiator": an outing, not a lap
        j = i + 1
        while j < len(toks) and toks[j] in w.PICK_SKIP:
            j += 1
        if t == "first" and j >= len(toks) and i > 0 and toks[i - 1] not in _FIRST_OF:
            continue  # "what should I fix first?", "worst first": an order, no lap
        if t == "quick" and toks[j : j + 1] != ["lap"]:
            continue  # "my quick lap" is the best; "a quick one", "quick question" no lap
        if t in ("slower", "faster") and (toks[j : j + 1] != ["lap"] or toks[i - 1 : i] != ["my"]):
            continue  # "my slower lap" is the slowest; "the faster lap" of two compared, "lap 5 slower than 3"
        before = [x for x in toks[max(0, i - 3) : i] if x not in ("my", "the", "our")]
        after_cmp = bool(before) and before[-1] in w.COMPARE | w.LAP_SEP | w.BESIDE.keys() | {"from"}
        after_cmp |= before[-2:] in (["up", "on"], ["down", "on"])  # "how far down on my best was lap 8?"
        # "was my fastest a 62.544?", "my best a 1:46.5?": the figure said after it (no word, or "lap time")
        said = toks[j : j + 1] in (["a"], ["an"]) and toks[j + 1 :] in ([], ["lap", "time"])
        if not after_cmp and any(x in ("sector", "corner", "turn") for x in toks[max(0, i - 3) : i]):
            continue  # "which sector was my slowest": a sector, not a lap
        personal = t == "best" and i > 0 and toks[i - 1] == "personal"  # "PB": always a lap
        counted = n.number(toks, j) is not None and j + 1 < len(toks) and toks[j + 1] == "laps"
        if (
            j < len(toks)
            and not personal
            and not counted
            and not said
            and (toks[j] in w.PICK_NOT or (toks[j] not in w.PICK_LAP and not after_cmp))
        ):
            continue
        a, b, count, rank = n.beside_pick(toks, i, j)
        count = max(1, min(count, MAX_RANGE))
        out.append((a, LapRef(pick=w.PICKS[t], count=count, rank=rank)))  # type: ignore[arg-type]
        mark(s, a, b)
    return out


def _glue(t: str) -> bool:
    return t in _GLUE or t.isdigit() or t in w.PICK_SKIP or t in ("lap", "laps", "one", "time", "session")


def session_spans(s: Slots) -> list[tuple[int, int, str]]:
    """Another session named ("my other session", "last time out", a session id): where, and which; its
    words are read (so "last" there is no lap)."""
    spans: list[tuple[int, int, str]] = [(i, i + 1, t) for i, t in enumerate(s.toks) if _SESSION_ID.match(t)]
    spans += [(i, i + 1, t[1:]) for i, t in enumerate(s.toks) if t.startswith("@")]  # "bo's best lap"
    when = session_words.describe(s.joined)  # "yesterday", "two sessions ago": which other session
    if when is not None:
        spans = [x for x in spans if not when[0] <= x[0] < when[1]] + [when]
    for phrase in c.CUES["other"] if when is None else ():
        at = s.joined.find(f" {phrase} ")
        if at >= 0:
            i = s.joined[:at].count(" ")
            spans.append((i, i + len(phrase.split()), "other"))
            break
    two = (_TWO_KINDS.search(s.joined) or _THIS_VS_ONE.search(s.joined)) if not spans else None
    named = any(
        t in ("lap", "laps") and s.toks[i + 1 : i + 2] and s.toks[i + 1].isdigit()
        for i, t in enumerate(s.toks)
    )
    two = two or (None if spans or named else lap_names.across_sessions(s.joined))
    if two is not None:
        i = s.joined[: two.start()].count(" ")
        spans.append((i, i + len(two.group(0).split()), "other"))
    for a, b, _ in spans:
        mark(s, a, b)
    return spans


def attach(s: Slots, positions: list[tuple[int, LapRef]], spans: list[tuple[int, int, str]]) -> None:
    """The lap named right beside another session is that session's; with none, the question is about
    that session. "The first" or "the last" with no lap after it, beside sessions named, is a session ("was
    my second session better than the first?")."""
    if spans and re.search(r" sessions? ", s.joined):
        positions[:] = [
            (p, r)
            for p, r in positions
            if not (r.pick in ("first", "last") and not {"lap", "laps"} & set(s.toks[p : p + 4]))
        ]
    for a, b, sid in spans:
        near = [
            k
            for k, (p, _) in enumerate(positions)
            if (p < a and a - p <= 5 and all(_glue(x) for x in s.toks[p + 1 : a])) or (b <= p <= b + 2)
        ]
        for k in near:
            p, ref = positions[k]
            positions[k] = (p, replace(ref, session=sid))
        picks = [r.pick for _, r in positions if r.session == "this" and r.pick]
        if not near and picks:  # "my best lap compared to my other session": that session's best
            positions.append((a, LapRef(pick=picks[0], session=sid)))
        elif not near:
            positions.append((a, LapRef(session=sid)))
            s.other = True


def lap_positions(s: Slots) -> list[tuple[int, LapRef]]:
    """Every lap the words name, at its place: numbers, picks, the out and in laps."""
    return _laps(s) + _picks(s) + _entry(s)

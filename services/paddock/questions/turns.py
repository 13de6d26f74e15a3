"""Which corner a question names: "turn 11", "T11", "corner eleven", "the 3rd corner", or one of the
track's own names ("the hairpin"), a typo of a name's word too ("carosel"); as the track's corner id. Pure."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from services.paddock.questions import numerals as n
from services.paddock.questions import words as w

Corners = Sequence[str] | Mapping[str, Sequence[str]]
_CORNER_NO = re.compile(r"^(\d{1,3})([a-z]?)$")


def find(toks: list[str], joined: str, used: list[bool], corners: Corners) -> tuple[str, int, int] | None:
    """(the corner id, where its words start, where they end) for the first corner the words name."""
    ids = [str(c).lower() for c in corners]
    names = corners if isinstance(corners, Mapping) else {}
    for cid, said in names.items():  # a name of the track's own ("the hairpin", "carousel")
        for name in said:
            phrase = _name_words(name)
            at = joined.find(f" {phrase} ") if phrase else -1
            if at >= 0:
                i = joined[:at].count(" ")
                return str(cid).lower(), i, i + len(phrase.split())
    for i, t in enumerate(toks):
        if t not in ("turn", "corner") or used[i]:
            continue
        m = _CORNER_NO.match(toks[i + 1]) if i + 1 < len(toks) else None
        got = n.number(toks, i + 1)
        before = n.ordinal_before(toks, i)  # "the 3rd corner", "the third turn"
        if m is not None:
            return _corner_id(m.group(1) + m.group(2), ids), i, i + 2
        if got is not None:
            return _corner_id(str(got[0]), ids), i, got[1]
        if before is not None:
            return _corner_id(str(before[0]), ids), before[1], i + 1
    return _bare(toks, used, ids)


# "braking too deep into 4", "min speed through 6", "on the brakes too soon for 6": a bare number after
# these is a corner ("for" only in a brake question)
_INTO = frozenset({"into", "through"})
_BRAKE_WORDS = frozenset(
    {"brake", "brakes", "braking", "braked", "deep", "overcook", "overcooked", "anchors"}
)
_NOT_CORNER = frozenset(
    {"lap", "laps", "th", "seconds", "second", "metres", "meters", "m", "km", "mph", "kmh"}
)


def _bare(toks: list[str], used: list[bool], ids: list[str]) -> tuple[str, int, int] | None:
    """A bare corner number after "into" or "through" ("braking too deep into 4", "min speed through 6"),
    or after "for" in a brake question ("too soon for 6"): only one of the track's own corners, never a
    lap ("for 6 laps", "laps 3 through 6")."""
    words = _INTO | ({"for", "at"} if _BRAKE_WORDS & set(toks) else set())
    for i in range(len(toks) - 1):
        nxt = toks[i + 2] if i + 2 < len(toks) else ""
        after_number = i > 0 and toks[i - 1].isdigit()
        if (
            toks[i] in words
            and toks[i + 1].isdigit()
            and not used[i + 1]
            and not after_number
            and nxt not in _NOT_CORNER
        ):
            cid = _corner_id(toks[i + 1], ids)
            if cid in ids:
                return cid, i + 1, i + 2
    return None


def name_typos(toks: list[str], corners: Corners) -> list[str]:
    """The words with a typo of a word of the track's own corner names ("carosel") spelled as the track
    spells it; a word the vocabulary knows is left alone."""
    if not isinstance(corners, Mapping):
        return toks
    targets = sorted({x for said in corners.values() for name in said for x in _name_words(name).split()})
    known = w.vocabulary()
    out = []
    for t in toks:
        guess = len(t) >= 4 and t not in known and not t.startswith("@")
        near = difflib.get_close_matches(t, targets, 1, 0.84) if guess else []
        out.append(near[0] if near else t)
    return out


@lru_cache(maxsize=512)
def _name_words(name: str) -> str:
    return " ".join(w.tokens(name.lower().removeprefix("the ")))


def _corner_id(key: str, ids: list[str]) -> str:
    """The track's id for corner number ``key`` ("11", "3a"): ``t11`` or, on a track numbered C1, C2 ...,
    ``c11``; a number the track does not have keeps the track's form (the family says it has no such)."""
    m = re.match(r"[a-z]+", ids[0]) if ids else None
    return (m.group(0) if m else "t") + key

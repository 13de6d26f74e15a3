"""A lap named beside another: "the lap before my best", "the one after lap 5", "my best lap and the lap
after it". Pure: reads the words ``slots`` has tokenized and the laps it found."""

from __future__ import annotations

from dataclasses import replace

from services.paddock.questions import words as w
from services.paddock.questions.model import LapRef


def beside(toks: list[str], used: list[bool], positions: list[tuple[int, LapRef]]) -> bool:
    """The lap named after "before"/"after" (within three words), moved one along (``LapRef.offset``), in
    ``positions``; after "it"/"that": the lap named before, moved, added (none before: ``LapRef`` with only
    an offset, the previous question's lap moved, ``conversation.follow``). Marks the words read in
    ``used``; whether one was read."""
    found = False
    for k, t in enumerate(toks):
        if t not in w.BESIDE or used[k]:
            continue
        a = k - 1
        while a > 0 and toks[a] in w.BESIDE_SKIP:
            a -= 1
        if a < 0 or toks[a] not in ("lap", "one") or used[a]:
            continue
        e = k + 1 + (k + 1 < len(toks) and toks[k + 1] == "to")  # "the lap prior to my best"
        # "... and the one just before": the lap named earlier, moved (at the end, as after "it")
        if e >= len(toks) or toks[e] in ("it", "that", "this"):
            earlier = [r for p, r in positions if p < a]  # none: the previous question's lap, moved
            positions.append((a, replace(earlier[-1] if earlier else LapRef(), offset=w.BESIDE[t])))
            used[a : e + 1] = [True] * (e + 1 - a)
            found = True
            continue
        later = [i for i, (p, _) in enumerate(positions) if e <= p <= e + 3]
        if later:
            ref = positions[later[0]][1]
            positions[later[0]] = (a, replace(ref, offset=w.BESIDE[t]))
            used[a:e] = [True] * (e - a)
            found = True
    return found

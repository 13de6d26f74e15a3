"""Where in the corner the speed is farthest off ("at the entry, the middle or the exit?", "am I losing it on
the way in or on the way out?"): each part of every corner, each valid lap against your typical pass
there, from the one session analysis (``tools/analysis``: entry, minimum and exit speed of each corner on
each lap), never recomputed here. Runs SQL (worker thread)."""

from __future__ import annotations

from statistics import median
from typing import Any

from services.paddock.questions.families.channels import show
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.analysis import session_analysis
from shared.analysis.model import CornerLap, finite

TOOL = "session_analysis"
# the parts of a corner: the analysis's speed there, the driver's words for it
PARTS = (("entry_kmh", "the entry"), ("min_kmh", "mid-corner (the minimum speed)"), ("exit_kmh", "the exit"))
MEASURE = "corner_phases"


def _worst(rows: list[CornerLap], col: str) -> dict[str, Any] | None:
    """The corner and lap where ``col`` fell farthest under that corner's median over the valid laps."""
    typical: dict[str, float] = {}
    for cid in {r.corner_id for r in rows}:
        vals = [getattr(r, col) for r in rows if r.corner_id == cid and finite(getattr(r, col))]
        if vals:
            typical[cid] = median(vals)
    got = [
        (typical[r.corner_id] - getattr(r, col), r)
        for r in rows
        if r.corner_id in typical and finite(getattr(r, col))
    ]
    if not got:
        return None
    off, r = max(got, key=lambda x: x[0])
    return {
        "corner": r.corner,
        "lap": r.lap,
        "kmh": round(getattr(r, col), 1),
        "typical_kmh": round(typical[r.corner_id], 1),
        "off_kmh": round(off, 1),
    }


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """Each part of the corner's largest speed deficit over the session, the farthest first."""
    if q.measure != MEASURE or q.corner is not None:
        return None
    sid = str(s["session_id"])
    an = session_analysis(sid)
    stopped = {r.lap for r in an.offs()}  # a lap that stopped, spun or went off: its speeds around it are no
    driven = [r for r in an.rows if r.lap not in stopped]  # corner speed to find
    parts = [(words, _worst(driven, col)) for col, words in PARTS]
    found = [(words, w) for words, w in parts if w is not None]
    if not found:
        why = an.reason or "no valid lap passes a corner"
        return Answer(f"Corner speeds cannot be read: {why}.", TOOL, {"session_id": sid}, {"parts": {}})
    found.sort(key=lambda x: -x[1]["off_kmh"])
    said = [
        f"at {words}, {w['corner']} on lap {w['lap']}: {show('speed', w['kmh'])}, "
        f"{w['off_kmh']:.1f} km/h slower than your typical {show('speed', w['typical_kmh'])}"
        for words, w in found
    ]
    first_words, first = found[0]
    text = (
        f"Your speed is farthest off at {first_words}: against your typical pass of each corner (the median "
    )
    text += (
        f"of your {len(an.laps)} valid laps), the most each part of the corner was slower: {'; '.join(said)}."
    )
    result = {"parts": {words: w for words, w in found}, "farthest": first_words, "corner": first["corner"]}
    return Answer(text, TOOL, {"session_id": sid}, result)

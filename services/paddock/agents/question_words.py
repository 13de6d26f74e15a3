"""A driver's question put in the words the routes read, before any routing: common misspellings and
shorthand spelled out (``hw consistant`` -> ``how consistent``, ``avg`` -> ``average``, ``breaking`` ->
``braking``), and a lap named by what it was (``my fastest lap``, ``the last lap``) given its number when
the question asks something else of it ("top speed on my fastest lap" -> "top speed on lap 7"). The
question shown and narrated stays the driver's own."""

from __future__ import annotations

import re
from typing import Any

# a misspelling or shorthand -> the word the routes know (whole words only)
SPELLING = {
    "hw": "how",
    "wat": "what",
    "wht": "what",
    "whats": "what's",
    "wats": "what's",
    "consistant": "consistent",
    "consistancy": "consistency",
    "consistensy": "consistency",
    "laptime": "lap time",
    "laptimes": "lap times",
    "avg": "average",
    "ave": "average",
    "breaking": "braking",
    "brakeing": "braking",
    "throtle": "throttle",
    "throttel": "throttle",
    "presure": "pressure",
    "pressur": "pressure",
    "temprature": "temperature",
    "temperture": "temperature",
    "tempreture": "temperature",
    "fastet": "fastest",
    "fatest": "fastest",
    "quickst": "quickest",
    "slowets": "slowest",
    "sectr": "sector",
    "secter": "sector",
    "rpms": "rpm",
    "kmh": "km/h",
    "kph": "km/h",
    "u": "you",
}
_WORD = re.compile(r"[a-z/']+")


def normal_question(text: str) -> str:
    """``text`` lower-cased with the misspellings above spelled out."""
    return _WORD.sub(lambda m: SPELLING.get(m.group(0), m.group(0)), (text or "").lower())


_NAMED_LAP = re.compile(
    r"\b(?:my |the |our )?(?:very )?(last|final|fastest|best|quickest|slowest|worst) "
    r"(?:full |timed |valid |racing )?lap\b(?!s)"
)
_NOT_A_LAP = re.compile(r"(?:theoretical|ideal|perfect|achievable|optimal|possible|personal|all.?time)\s*$")
# the question asks something of the lap beyond its time (a figure on it, or another lap to compare)
_ASKS_MORE = re.compile(
    r"speed|how fast|\brpm\b|\brevs?\b|throttle|brak|\bgears?\b|sector|\boil\b|coolant|water|temp|pressure|"
    r"\bturn\b|corner|\bt\d|g.?force|lateral|\bmph\b|km/h|v ?max|\bthan\b|\bvs\b|versus|compare|\bgap\b|"
    r"differ|\blap \d"
)


def name_laps(q: str, session_id: str) -> str:
    """``q`` with "my fastest lap", "the last lap" ... replaced by "lap N" of this session's valid laps,
    when the question asks something of that lap (a lap's own time is the best-lap route's); every such
    lap ("compare my fastest lap with my last lap"), the last lap first."""
    if not _NAMED_LAP.search(q):
        return q
    laps = _valid(session_id)
    if not laps:
        return q
    pick = {
        "last": max(laps, key=lambda x: x["lap"]),
        "slowest": max(laps, key=lambda x: x["time_s"]),
        "fastest": min(laps, key=lambda x: x["time_s"]),
    }
    pick |= {
        "final": pick["last"],
        "worst": pick["slowest"],
        "best": pick["fastest"],
        "quickest": pick["fastest"],
    }
    both = re.search(r"\b(?:best|fastest|quickest)\b", q) and re.search(r"\b(?:slowest|worst)\b", q)
    for which in (("last", "final"), ("fastest", "best", "quickest", "slowest", "worst")):
        out, end = [], 0
        for m in _NAMED_LAP.finditer(q):
            if m.group(1) not in which or _NOT_A_LAP.search(q[: m.start()]):
                continue
            rest = q[: m.start()] + " " + q[m.end() :]
            if which[0] == "fastest" and (both or not _ASKS_MORE.search(rest)):
                continue  # best against worst: the lap comparison names both
            out += [q[end : m.start()], f"lap {pick[m.group(1)]['lap']}"]
            end = m.end()
        q = "".join(out) + q[end:]
    return q


def _valid(sid: str) -> list[dict[str, Any]]:
    from services.paddock.tools.base import ToolError, rows, session_row

    try:
        sid = session_row(sid)["session_id"]
        return rows(
            "SELECT lap, time_s FROM laps WHERE session_id = ? AND kind = 'full' AND valid "
            "AND time_s IS NOT NULL",
            [sid],
        )
    except ToolError:
        return []


# a question whose answer is a figure: a time, a speed, a count, a lap, a corner, a sector, a gear
_FIGURE_Q = re.compile(
    r"\bhow (?:fast|quick|slow|much|many|long|hard|hot|high|low|far|consistent)\b|"
    r"\bwhich (?:lap|corner|turn|sector|gear|one)\b|\bwhat (?:gear|lap|corner|turn|sector)\b|"
    r"\b(?:top|max(?:imum)?|min(?:imum)?|average|mean|peak|highest|lowest|entry|exit|apex) "
    r"(?:speed|rpm|revs|lap|pressure|temp\w*)\b|\blap ?times?\b|\b(?:best|fastest|quickest|slowest|worst) lap\b|"
    r"\b(?:hot|cold|overheat\w*|drop\w*|dip\w*)\b|"  # a reading judged: the reading backs the verdict
    r"\bv ?max\b|\bwhere (?:do|did|am|can) i (?:lose|losing|lost|find|gain)\b|\bcompare\b|\bvs\.?\b|"
    r"\b(?:slower|faster|quicker) than\b|\btheoretical\b|\bhow did lap \d|\bwhat (?:was|were|is|'s) "
    r"(?:my |the )?(?:\w+ ){0,2}(?:time|speed|rpm|revs|gap|delta|pressure|temp\w*|gear|sector)\b"
)


def asks_figure(question: str) -> bool:
    """The question is answered by a figure (a time, a speed, a lap, a corner): words alone do not."""
    return bool(_FIGURE_Q.search(normal_question(question)))

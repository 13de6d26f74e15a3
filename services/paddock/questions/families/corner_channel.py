"""A channel at a corner ("how hot did the oil get in turn 11?", "what rpm was I at in T4?", "peak lateral g
in turn 7 on lap 5"): the channel's figure over the corner's span (its ``start_m`` to ``end_m`` on each
valid lap, from the corner table), on the lap named or over the session with the lap it came on; "min and
max" gives both ends. The corner table's own figures (speeds, brake marker, peak brake pressure) stay the
``corners`` family's. Runs SQL (worker thread)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.paddock.measures import MEASURES
from services.paddock.questions.families import channels, judge
from services.paddock.questions.families.corners import COLUMNS, corner_rows
from services.paddock.questions.families.laps import named_laps
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import rows

_WORD = {"max": "highest", "min": "lowest", "avg": "average"}
_PICK = {"max": "greatest", "min": "least"}
SIGNED = frozenset({"lat_g", "long_g", "yaw_rate", "steering"})  # either way round: its size


def asks(q: Question) -> bool:
    """A recorded channel's figure asked at a named corner, one the corner table does not hold."""
    m = MEASURES.get(q.measure or "")
    if q.corner is None or m is None or m.kind != "channel" or not m.columns:
        return False
    own = q.measure not in COLUMNS and q.measure not in ("gear", "top_speed")  # a top speed is a lap's
    return q.intent in ("channel", "corner", "judge") and own


def _expr(m: str, fn: str) -> str:
    cols = [f"abs(t.{c})" if m in SIGNED else f"t.{c}" for c in MEASURES[m].columns]
    parts = [f"{fn}({c})" for c in cols]
    if len(parts) == 1:
        return parts[0]
    return f"{_PICK[fn]}({', '.join(parts)})" if fn in _PICK else f"({' + '.join(parts)}) / {len(parts)}"


def per_lap(sid: str, corner: str, m: str, fn: str) -> dict[int, tuple[float, int]]:
    """Each valid lap's figure of ``m`` between the corner's start and end (with its sample count)."""
    got = rows(
        f"""SELECT c.lap, {_expr(m, fn)} AS v, count(*) AS n
            FROM corner_results c JOIN laps l USING (session_id, lap)
            JOIN telemetry t ON t.session_id = c.session_id AND t.lap = c.lap
                 AND t.dist_m BETWEEN c.start_m AND c.end_m
            WHERE c.session_id = ? AND lower(c.corner_id) = lower(?) AND l.kind = 'full' AND l.valid
            GROUP BY c.lap ORDER BY c.lap""",
        [sid, corner],
    )
    return {int(x["lap"]): (float(x["v"]), int(x["n"])) for x in got if x["v"] is not None}


def _figures(m: str) -> tuple[str, ...]:
    return ("max", "min") if m not in channels.LOWEST else ("min", "max")


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    if not asks(q):
        return None
    m, sid = str(q.measure), str(s["session_id"])
    if channels.on_lap(sid, m, None) is None:
        return channels.not_recorded(s, m)
    got = corner_rows(s, str(q.corner))
    if isinstance(got, Answer):
        return got
    name = got[0]
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps
    if laps and laps[0][0] != sid:  # another session's lap at a corner: not this session's figure
        return None
    lap = laps[0][1] if laps else None
    fns = _figures(m) if q.aggregation == "range" else (_agg(q, m),)
    what = channels.label(m) + (" (either direction)" if m in SIGNED else "")
    bits: list[str] = []
    res: dict[str, Any] = {"corner": name, "measure": m}
    for fn in fns:
        by = per_lap(sid, str(q.corner), m, fn)
        if lap is not None:
            if lap not in by:
                text = f"Lap {lap} has no {channels.label(m)} reading at {name}: it is not a valid timed lap through it."
                return Answer(text, "telemetry", {"session_id": sid, "lap": lap}, res | {"lap": lap})
            v = by[lap][0]
            bits.append(f"{_WORD[fn]} {channels.show(m, v)}")
            res |= {"lap": lap, fn: round(v, 2)}
            continue
        if not by:
            return Answer(
                f"No valid lap has a {channels.label(m)} reading at {name}.",
                "telemetry",
                {"session_id": sid},
                res,
            )
        if fn == "avg":
            v = sum(x * n for x, n in by.values()) / sum(n for _, n in by.values())
            bits.append(f"average {channels.show(m, v)}")
            res |= {fn: round(v, 2), "valid_laps": len(by)}
            continue
        at = max(by, key=lambda k: (by[k][0] if fn == "max" else -by[k][0], -k))  # the first lap on a tie
        v = by[at][0]
        bits.append(f"{_WORD[fn]} {channels.show(m, v)} (lap {at})")
        res |= {fn: round(v, 2), f"{fn}_lap": at, "valid_laps": len(by)}
    scope = f"on lap {lap}" if lap is not None else f"over your {res.get('valid_laps')} valid laps"
    text = f"{what[0].upper()}{what[1:]} through {name} {scope}: {', '.join(bits)}."
    # "oil pressure ok in t11?": the corner's figure, then the lap's (the session's) against the limit
    verdict = judge.answer(replace(q, corner=None), s) if q.intent == "judge" else None
    if verdict is not None:
        return Answer(f"{text} {verdict.text}", verdict.tool, verdict.args, verdict.result | {"corner": res})
    return Answer(text, "telemetry", {"session_id": sid, "corner_name": name}, res)


def _agg(q: Question, m: str) -> str:
    return q.aggregation if q.aggregation in _WORD else channels.default_figure(m)

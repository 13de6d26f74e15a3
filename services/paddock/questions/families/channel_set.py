"""A channel asked of a set of laps ("max oil temp on laps 3 to 5", "highest rpm on my last 4 laps",
"average coolant temp over my 3 best laps"): the figure on every lap of the set, then the set's own (the
highest or lowest of its laps, or the mean of all its samples). Runs SQL (worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.measures import MEASURES
from services.paddock.questions.families import channels
from services.paddock.questions.families.laps import laps_said, named_laps
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import rows

_WORD = {"max": "highest", "min": "lowest", "avg": "average"}
_PICK = {"max": "greatest", "min": "least"}


def asks(q: Question) -> bool:
    """Whether ``q`` asks a recorded-channel figure of a set of this session's laps: three laps or more, or
    a pick standing for several ("my last 4 laps"); two laps named are a comparison (``compare``)."""
    m = MEASURES.get(q.measure or "")
    if m is None or m.kind != "channel" or not m.columns or q.measure == "gear":
        return False
    if q.corner is not None or q.sector is not None or q.intent not in ("channel", "lap_time", "compare"):
        return False
    here = all(x.session == "this" for x in q.laps)
    return here and (len(q.laps) >= 3 or any(x.count > 1 for x in q.laps))


def _expr(cols: tuple[str, ...], fn: str) -> str:
    """One figure of the measure's columns (a wheel measure: the greatest or least of its four, or their mean)."""
    parts = [f"{fn}({c})" for c in cols]
    if len(parts) == 1:
        return parts[0]
    return f"{_PICK[fn]}({', '.join(parts)})" if fn in _PICK else f"({' + '.join(parts)}) / {len(parts)}"


def _name(laps: list[int]) -> str:
    """Three laps or more in a row as their span ("laps 3 to 5"), else as every answer lists laps."""
    if len(laps) > 2 and laps == list(range(laps[0], laps[-1] + 1)):
        return f"laps {laps[0]} to {laps[-1]}"
    return laps_said(laps)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    m = str(q.measure)
    sid = str(s["session_id"])
    if channels.on_lap(sid, m, None) is None:
        return channels.not_recorded(s, m)
    got = named_laps(q, s)
    if isinstance(got, Answer):
        return got
    laps = sorted({lap for x, lap in got if x == sid})
    if len(laps) < 2:
        return None
    fn = q.aggregation if q.aggregation in _WORD else channels.default_figure(m)
    cols = MEASURES[m].columns
    marks = ", ".join("?" for _ in laps)
    where = f"session_id = ? AND lap IN ({marks})"
    per = rows(
        f"SELECT lap, {_expr(cols, fn)} AS v FROM telemetry WHERE {where} GROUP BY lap ORDER BY lap",
        [sid, *laps],
    )
    by = {int(x["lap"]): float(x["v"]) for x in per if x["v"] is not None}
    if not by:
        return channels.not_recorded(s, m)
    label = channels.label(m)
    what = label if m in ("top_speed", "min_speed") else f"{_WORD[fn]} {label}"
    each = "; ".join(f"lap {n} {channels.show(m, by[n])}" if n in by else f"lap {n} no reading" for n in laps)
    res: dict[str, Any] = {f"{m}_by_lap": by, "figure": _WORD[fn], "laps": laps}
    if fn == "avg":
        whole = rows(f"SELECT {_expr(cols, 'avg')} AS v FROM telemetry WHERE {where}", [sid, *laps])
        v = float(whole[0]["v"])
        over = f"over the {len(by)} laps {channels.show(m, v)}"
    else:
        at = max(by, key=lambda n: (by[n] if fn == "max" else -by[n], -n))  # the first lap on a tie
        v = by[at]
        over = f"{_WORD[fn]} of the {len(by)} laps {channels.show(m, v)}, on lap {at}"
        res["on_lap"] = at
    text = f"Your {what} on {_name(laps)}: {each}; {over}."
    return Answer(text, "telemetry", {"session_id": sid, "laps": laps}, res | {"set_figure": v})

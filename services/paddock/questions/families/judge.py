"""Judge a car vital against the car's limits: "was my oil pressure ok?", "are my temps fine?", "is my
coolant too hot?". The figures and crossings come from ``tools.limits.get_vital_limits``; a vital with no
limit for the car gets its figures and no verdict; a vital the file lacks is "not recorded"."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.families.track_words import corner_names
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.limits import TEMPS, VITALS, get_vital_limits

#: what a judge question with no single measure ("is everything ok?") looks at
GENERAL = ("oil_pressure", "coolant_temp", "oil_temp", "tyre_temp")
MAX_CROSSINGS = 4


def _num(x: float, res: dict[str, Any]) -> str:
    return f"{x:,.{VITALS[res['measure']].nd}f} {res['unit']}"


def _place(c: dict[str, Any], names: dict[str, str]) -> str:
    where = f"lap {c['lap']}, {c['dist_m']:.0f} m into the lap"
    cid = c.get("corner")
    if cid:
        where += f", {'in' if c['in_corner'] else 'after'} {names.get(cid, cid)}"
    return where


def _judged(res: dict[str, Any], names: dict[str, str]) -> str:
    """One vital's sentences."""
    words = res["words"]
    if not res["recorded"]:
        return f"Your {words}: not recorded in this session."
    span = f"{_num(res['min'], res)} to {_num(res['max'], res)}"
    lim = res["limit"]
    if lim is None:
        hottest = max(res["laps"], key=lambda x: x["max"]) if res["laps"] else None
        peak = f" (highest {_num(hottest['max'], res)} on lap {hottest['lap']})" if hottest else ""
        return (
            f"Your {words} ranged from {span} over the session{peak}. Pitwall has no limit for {words} "
            "on this car, so no verdict."
        )
    bound = _num(lim["value"], res)
    beyond = f"below {bound} under load" if lim["under_load"] else f"above {bound}"
    src = f" ({lim['source']})"
    if not res["crossings"]:
        return f"Your {words} was OK: never {beyond}{src}. Over the session it ranged from {span}."
    shown = res["crossings"][:MAX_CROSSINGS]
    worst = "lowest" if lim["side"] == "min" else "highest"
    parts = [f"{_place(c, names)} ({worst} {_num(c['worst'], res)}, {c['duration_s']:.2f} s)" for c in shown]
    more = len(res["crossings"]) - len(shown)
    return (
        f"Your {words} was not OK: it went {beyond}{src} for {res['outside_s']:.2f} s in total: "
        + "; ".join(parts)
        + (f" (+{more} more)" if more > 0 else "")
        + "."
    )


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """Each vital the question names (or, named none, the engine's and tyres' temperatures and the oil
    pressure) judged against the car's limit, with when and where a limit was crossed."""
    if q.measure in VITALS:
        measures: tuple[str, ...] = (q.measure,)
    elif q.measure == "temps":
        measures = TEMPS
    elif q.measure is None:
        measures = GENERAL
    else:
        return None  # not a vital: another family's question
    sid = s["session_id"]
    names = corner_names(s)
    results = [get_vital_limits(sid, m) for m in measures]
    if len(results) > 1:  # several at once: what was not recorded goes in one line at the end
        lacking = [x["words"] for x in results if not x["recorded"]]
        lines = [_judged(x, names) for x in results if x["recorded"]]
        if lacking:
            lines.append("Not recorded in this session: " + ", ".join(lacking) + ".")
    else:
        lines = [_judged(results[0], names)]
    return Answer(
        " ".join(lines),
        "get_vital_limits",
        {"session_id": sid, "measures": list(measures)},
        {"vitals": results},
    )

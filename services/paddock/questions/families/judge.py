"""Judge a car vital against the car's limits: "was my oil pressure ok?", "are my temps fine?", "is my
coolant too hot?". The figures and crossings come from ``tools.limits.get_vital_limits``; a vital with no
limit for the car gets its figures and no verdict; a vital the file lacks is "not recorded"."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.families import channels
from services.paddock.questions.families.track_words import corner_names
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.limits import TEMPS, VITALS, get_vital_limits
from services.paddock.tools.recorded import not_recorded_text
from services.paddock.tools.unread import unread

#: the vitals a judge question with no single measure ("is everything ok?", "engine health at a glance")
#: says are not recorded when the file lacks them; every other vital is judged when recorded, else not named
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


def _judged(res: dict[str, Any], names: dict[str, str], lap: int | None = None) -> str:
    """One vital's sentences: over the session, or on ``lap``."""
    words = res["words"]
    if not res["recorded"]:
        return f"Your {words}: not recorded in this session."
    if lap is None:
        fig: dict[str, Any] | None = res
        cross, who, there = res["crossings"], "Your", "Over the session"
    else:
        fig = next((x for x in res["laps"] if x["lap"] == lap), None)
        cross, who, there = (
            [c for c in res["crossings"] if c["lap"] == lap],
            f"On lap {lap} your",
            "On that lap",
        )
    if fig is None:
        return f"Lap {lap} has no {words} reading."
    span = f"{_num(fig['min'], res)} to {_num(fig['max'], res)}"
    lim = res["limit"]
    if lim is None:
        top = max(res["laps"], key=lambda x: x["max"]) if res["laps"] and lap is None else None
        peak = f" (highest {_num(top['max'], res)} on lap {top['lap']})" if top else ""
        over = " over the session" if lap is None else ""
        return f"{who} {words} ranged from {span}{over}{peak}. Pitwall has no limit for {words} on this car, so no verdict."
    bound = _num(lim["value"], res)
    beyond = f"below {bound} under load" if lim["under_load"] else f"above {bound}"
    src = f" ({lim['source']})"
    if not cross:
        return f"{who} {words} was OK: never {beyond}{src}. {there} it ranged from {span}."
    shown = cross[:MAX_CROSSINGS]
    worst = "lowest" if lim["side"] == "min" else "highest"
    parts = [f"{_place(c, names)} ({worst} {_num(c['worst'], res)}, {c['duration_s']:.2f} s)" for c in shown]
    more = len(cross) - len(shown)
    total = " in total" if lap is None else ""
    return (
        f"{who} {words} was not OK: it went {beyond}{src} for {fig['outside_s']:.2f} s{total}: "
        + "; ".join(parts)
        + (f" (+{more} more)" if more > 0 else "")
        + "."
    )


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """Each vital the question names (or, named none, the engine's and tyres' temperatures and the oil
    pressure) judged against the car's limit, with when and where a limit was crossed."""
    if len(q.vitals) >= 2 and all(m in VITALS for m in q.vitals):  # "oil pressure and water temp fine?"
        measures: tuple[str, ...] = q.vitals
    elif q.measure in VITALS:
        measures = (q.measure,)
    elif q.measure == "temps":
        measures = TEMPS
    elif q.measure is None:
        measures = (*GENERAL, *(m for m in VITALS if m not in GENERAL))
    else:
        return None  # not a vital: another family's question
    sid = s["session_id"]
    names = corner_names(s)
    # laps named by number in this session (a pick, "my fastest lap", is resolve.lap_numbers' to add)
    laps: list[int | None] = [x.number for x in q.laps if x.number is not None and x.session == "this"] or [
        None
    ]
    results = [get_vital_limits(sid, m) for m in measures]
    if len(results) > 1:  # several at once: what was not recorded goes in one line at the end
        lacking = [
            x["words"]
            for x, m in zip(results, measures, strict=True)
            if not x["recorded"] and (m in GENERAL or m in q.vitals)
        ]
        lines = [_judged(x, names, n) for x in results if x["recorded"] for n in laps]
        if lacking:
            lines.append(str(not_recorded_text(lacking)))
    else:
        lines = [_judged(results[0], names, n) for n in laps]
        if not results[0]["recorded"] and unread(str(sid), measures[0]):  # in the file, not read
            return channels.not_recorded(s, measures[0])
        if not results[0]["recorded"]:  # what the file records instead, by name
            lines = [lines[0] + channels.instead(str(sid), measures[0])[0]]
    args: dict[str, Any] = (
        {"session_id": sid, "measure": measures[0]} if len(measures) == 1 else {"session_id": sid}
    )
    return Answer(" ".join(lines), "get_vital_limits", args, {"vitals": results})

"""Lap against lap: the whole lap by distance (``get_lap_delta``, a lap of another session too), one
sector (the sector times), one corner (the corner table and the session analysis' cause) or one measure
("top speed lap 3 vs lap 5"). Two laps named are compared as named; one lap is compared with the best;
none: the best with the slowest. Runs tools (worker thread)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.paddock.agents.fmt import corner_label, laptime, secs
from services.paddock.measures import MEASURES
from services.paddock.questions.families import channels, corners, laps, markers
from services.paddock.questions.families.laps import all_laps, named_laps, timed
from services.paddock.questions.model import Answer, LapRef, Question
from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.registry import run_tool
from services.paddock.tools.sectors import sector_times


def _labels(d: dict[str, Any], mine: str | None = None) -> tuple[str, str, str]:
    """How the answer names lap_a (the reference), lap_b and, once, the reference in full: plain lap
    numbers within one session; "your other session", or the other driver's name and the session, when
    lap_a is another session's (``mine``: this session's driver)."""
    a, b = d["lap_a"], d["lap_b"]
    other = d.get("ref_session_id")
    if not other:
        return f"lap {a}", f"lap {b}", f"lap {a}"
    who = d.get("ref_driver_id")
    if who is not None and who == mine:
        return f"lap {a} of your other session", f"your lap {b}", f"lap {a} of your other session"
    short = f"{who}'s lap {a}" if who else f"lap {a} of session {other}"
    return short, f"your lap {b}", f"{short} (session {other})" if who else short


def delta_text(d: dict[str, Any], mine: str | None = None, best: int | None = None) -> str:
    """``get_lap_delta`` as sentences: who was slower by how much, the lap times (``best``: the session's
    best lap, named so), where it went."""
    total = d.get("total_delta_s")
    la, lb, full_a = _labels(d, mine)
    if total is None:
        return f"{lb[0].upper()}{lb[1:]} and {full_a} could not be compared."
    slower, faster = (lb, full_a) if total > 0 else (full_a, lb)
    parts = [
        f"{slower[0].upper()}{slower[1:]} was {secs(abs(total), 3)} slower than {faster} over the distance they share."
    ]
    ta, tb = laptime(d.get("lap_a_time_s")), laptime(d.get("lap_b_time_s"))
    if ta and tb:
        own = not d.get("ref_session_id")
        ta += " (your best)" if own and best == d["lap_a"] else ""
        tb += " (your best)" if own and best == d["lap_b"] else ""
        parts.append(f"Lap times: {la} {ta}, {lb} {tb}.")
    sign = 1 if total > 0 else -1
    losses = [c for c in d.get("corners") or [] if (c.get("delta_s") or 0) * sign > 0.005]
    losses.sort(key=lambda c: -abs(c["delta_s"]))
    if losses:
        parts.append(
            "Most of it went at "
            + "; ".join(
                f"{corner_label(c['corner'], c.get('name'))} {secs(abs(c['delta_s']), 3)}" for c in losses[:3]
            )
            + "."
        )
        c = losses[0]
        sa, sb = c.get("min_speed_a_kmh"), c.get("min_speed_b_kmh")
        if sa is not None and sb is not None:
            parts.append(f"Minimum speed at {corner_label(c['corner'])}: {la} {sa:g} km/h, {lb} {sb:g} km/h.")
    ca, cb = d.get("coast_pct_a"), d.get("coast_pct_b")
    if ca is not None and cb is not None and abs(ca - cb) >= 1:
        parts.append(f"Coasting: {la} {ca:g} %, {lb} {cb:g} % of the lap.")
    return " ".join(parts)


def _pair(q: Question, s: dict[str, Any]) -> list[tuple[str, int]] | Answer:
    """The two laps compared: as named; one named against the best lap (the best itself: the last lap
    against it, else the slowest); none: best against slowest."""
    sid = str(s["session_id"])
    named = named_laps(q, s)
    if isinstance(named, Answer) or len(named) >= 2:
        return named
    good = timed(all_laps(sid))
    if not good:
        return Answer(
            "No valid lap in this session to compare.", "laps", {"session_id": sid}, {"valid_laps": 0}
        )
    best = min(good, key=lambda x: x["time_s"])["lap"]
    slowest = max(good, key=lambda x: x["time_s"])["lap"]
    if named and named[0] != (sid, best):
        return [(sid, best), named[0]]
    if named and good[-1]["lap"] != best:  # "my best lap's delta": the last lap against it
        return [(sid, best), (sid, good[-1]["lap"])]
    if slowest == best:
        return Answer(
            "Only one valid lap in this session: nothing to compare it with.",
            "laps",
            {"session_id": sid},
            {"valid_laps": 1},
        )
    return [(sid, best), (sid, slowest)]


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    pair = _pair(q, s)
    if isinstance(pair, Answer):
        return pair
    (sa, a), (sb, b) = pair[0], pair[1]
    if (sa, a) == (sb, b) and sa == s["session_id"] and q.corner is None and q.sector is None:
        # "my fastest lap was lap 2, what time was it?": one lap named twice, its time
        return laps.answer(replace(q, intent="lap_time", laps=(LapRef(number=a),), aggregation=None), s)
    if (
        q.intent in ("why_slower", "where_time") and len(q.laps) >= 2
    ):  # "lap 5 ... against lap 3": 3 is the reference
        (sa, a), (sb, b) = (sb, b), (sa, a)
    sid = str(s["session_id"])
    if q.sector is not None and sa == sb == sid:
        return _sector(sid, q.sector, a, b)
    if q.corner is not None and sa == sb == sid:
        return _corner(s, q.corner, q.measure, a, b)
    if q.measure == "brake_point" and sa == sb == sid:  # "where did I brake differently, lap 4 vs 2?"
        return markers.two_laps(s, a, b)
    # a channel's figure on each lap; a corner's figure with no corner named: the laps along the track
    if q.measure is not None and MEASURES[q.measure].columns and sa == sb == sid:
        return _measure(s, q.measure, a, b)
    if sb != sid and sa == sid:  # the other session's lap is the reference
        (sa, a), (sb, b) = (sb, b), (sa, a)
    args: dict[str, Any] = {"session_id": sb, "lap_a": a, "lap_b": b}
    if sa != sb:
        args["ref_session_id"] = sa
    d = run_tool("get_lap_delta", args)
    if "error" in d:
        return Answer(str(d["error"].get("message")) + ".", "get_lap_delta", args, d)
    best = min(timed(all_laps(sid)), key=lambda x: x["time_s"])["lap"] if sa == sb == sid else None
    return Answer(delta_text(d, s.get("driver_id"), best), "get_lap_delta", args, d)


def _sector(sid: str, k: int, a: int, b: int) -> Answer:
    d = sector_times(sid)
    args = {"session_id": sid, "sector": k, "lap_a": a, "lap_b": b}
    if not d.get("available"):
        return Answer(
            f"There are no sector times: {d.get('reason')}.", "sector_times", args, {"available": False}
        )
    secs_ = d["sectors"]
    if not 1 <= k <= len(secs_):
        text = f"There is no sector {k}: this session's laps have {len(secs_)} sectors, one per corner entry."
        return Answer(
            text, "sector_times", args, {"sector": k, "sector_count": len(secs_), "recorded": False}
        )
    x = secs_[k - 1]
    ta, tb = x["times_s"].get(a), x["times_s"].get(b)
    if ta is None or tb is None:
        gone = a if ta is None else b
        return Answer(
            f"Lap {gone} has no sector times: it is not a valid timed lap of this session.",
            "sector_times",
            args,
            {"lap": gone},
        )
    gap = tb - ta
    name = f"sector {k} ({x['from']} to {x['to']})"
    if abs(gap) < 0.0005:
        text = f"In {name}, lap {a} and lap {b} were level: {ta:.3f} s each."
    else:
        slow, fast = (b, a) if gap > 0 else (a, b)
        text = f"In {name}, lap {a} took {ta:.3f} s and lap {b} {tb:.3f} s: lap {slow} was {abs(gap):.3f} s slower than lap {fast}."
    text += f" Your best there is {x['best_s']:.3f} s, on lap {x['best_lap']}."
    res = {"sector": k, f"lap_{a}_sector_s": ta, f"lap_{b}_sector_s": tb, "gap_s": round(gap, 3)}
    res |= {"sector_best_s": x["best_s"], "sector_best_lap": x["best_lap"]}
    return Answer(text, "sector_times", args, res)


def _corner(s: dict[str, Any], corner: str, measure: str | None, a: int, b: int) -> Answer:
    sid = str(s["session_id"])
    args = {"session_id": sid, "corner_name": corner, "lap_a": a, "lap_b": b}
    got = corners.corner_rows(s, corner)
    if isinstance(got, Answer):
        return got
    label, by = got
    ra, rb = by.get(a), by.get(b)
    if ra is None or rb is None:
        gone = a if ra is None else b
        return Answer(
            f"Lap {gone} has no figures at {label}: it is not a valid timed lap through it.",
            "get_corner_history",
            args,
            {"lap": gone},
        )
    res: dict[str, Any] = {"corner": label}
    bits = []
    cols = dict.fromkeys([*corners.COLUMNS.get(measure or "", corners.SHOWN), "time_s"])
    for col in cols:
        word, va, vb = corners.LABELS[col], ra.get(col), rb.get(col)
        if va is None or vb is None:
            continue
        res |= {f"lap_{a}_{col}": va, f"lap_{b}_{col}": vb}
        bits.append(f"{word} {corners.show(col, va)} against {corners.show(col, vb)}")
    text = f"At {label}, lap {a} against lap {b}: " + "; ".join(bits) + "."
    if ra.get("time_s") is not None and rb.get("time_s") is not None:
        gap = rb["time_s"] - ra["time_s"]
        res["gap_s"] = round(gap, 3)
        slow, fast = (b, a) if gap > 0 else (a, b)
        text += f" Lap {slow} was {abs(gap):.3f} s slower than lap {fast} there."
        why = next(
            (
                r
                for r in session_analysis(sid).rows
                if r.lap == slow and r.corner_id.lower() == corner.lower()
            ),
            None,
        )
        if why is not None and why.cause and why.evidence:
            text += f" On lap {slow} there: {why.evidence}."
            res["cause"] = why.cause
    return Answer(text, "get_corner_history", args, res)


def _measure(s: dict[str, Any], measure: str, a: int, b: int) -> Answer | None:
    sid = str(s["session_id"])
    va, vb = channels.on_lap(sid, measure, a), channels.on_lap(sid, measure, b)
    label = channels.label(measure)
    args = {"session_id": sid, "lap_a": a, "lap_b": b}
    if va is None or vb is None:
        return channels.not_recorded(s, measure) if va is None and vb is None else None
    (fa, _), (fb, _) = va, vb
    gap = fb - fa
    text = f"{label[0].upper()}{label[1:]}: lap {a} {channels.show(measure, fa)}, lap {b} {channels.show(measure, fb)}"
    text += (
        f" ({channels.show(measure, abs(gap))} {'more' if gap > 0 else 'less'} on lap {b})."
        if gap
        else " (the same)."
    )
    res = {"measure": measure, f"lap_{a}": fa, f"lap_{b}": fb, "difference": round(gap, 3)}
    return Answer(text, "telemetry", args, res)

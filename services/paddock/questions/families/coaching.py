"""Coaching answers from the one session analysis (``tools/analysis``, ``shared.analysis``), never
recomputed here: where the time is and which corner first (the opportunities), why a lap was slower (its
corners' losses and causes against the good laps), what is possible (the achievable lap and the
theoretical best), how consistent the laps were, and the threads from the last session. Runs tools
(worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.coaching_lines import opportunities_text, threads_text
from services.paddock.agents.fmt import corner_label, lap_list, laptime, secs
from services.paddock.agents.pace_text import achievable_text, race_pace_text
from services.paddock.questions.families import corners
from services.paddock.questions.families.compare import delta_text
from services.paddock.questions.families.laps import all_laps, named_laps, timed
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.analysis import session_analysis
from services.paddock.tools.registry import run_tool
from shared.analysis.model import CornerLap
from shared.display import lap_time

SHOWN = 3  # the corners a slower lap's answer names


def lose_text(hl: dict[str, Any]) -> str:
    """``get_session_highlights`` as the answer to "where do I lose time?" when no opportunity stands out."""
    if not hl.get("valid_laps"):
        return "No valid lap in this session, so there is no lap time to compare yet."
    opp = [o for o in hl.get("biggest_opportunities") or [] if o.get("time_to_find_s")]
    if not opp:
        why = hl.get("opportunities_reason")
        return f"Best lap {hl['best_lap']} in {laptime(hl['best_lap_s'])}; no corner stands out" + (
            f" ({why})." if why else "."
        )
    return (
        "The most time to find, a lap on the laps it was lost, against your good laps: "
        + "; ".join(f"{corner_label(o['corner'], o.get('name'))} {secs(o['time_to_find_s'], 2)}" for o in opp)
        + f". Best lap {hl['best_lap']} in {laptime(hl['best_lap_s'])}."
    )


def where_time(q: Question, s: dict[str, Any]) -> Answer | None:
    """Where the time is over the session (at one corner: that corner's history and time to find)."""
    sid = str(s["session_id"])
    if q.corner is not None:
        return _at_corner(q, s)
    args = {"session_id": sid}
    opp = run_tool("get_opportunities", args)
    if "error" not in opp and opp.get("opportunities"):
        return Answer(opportunities_text(opp), "get_opportunities", args, opp)
    hl = run_tool("get_session_highlights", args)
    return Answer(lose_text(hl), "get_session_highlights", args, hl)


def _at_corner(q: Question, s: dict[str, Any]) -> Answer | None:
    """ "Am I losing time at turn 7?": the corner's history; with no time to find there this session, where
    the most is instead."""
    got = corners.answer(Question(q.text, "corner", corner=q.corner), s)
    if got is None or got.tool != "get_corner_history" or "sessions" not in got.result:
        return got
    sid = str(s["session_id"])
    this = next((x for x in got.result["sessions"] if x["session_id"] == sid), None)
    if this is None or this.get("laps_lost"):
        return got
    opp = run_tool("get_opportunities", {"session_id": sid})
    top = next(iter(opp.get("opportunities") or []), None) if "error" not in opp else None
    name = corner_label(got.result["corner"], got.result.get("name"))
    text = f"{got.text} No time to find at {name} against your good laps this session"
    if top is None or str(top["corner_id"]).lower() == str(q.corner).lower():
        return Answer(text + ".", got.tool, got.args, got.result)
    where = corner_label(top["corner"], top.get("name"))
    text += f"; the most is at {where}: {secs(top['time_to_find_s'], 2)} a lap on {lap_list(top['laps'])}"
    text += f" ({top['says']})." if top.get("says") else "."
    return Answer(text, got.tool, got.args, got.result | {"most_at": top})


def threads(q: Question, s: dict[str, Any]) -> Answer:
    """The coaching threads from the last session: did the driver fix what it named."""
    args = {"session_id": s["session_id"]}
    out = run_tool("get_threads", args)
    return Answer(threads_text(out), "get_threads", args, out)


def why_slower(q: Question, s: dict[str, Any]) -> Answer | None:
    """Why one lap was slower: against the best lap by distance (``get_lap_delta``), then the corners
    where the session analysis found it lost time against the good laps, with their causes."""
    sid = str(s["session_id"])
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps
    if not laps and q.corner is None:  # "why am I slow?", "the causes of my slow laps": where and why
        return where_time(q, s)
    good = timed(all_laps(sid))
    if not laps or laps[0][0] != sid or not good:
        return None
    n = laps[0][1]
    best = min(good, key=lambda x: x["time_s"])
    if best["lap"] == n:
        t = lap_time(best["time_s"])
        return Answer(
            f"Lap {n} was not slower: it was your best lap, {t}.",
            "laps",
            {"session_id": sid},
            {"lap": n, "lap_time_s": best["time_s"]},
        )
    args = {"session_id": sid, "lap_a": best["lap"], "lap_b": n}
    d = run_tool("get_lap_delta", args)
    if "error" in d:
        return Answer(str(d["error"].get("message")) + ".", "get_lap_delta", args, d)
    text = delta_text(d, s.get("driver_id"))
    lost = sorted(
        (r for r in session_analysis(sid).rows if r.lap == n and r.loss_s > 0.005), key=lambda r: -r.loss_s
    )
    if lost:
        said = [
            f"{r.corner} {r.loss_s:.2f} s" + (f", {r.evidence}" if r.cause and r.evidence else "")
            for r in lost[:SHOWN]
        ]
        text += f" Against your good laps, lap {n} lost the most at " + "; ".join(said) + "."
        d = d | {
            "losses": [
                {"corner": r.corner, "loss_s": round(r.loss_s, 3), "cause": r.cause} for r in lost[:SHOWN]
            ]
        }
    return Answer(text, "get_lap_delta", args, d)


def potential(q: Question, s: dict[str, Any]) -> Answer | None:
    """The achievable lap beside the best lap and the theoretical best."""
    args = {"session_id": s["session_id"]}
    d = run_tool("get_achievable_lap", args)
    if "error" in d:
        return None
    res = {k: d.get(k) for k in ("achievable_s", "best_lap", "best_lap_s", "theoretical_best_s")}
    res |= {"joins": d.get("joins") or [], "segments": d.get("segments") or []}
    res |= {"gain_vs_best_s": d.get("gain_vs_best_s"), "available": d.get("available")}
    return Answer(achievable_text(d), "get_achievable_lap", args, res)


def consistency(q: Question, s: dict[str, Any]) -> Answer:
    """Race pace and consistency (``get_race_pace_model``): the median and quickest lap, the spread, the
    trend over the stint; then the fastest and the slowest lap."""
    sid = str(s["session_id"])
    args = {"session_id": sid}
    good = timed(all_laps(sid))
    if len(good) < 2:
        text = "Consistency needs at least two valid laps; this session has " + ("one." if good else "none.")
        return Answer(text, "get_race_pace_model", args, {"valid_laps": len(good)})
    d = run_tool("get_race_pace_model", args)
    best, slow = min(good, key=lambda y: y["time_s"]), max(good, key=lambda y: y["time_s"])
    text = race_pace_text(d) + (
        f" Fastest lap {best['lap']} in {lap_time(best['time_s'])}, slowest lap {slow['lap']} in "
        f"{lap_time(slow['time_s'])}."
    )
    where = _least_consistent(sid)
    if where:
        text += (
            " Your laps differ most at "
            + "; ".join(
                f"{c} (up to {secs(v, 2)} a lap lost against your good laps, on {lap_list(n)})"
                for c, v, n in where
            )
            + "."
        )
    res = d | {"best_lap": best["lap"], "best_lap_s": best["time_s"], "least_consistent": where}
    res |= {"slowest_lap": slow["lap"], "slowest_lap_s": slow["time_s"], "valid_laps": len(good)}
    return Answer(text, "get_race_pace_model", args, res)


def _least_consistent(sid: str) -> list[tuple[str, float, list[int]]]:
    """The corners where the laps differ most: (corner, the most a lap lost there against your good laps,
    the laps that lost time there), from the session analysis' losses, the largest first."""
    by: dict[str, list[tuple[float, int]]] = {}
    for r in session_analysis(sid).rows:
        if r.cause:  # lost time against the good laps here (``opportunity_min_s`` or more)
            by.setdefault(r.corner, []).append((r.loss_s, r.lap))
    got = [(c, max(v)[0], sorted(n for _, n in v)) for c, v in by.items()]
    return sorted(got, key=lambda x: -x[1])[:SHOWN]


def strengths(q: Question, s: dict[str, Any]) -> Answer:
    """What went well, from the session analysis: the corners where no lap lost time against the good
    laps, the steadiest first (the least spread of the laps' time there against the typical lap); without
    one, the corners fewest laps lost time at. Then the best lap."""
    sid = str(s["session_id"])
    by: dict[str, list[CornerLap]] = {}
    for r in session_analysis(sid).rows:
        if r.to_m > r.from_m:  # a coast through a corner into the next: that lap has no stretch here
            by.setdefault(r.corner, []).append(r)
    good = timed(all_laps(sid))
    best = min(good, key=lambda y: y["time_s"]) if good else None
    res: dict[str, Any] = {"best_lap": best["lap"] if best else None}
    res["best_lap_s"] = best["time_s"] if best else None
    if not by:
        text = "No valid full lap to analyse corner by corner, so nothing to pick out yet."
        return Answer(text, "session_analysis", {"session_id": sid}, res | {"corners": []})
    clean = [
        (max(x.loss_s for x in v) - min(x.loss_s for x in v), c, len(v))
        for c, v in by.items()
        if len(v) > 1 and not any(x.cause for x in v)
    ]
    if clean:
        top = sorted(clean)[:SHOWN]
        text = "What went well: no lap lost time against your good laps at " + "; ".join(
            f"{c} (your {n} laps within {secs(w, 2)} of each other there)" for w, c, n in top
        )
        res["corners"] = [{"corner": c, "laps": n, "spread_s": round(w, 3)} for w, c, n in top]
    else:
        few = sorted((sum(bool(x.cause) for x in v), c, len(v)) for c, v in by.items())[:SHOWN]
        text = "Every corner had a lap that lost time against your good laps; the fewest at " + "; ".join(
            f"{c} ({k} of {n} laps)" for k, c, n in few
        )
        res["corners"] = [{"corner": c, "laps": n, "laps_lost": k} for k, c, n in few]
    if best is not None:
        text += f". Your best lap: lap {best['lap']} in {lap_time(best['time_s'])}"
    return Answer(text + ".", "session_analysis", {"session_id": sid}, res)

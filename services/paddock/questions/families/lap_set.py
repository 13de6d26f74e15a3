"""A set of laps asked about together: the laps a question names as a set ("my last 3 laps", "laps 3 to 6",
"the first five laps", "my 3 best laps") or every lap ("my lap times", "analyse my laps"): each lap's time,
then the best, the average and the spread (best to slowest) of the set; and how many laps were within a
closeness of the best ("were my laps within half a second?"). Runs SQL (worker thread)."""

from __future__ import annotations

import statistics
from typing import Any

from services.paddock.questions.families.laps import all_laps, laps_said, named_laps, timed
from services.paddock.questions.model import Answer, Question
from shared.display import lap_time

SHOWN = 12  # a longer set names its laps' times up to here, then gives the figures of all of them


def asks(q: Question) -> bool:
    """Whether ``q`` asks about a set of laps' times (or the laps within a closeness of the best)."""
    if q.measure not in (None, "lap_time") or q.corner is not None or q.sector is not None:
        return False
    closeness = q.within_s is not None or q.under_s is not None or q.target_s is not None
    if q.intent == "lap_time" and (closeness or (q.aggregation == "each_lap" and not q.laps)):
        return True
    here = all(x.session == "this" for x in q.laps)
    total = sum(x.count for x in q.laps)  # "the delta between my two best laps": a comparison of the two
    named = len(q.laps) >= 3 or (total > len(q.laps) and not (q.intent == "compare" and total == 2))
    return q.intent in ("lap_time", "compare", "consistency") and here and named


def _figures(good: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    best = min(good, key=lambda x: x["time_s"])
    slow = max(good, key=lambda x: x["time_s"])
    mean = sum(x["time_s"] for x in good) / len(good)
    median = statistics.median(x["time_s"] for x in good)
    spread = slow["time_s"] - best["time_s"]
    text = f"Best lap {best['lap']} in {lap_time(best['time_s'])}"
    if len(good) > 1:
        text += f", median {lap_time(median)}, average {lap_time(mean)}"
        text += f", slowest lap {slow['lap']} in {lap_time(slow['time_s'])}. Best to slowest: {spread:.3f} s;"
        text += f" the median {median - best['time_s']:.3f} s and the average {mean - best['time_s']:.3f} s off the best."
    else:
        text += "."
    res = {
        "best_lap": best["lap"],
        "best_lap_s": best["time_s"],
        "average_lap_s": mean,
        "median_lap_s": median,
    }
    return text, res | {
        "slowest_lap": slow["lap"],
        "slowest_lap_s": slow["time_s"],
        "spread_s": round(spread, 3),
    }


def _within(sid: str, good: list[dict[str, Any]], within_s: float) -> Answer:
    best = min(good, key=lambda x: x["time_s"])
    close = [x["lap"] for x in good if x["time_s"] - best["time_s"] <= within_s + 1e-9]
    were = "was" if len(close) == 1 else "were"
    text = f"{len(close)} of your {len(good)} valid laps {were} within {within_s:g} s of your best"
    text += f" (lap {best['lap']}, {lap_time(best['time_s'])})."
    text += f" L{laps_said(close)[1:]}." if len(close) > 1 else " Only the best itself."
    res = {"within_s": within_s, "laps_within": close, "valid_laps": len(good)}
    res |= {"best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return Answer(text, "laps", {"session_id": sid}, res)


def _under(sid: str, good: list[dict[str, Any]], under_s: float) -> Answer:
    """The valid laps quicker than a lap time asked ("how many laps under 1:36?"), named; none: how far the
    best was from it."""
    best = min(good, key=lambda x: x["time_s"])
    quick = [x["lap"] for x in good if x["time_s"] < under_s]
    said = lap_time(under_s)
    if not quick:
        text = f"None of your {len(good)} valid laps was under {said}: your best, lap {best['lap']} in"
        text += f" {lap_time(best['time_s'])}, was {best['time_s'] - under_s:.3f} s off it."
    else:
        were = "was" if len(quick) == 1 else "were"
        text = f"{len(quick)} of your {len(good)} valid laps {were} under {said}: {laps_said(quick)}."
        text += f" Your best, lap {best['lap']}, {lap_time(best['time_s'])}."
    res = {"under_s": under_s, "laps_under": quick, "valid_laps": len(good)}
    res |= {"best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return Answer(text, "laps", {"session_id": sid}, res)


def _target(sid: str, good: list[dict[str, Any]], target_s: float) -> Answer:
    """The best lap against a lap time aimed at ("did I break 1:36?", "how close did I get to a 1:35?"):
    how far under or off it, and how many valid laps were under it (the time is the driver's own: not
    said back as a figure of the data)."""
    best = min(good, key=lambda x: x["time_s"])
    quick = [x["lap"] for x in good if x["time_s"] < target_s]
    gap = best["time_s"] - target_s
    lap = f"your best lap, lap {best['lap']} in {lap_time(best['time_s'])}, was"
    if gap < 0:
        were = (
            f"{len(quick)} of your {len(good)} valid laps were" if len(quick) > 1 else "the only lap that was"
        )
        text = f"Yes: {lap} {-gap:.3f} s under it; {were}."
    else:
        text = f"Not yet: {lap} {gap:.3f} s off it." if gap > 0 else f"Exactly: {lap} right on it."
    res = {"target_s": target_s, "gap_s": round(gap, 3), "laps_under": quick, "valid_laps": len(good)}
    res |= {"best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return Answer(text, "laps", {"session_id": sid}, res)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    """Each lap's time of the set with its best, average and spread; or the laps within ``q.within_s``."""
    sid = str(s["session_id"])
    every = all_laps(sid)
    good = timed(every)
    if not good:
        text = "No valid lap in this session, so there is no lap time to give."
        return Answer(text, "laps", {"session_id": sid}, {"valid_laps": 0})
    if q.within_s is not None:
        return _within(sid, good, q.within_s)
    if q.under_s is not None:
        return _under(sid, good, q.under_s)
    if q.target_s is not None:
        return _target(sid, good, q.target_s)
    named = named_laps(q, s)
    if isinstance(named, Answer):
        return named
    wanted = sorted({lap for _, lap in named}) if named else [x["lap"] for x in good]
    by = {x["lap"]: x for x in every}
    have = [by[n] for n in wanted if n in by and by[n] in good]
    rest = [n for n in wanted if n not in [x["lap"] for x in have]]
    head = f"L{laps_said(wanted)[1:]}" if named else f"Your {len(good)} valid laps"
    shown = "; ".join(f"lap {x['lap']} {lap_time(x['time_s'])}" for x in have[:SHOWN])
    text = f"{head}: {shown}" + ("; …" if len(have) > SHOWN else "") + "."
    if rest:
        text += " No lap time for " + ", ".join(f"lap {n}" for n in rest) + " (not a valid timed lap)."
    res: dict[str, Any] = {"laps": {x["lap"]: x["time_s"] for x in have}, "no_time": rest}
    if have:
        figures, more = _figures(have)
        text += " " + figures
        res |= more
    return Answer(text, "laps", {"session_id": sid, "laps": wanted}, res)

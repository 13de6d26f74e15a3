"""Sector times (``tools/sectors``: the lap cut at every corner's entry): a sector's best and its lap, a
lap's sectors against the best ones (where it lost time), the sector the time goes in over the session,
and the best sectors added up (the theoretical best). A sector or lap the session does not have is said
so, never another figure. Runs tools (worker thread)."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.families.laps import named_laps
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.sectors import sector_times
from shared.display import lap_time


def _name(x: dict[str, Any]) -> str:
    return f"sector {x['sector']} ({x['from']} to {x['to']})"


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    sid = str(s["session_id"])
    args: dict[str, Any] = {"session_id": sid}
    d = sector_times(sid)
    if not d.get("available"):
        return Answer(
            f"There are no sector times: {d.get('reason')}.", "sector_times", args, {"available": False}
        )
    secs = d["sectors"]
    res: dict[str, Any] = {k: d[k] for k in ("best_lap", "best_lap_s", "theoretical_best_s")}
    res["sector_count"] = len(secs)
    if len(secs) < 2:
        text = (
            "This session has no sectors: its track has no corner zones to cut the lap at, so the only "
            f"split is the lap itself (best lap {d['best_lap']} in {lap_time(d['best_lap_s'])})."
        )
        return Answer(text, "sector_times", args, res | {"recorded": False})
    k = q.sector
    if k is not None and not 1 <= k <= len(secs):
        text = f"There is no sector {k}: this session's laps have {len(secs)} sectors, one per corner entry."
        return Answer(text, "sector_times", args, res | {"sector": k, "recorded": False})
    laps = named_laps(q, s)
    if isinstance(laps, Answer):
        return laps
    n = laps[0][1] if laps and laps[0][0] == sid else None
    if n is not None and n not in d["laps"]:
        text = f"Lap {n} has no sector times: it is not a valid timed lap of this session."
        return Answer(text, "sector_times", args, res | {"lap": n, "laps": d["laps"]})
    if n is not None:
        return Answer(_on_lap(n, k, d, res), "sector_times", args | {"lap": n}, res)
    if k is not None:
        x = secs[k - 1]
        on_best = x["times_s"][d["best_lap"]]
        res |= {"sector": k, "sector_best_s": x["best_s"], "sector_best_lap": x["best_lap"]}
        res |= {"sector_on_best_lap_s": on_best, "sector_median_s": x["median_s"]}
        text = f"Your best {_name(x)} was {x['best_s']:.3f} s, on lap {x['best_lap']}."
        if x["best_lap"] != d["best_lap"]:
            text += f" Your best lap, lap {d['best_lap']}, did it in {on_best:.3f} s."
        text += f" Typical: {x['median_s']:.3f} s."
        return Answer(text, "sector_times", args | {"sector": k}, res)
    if q.intent == "where_time":  # over the session: typical minus best, biggest first
        worst = sorted(secs, key=lambda x: -(x["median_s"] - x["best_s"]))[:3]
        res["sectors"] = [
            {"sector": x["sector"], "gap_s": round(x["median_s"] - x["best_s"], 3), "best_lap": x["best_lap"]}
            for x in worst
        ]
        text = "The most time between your typical and your best sector: " + "; ".join(
            f"{_name(x)} {x['median_s'] - x['best_s']:.3f} s a lap (best on lap {x['best_lap']})"
            for x in worst
        )
        return Answer(text + ".", "sector_times", args, res)
    res["best_sectors"] = [{"sector": x["sector"], "best_s": x["best_s"], "lap": x["best_lap"]} for x in secs]
    gap = d["best_lap_s"] - d["theoretical_best_s"]
    res["theoretical_gain_s"] = round(gap, 3)
    text = (
        f"Your best sectors added up make a theoretical best of {lap_time(d['theoretical_best_s'])}, "
        f"{gap:.3f} s under your best lap (lap {d['best_lap']}, {lap_time(d['best_lap_s'])}). "
    )
    text += f"Best of each of the {len(secs)} sectors (corner entry to corner entry): " + "; ".join(
        f"S{x['sector']} {x['best_s']:.3f} s (lap {x['best_lap']})" for x in secs
    )
    return Answer(text + ".", "sector_times", args, res)


def _on_lap(n: int, k: int | None, d: dict[str, Any], res: dict[str, Any]) -> str:
    """Lap ``n``'s sectors against the best ones: the one asked, or where it lost the most."""
    secs = d["sectors"]
    lost = [(x, x["times_s"][n] - x["best_s"]) for x in secs]
    res |= {"lap": n, "lap_time_s": d["lap_times_s"][n]}
    res["lap_sectors_s"] = {x["sector"]: x["times_s"][n] for x in secs}
    res["lost_s"] = {x["sector"]: round(g, 3) for x, g in lost}
    if k is not None:
        x, g = lost[k - 1]
        text = f"Lap {n}, {_name(x)}: {x['times_s'][n]:.3f} s; your best is {x['best_s']:.3f} s, on lap "
        return text + f"{x['best_lap']}" + (f", {g:.3f} s quicker." if g > 0.0005 else ": this was it.")
    top = sorted(lost, key=lambda y: -y[1])[:3]
    total = d["lap_times_s"][n] - d["theoretical_best_s"]
    res["lap_minus_theoretical_s"] = round(total, 3)
    if top[0][1] < 0.0005:
        return f"Lap {n} was your best in every sector."
    text = (
        f"Lap {n} ({lap_time(d['lap_times_s'][n])}) lost the most against your best sectors in "
        + "; ".join(f"{_name(x)} {g:.3f} s (best on lap {x['best_lap']})" for x, g in top if g >= 0.0005)
    )
    return text + f". In all it was {total:.3f} s over your best sectors added up."

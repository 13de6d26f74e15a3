"""Driver-question routes about one lap and about the car's events, answered straight from the lake: the
time of a named lap, a
channel's peak on a named lap, car-health readings by lap (which lap the oil pressure dropped on), the
traction and driver-aid events by corner and lap, and the driver's sessions at this track. Each answer
leads with the sentence that answers the question (the narrator's ``f1``). Runs SQL (worker thread).
"""

from __future__ import annotations

import re
from typing import Any

from services.paddock.agents.data_answer import DataAnswer
from shared.display import lap_time

_ONE_LAP = re.compile(r"\blap\s+(\d{1,4})\b")
_CMP = re.compile(r"\b(?:vs\.?|versus|compare|compared|than|why|slower|faster|differ|difference|between)\b")


def _rows(sql: str, params: list[Any]) -> list[dict[str, Any]]:
    from services.paddock.tools.base import rows

    return rows(sql, params)


def _one_lap(q: str) -> int | None:
    laps = {int(x) for x in _ONE_LAP.findall(q)}
    return laps.pop() if len(laps) == 1 and not _CMP.search(q) else None


def _valid(sid: str) -> list[dict[str, Any]]:
    return _rows(
        "SELECT lap, time_s FROM laps WHERE session_id = ? AND kind = 'full' AND valid AND time_s IS NOT NULL "
        "ORDER BY lap",
        [sid],
    )


def _n(x: float, nd: int = 1) -> str:
    return f"{round(float(x), nd):g}"


def lap_time_of(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """ "What was my lap time on lap 6?", "how long did lap 6 take?": the lap's time, then against the best."""
    n = _one_lap(q)
    if n is None or not re.search(
        r"\b(?:lap ?time|time (?:on|for|of|did)|how long|how (?:fast|quick) was|what did i (?:do|run|get|clock|lap)|"
        r"what was lap|timed?|clock|what did lap \d+ take|what did i go|off (?:my )?best|(?:behind|from) my best)",
        q,
    ):
        return None
    if re.search(r"\b(?:speed|rpm|revs?|turn|corner|brak|throttle|oil|coolant|water|temp|pressure)\b", q):
        return None
    sid = s["session_id"]
    laps = _valid(sid)
    this = next((x for x in laps if x["lap"] == n), None)
    if this is None:
        return None  # not a timed lap: the missing-lap route has said so already
    best = min(laps, key=lambda x: x["time_s"])
    text = f"Lap {n} took {lap_time(this['time_s'])}."
    gap = this["time_s"] - best["time_s"]
    if best["lap"] == n:
        text += f" It was your best lap of {len(laps)} valid laps."
    else:
        text += f" Your best, lap {best['lap']}, was {lap_time(best['time_s'])}, {gap:.3f} s quicker."
    res = {"lap": n, "lap_time_s": this["time_s"], "best_lap": best["lap"], "best_lap_s": best["time_s"]}
    return DataAnswer(text, "laps", {"session_id": sid, "lap": n}, res | {"gap_to_best_s": round(gap, 3)})


def peak_on_lap(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Top speed or highest rpm on a named lap."""
    n = _one_lap(q)
    if n is None:
        return None
    col, what, agg = None, "", "max"
    if re.search(r"top speed|max(?:imum)? speed|highest speed|fastest speed|v ?max|how fast did i go", q):
        col, what = "speed_kmh", "top speed"
    elif re.search(r"(?:lowest|min(?:imum)?|slowest) speed", q):
        col, what, agg = "speed_kmh", "lowest speed", "min"
    elif re.search(r"\brpm\b|\brevs?\b|\brev(?:ved)?\b|engine speed", q):
        col, what = "rpm", "highest engine speed"
    if col is None:
        return None
    sid = s["session_id"]
    try:
        r = _rows(f"SELECT {agg}({col}) AS hi FROM telemetry WHERE session_id = ? AND lap = ?", [sid, n])
    except Exception:  # a lake without the column
        return None
    if not r or r[0]["hi"] is None:
        return None
    v = float(r[0]["hi"])
    shown = f"{v:.1f} km/h ({v / 1.609344:.1f} mph)" if col == "speed_kmh" else f"{v:.0f} rpm"
    text = f"Your {what} on lap {n} was {shown}."
    return DataAnswer(text, "telemetry", {"session_id": sid, "lap": n}, {"lap": n, f"{agg}_{col}": v})


def average_speed(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """ "What's my average speed?": the mean of the speed samples over the valid laps (or the named lap)."""
    if not re.search(r"\b(?:average|mean|avg)\b.{0,10}\bspeed", q):
        return None
    sid, n = s["session_id"], _one_lap(q)
    where, params = ("", [sid]) if n is None else (" AND t.lap = ?", [sid, n])
    r = _rows(
        "SELECT avg(t.speed_kmh) AS v, count(DISTINCT t.lap) AS laps FROM telemetry t JOIN laps l "
        f"USING (session_id, lap) WHERE t.session_id = ? AND l.kind = 'full' AND l.valid{where}",
        params,
    )
    if not r or r[0]["v"] is None:
        return None
    v, laps = float(r[0]["v"]), int(r[0]["laps"])
    scope = f"on lap {n}" if n is not None else f"over your {laps} valid laps"
    text = f"Your average speed {scope} was {v:.1f} km/h ({v / 1.609344:.1f} mph)."
    return DataAnswer(
        text, "telemetry", {"session_id": sid}, {"average_speed_kmh": round(v, 1), "valid_laps": laps}
    )


def lap_count(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """ "How many laps did I do?": the laps recorded, how many were valid timed laps, and the others."""
    if not re.search(r"how many laps|number of laps|lap count", q):
        return None
    sid = s["session_id"]
    laps = _rows("SELECT lap, kind, valid, time_s FROM laps WHERE session_id = ? ORDER BY lap", [sid])
    timed = [x for x in laps if x["kind"] == "full" and x["valid"] and x["time_s"] is not None]
    rest = [x for x in laps if x not in timed]
    text = f"You have {len(timed)} valid timed laps this session"
    if rest:
        names = {"out": "out lap", "in": "in lap"}
        text += ", plus " + ", ".join(
            f"lap {x['lap']} ({names.get(str(x['kind']), 'not valid')})" for x in rest
        )
    text += f": {len(laps)} laps recorded."
    res = {"valid_laps": len(timed), "laps_recorded": len(laps), "other_laps": [x["lap"] for x in rest]}
    return DataAnswer(text, "laps", {"session_id": sid}, res)


def health_by_lap(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """ "Did my oil pressure drop?", "did it overheat?": the engine health timeline, by lap."""
    oil = re.search(r"\boil press", q) or (re.search(r"\boil\b", q) and re.search(r"\bpressure\b", q))
    hot = re.search(r"coolant|water|overheat|engine temp|(?:engine|car|motor)\b.{0,20}\b(?:hot|heat)", q)
    if _ONE_LAP.search(q) or re.search(r"\b(?:lowest|highest|max|min|peak)", q):
        return None  # a reading asked for (over a lap): the channel's range answers it
    if not (oil or hot) or not re.search(
        r"drop|fall|fell|\blow\b|lose|lost|dip|any point|ever|at all|problem|"
        r"issue|warning|overheat|too hot|\bhot\b|spike|which lap|when",
        q,
    ):
        return None
    from services.paddock.tools.registry import run_tool

    sid = s["session_id"]
    h = run_tool("get_engine_health_timeline", {"session_id": sid})
    laps = [x for x in h.get("laps") or [] if isinstance(x, dict)]
    key, flagged, what, unit = (
        ("oil_floor_under_load_bar", h.get("oil_pressure_low_laps"), "oil pressure under load", "bar")
        if oil
        else ("water_max_c", h.get("coolant_hot_laps"), "coolant temperature", "°C")
    )
    vals = [(x["lap"], x[key]) for x in laps if x.get(key) is not None]
    if "error" in h or not vals:
        return None
    pick = min if oil else max
    worst_lap, worst = pick(vals, key=lambda v: v[1])
    if flagged:
        laps_said = " and ".join(f"lap {n}" for n in flagged)
        text = f"Yes: the {what} {'dropped' if oil else 'ran hot'} on {laps_said}, "
        text += f"{'down to' if oil else 'up to'} {worst:.1f} {unit} on lap {worst_lap}."
        others = [v for n, v in vals if n not in flagged]
        if others:
            text += f" On the other laps it stayed {'at or above' if oil else 'at or below'} "
            text += f"{(min if oil else max)(others):.1f} {unit}."
    else:
        text = f"No: the {what} held on every lap; its {'lowest' if oil else 'highest'} was {worst:.1f} "
        text += f"{unit}, on lap {worst_lap}."
    res = {"flagged_laps": flagged or [], "worst_lap": worst_lap, f"worst_{key}": worst}
    res |= {f"{key}_lap_{n}": v for n, v in vals}
    return DataAnswer(text, "get_engine_health_timeline", {"session_id": sid}, res)


_EVENTS = (
    (r"\block(?:ed|ing|s)?\b|\block ?ups?\b", "get_traction_events", "lockup", "lockups"),
    (r"\bdsc\b|stability control|traction control|\btc\b", "get_safety_events", "dsc", "DSC interventions"),
    (
        r"wheel ?spin|\bspun\b|spin(?:ning)? the (?:wheels|tyres|tires)|\btraction\b",
        "get_traction_events",
        "wheelspin",
        "wheelspin",
    ),
    (r"\babs\b|anti.?lock", "get_safety_events", "abs", "ABS interventions"),
)


def events_where(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Lockups, wheelspin, ABS and DSC: how many, at which corners, on which laps (or "not recorded")."""
    hit = next((e for e in _EVENTS if re.search(e[0], q)), None)
    if hit is None:
        return None
    _, tool, kind, label = hit
    from services.paddock.tools.registry import run_tool

    sid = s["session_id"]
    r = run_tool(tool, {"session_id": sid})
    if "error" in r:
        return None
    if r.get("recorded") is False and not (r.get("counts") or {}).get(kind):
        why = r.get("not_recorded") or "the channels they need are not recorded in this session"
        text = f"{label[0].upper()}{label[1:]} cannot be measured: {why[0].lower()}{why[1:].rstrip('.')}."
        return DataAnswer(text, tool, {"session_id": sid}, {"recorded": False})
    evs = [e for e in r.get("events") or [] if e.get("kind") == kind]
    if not evs:
        return DataAnswer(f"No {label} this session.", tool, {"session_id": sid}, {"count": 0})
    by: dict[str, list[int]] = {}
    for e in evs:
        by.setdefault(str(e.get("corner") or "off-corner").upper(), []).append(int(e["lap"]))
    where = "; ".join(
        f"at {c} on lap{'s' if len(v) > 1 else ''} {', '.join(map(str, v))}" for c, v in by.items()
    )
    text = f"Yes, {len(evs)} {label}: {where}."
    return DataAnswer(text, tool, {"session_id": sid}, {"count": len(evs), "events": evs})


def sessions_here(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """The driver's sessions at this track: how many, the best lap across them, the other ones."""
    if not re.search(
        r"\b(other|previous|last|earlier|all|both) sessions?\b|\bmy sessions\b|sessions? (at|with|in|here)\b|"
        r"how many (?:sessions|times)|\bever\b.*\bbest\b|\bbest\b.*\bever\b|all.?time",
        q,
    ):
        return None
    got = _rows(
        """SELECT s.session_id, CAST(s.started_at AS VARCHAR) AS started, s.car_id,
                  min(l.time_s) FILTER (WHERE l.kind = 'full' AND l.valid) AS best_s
           FROM sessions s LEFT JOIN laps l USING (session_id)
           WHERE s.driver_id IS NOT DISTINCT FROM ? AND s.track_id IS NOT DISTINCT FROM ?
           GROUP BY ALL ORDER BY started DESC NULLS LAST, s.session_id DESC LIMIT 20""",
        [s.get("driver_id"), s.get("track_id")],
    )
    sid, track = s["session_id"], s.get("track_id")
    others = [g for g in got if g["session_id"] != sid]

    def name(g: dict[str, Any]) -> str:
        if g["session_id"] == sid:
            return "this session"
        return f"{g['session_id']} ({str(g['started'] or '')[:10] or 'date unknown'})"

    def best(g: dict[str, Any]) -> str:
        return f"best {lap_time(g['best_s'])}" if g["best_s"] is not None else "no valid lap"

    timed = [g for g in got if g["best_s"] is not None]
    lines = []
    if re.search(r"how many", q):
        lines.append(f"You have {len(got)} session{'s' if len(got) != 1 else ''} at {track} in the lake.")
    if re.search(r"\b(best|fastest|quickest|pb)\b", q) and timed and not re.search(r"\bother\b", q):
        top = min(timed, key=lambda g: g["best_s"])
        lines.append(
            f"Your best lap at {track} across your {len(got)} sessions is {lap_time(top['best_s'])}, in "
            f"{name(top)}."
        )
    if not others:
        lines.append(f"No other session of yours at {track} is in the lake.")
    else:
        lines.append(
            f"Your other sessions at {track}: " + "; ".join(f"{name(g)}: {best(g)}" for g in others) + "."
        )
    res = {"sessions_here": len(got), "sessions": [dict(g) for g in got]}
    return DataAnswer(" ".join(lines), "sessions", {"session_id": sid}, res)

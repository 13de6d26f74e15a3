"""Driver-question routes answered straight from the lake, before any specialist: a lap of another
session (``other_lap``), best, slowest and average lap, top speed, rpm, consistency, a lap the session
does not have, a channel the file does not record, the warnings and alarms set (``alarm_routes``),
and (``lap_routes``) a named lap, a corner on it,
car-health and traction events by lap and the driver's sessions at the track ("not recorded", said
plainly). Each answer is Pitwall's own sentences (times as m:ss.sss) with the figures it used kept as its
result, for the narrator's fact sheet and the grounding check. Runs SQL (call it in a worker thread).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from services.paddock.agents import (
    alarm_routes,
    corner_routes,
    gear_routes,
    lap_routes,
    potential_routes,
    sector_routes,
)
from services.paddock.agents.classifier import FALLBACK, _classify_intent
from services.paddock.agents.data_answer import DataAnswer
from services.paddock.agents.other_lap import other_lap
from services.paddock.agents.question_words import name_laps, normal_question
from services.paddock.agents.routes_coaching import opportunities, threads
from shared.display import lap_time

Route = Callable[[str, dict[str, Any]], DataAnswer | None]

# words a driver uses for a channel -> (telemetry columns, what to call it)
CHANNEL_WORDS: list[tuple[str, tuple[str, ...], str]] = [
    (r"oil press", ("oil_press_bar",), "oil pressure"),
    (
        r"oil temp|(?:hot|heat|temperature).{0,20}\boil\b|\boil\b.{0,20}(?:hot|heat)",
        ("oil_temp_c",),
        "oil temperature",
    ),
    (r"coolant|\bwater\b|engine temp", ("water_temp_c",), "coolant temperature"),
    (r"fuel press", ("fuel_press_bar",), "fuel pressure"),
    (r"fuel level|how much fuel", ("fuel_level_l",), "fuel level"),
    (
        r"tyre press|tire press|tpms",
        tuple(f"tpms_press_{w}_bar" for w in ("fl", "fr", "rl", "rr")),
        "tyre pressure",
    ),
    (r"tyre temp|tire temp", tuple(f"tpms_temp_{w}_c" for w in ("fl", "fr", "rl", "rr")), "tyre temperature"),
    (r"throttle", ("throttle_pct",), "throttle position"),
    (r"brake press|how hard.{0,25}\bbrak|\bbrak\w* (?:hard|pressure)", ("brake_bar",), "brake pressure"),
    (r"\bgears?\b", ("gear",), "gear"),
    (r"steering", ("steer_deg",), "steering angle"),
    (r"battery|voltage", ("battery_v",), "battery voltage"),
    (r"\brpm\b|\brevs?\b|engine speed", ("rpm",), "engine speed (rpm)"),
    (r"lateral g|\bg.?forces?\b|cornering g|\bg lat", ("g_lat",), "lateral acceleration"),
    (r"top speed|max(?:imum)? speed|highest speed|v ?max|how fast", ("speed_kmh",), "speed"),
]


def _rows(sql: str, params: list[Any]) -> list[dict[str, Any]]:
    from services.paddock.tools.base import rows

    return rows(sql, params)


def _laps(sid: str) -> list[dict[str, Any]]:
    return _rows("SELECT lap, kind, valid, time_s FROM laps WHERE session_id = ? ORDER BY lap", [sid])


def _valid(laps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in laps if x["kind"] == "full" and x["valid"] and x["time_s"] is not None]


def _no_valid(s: dict[str, Any]) -> DataAnswer:
    return DataAnswer(
        "No valid lap in this session, so there is no lap time to give.",
        "laps",
        {"session_id": s["session_id"]},
    )


def _channel_max(sid: str, cols: tuple[str, ...]) -> dict[str, float | None]:
    sel = ", ".join(f"max({c}) AS {c}" for c in cols)
    r = _rows(f"SELECT {sel} FROM telemetry WHERE session_id = ?", [sid])
    return r[0] if r else {c: None for c in cols}


def missing_lap(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """A question about a lap the session does not have, or one that is not a timed lap."""
    asked = [int(x) for x in re.findall(r"\blaps?\s+(\d{1,4})\b", q)]
    asked += [int(x) for x in re.findall(r"\b(?:and|vs\.?|with|to)\s+(\d{1,4})\b", q) if "lap" in q]
    if not asked:
        return None
    laps = _laps(s["session_id"])
    by = {x["lap"]: x for x in laps}
    for n in asked:
        if n not in by:
            have = f"laps {min(by)} to {max(by)}" if by else "no laps"
            text = f"There is no lap {n} in this session: it has {have}."
            return DataAnswer(text, "laps", {"session_id": s["session_id"], "lap": n}, {"laps": sorted(by)})
        x = by[n]
        if x["kind"] != "full" or not x["valid"]:
            what = {"out": "an out lap", "in": "an in lap"}.get(str(x["kind"]), "not a valid timed lap")
            text = f"Lap {n} was {what}, so it has no lap time to compare."
            return DataAnswer(text, "laps", {"session_id": s["session_id"], "lap": n}, {"lap": n})
    return None


def lap_times(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Best, slowest or average lap."""
    best = re.search(r"\b(best|fastest|quickest|pb)\b|personal best", q)
    slow = re.search(r"\b(slowest|worst)\b", q)
    avg = re.search(r"\b(average|mean|typical)\b", q)
    if not (best or slow or avg) or (best and slow) or re.search(r"\bvs\b|compare|than", q):
        return None
    if not re.search(r"\blap|time|pace|pb\b|personal best", q):
        return None
    laps = _valid(_laps(s["session_id"]))
    if not laps:
        return _no_valid(s)
    sid = s["session_id"]
    if avg:
        mean = sum(x["time_s"] for x in laps) / len(laps)
        text = f"Your average lap was {lap_time(mean)} over {len(laps)} valid laps."
        return DataAnswer(text, "laps", {"session_id": sid}, {"average_lap_s": mean, "valid_laps": len(laps)})
    x = (min if best else max)(laps, key=lambda y: y["time_s"])
    word = "best" if best else "slowest"
    text = f"Your {word} lap was lap {x['lap']} in {lap_time(x['time_s'])}, of {len(laps)} valid laps."
    return DataAnswer(
        text,
        "laps",
        {"session_id": sid},
        {f"{word}_lap": x["lap"], f"{word}_lap_s": x["time_s"], "valid_laps": len(laps)},
    )


def channel(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Top speed and rpm from the telemetry; any channel the file lacks is "not recorded"."""
    for pat, cols, what in CHANNEL_WORDS:
        if not re.search(pat, q):
            continue
        try:
            got = _channel_max(s["session_id"], cols)
        except Exception:  # a lake without the column at all
            got = {c: None for c in cols}
        if all(got.get(c) is None for c in cols):
            text = f"{what[0].upper()}{what[1:]} is not recorded in this session's file."
            return DataAnswer(text, "telemetry", {"session_id": s["session_id"]}, {"recorded": False})
        if cols == ("speed_kmh",):
            v = float(got["speed_kmh"] or 0)
            text = f"Your top speed was {v:.1f} km/h ({v / 1.609344:.1f} mph)."
            return DataAnswer(text, "telemetry", {"session_id": s["session_id"]}, {"top_speed_kmh": v})
        if cols == ("rpm",):
            v = float(got["rpm"] or 0)
            text = f"Your highest engine speed was {v:.0f} rpm."
            return DataAnswer(text, "telemetry", {"session_id": s["session_id"]}, {"max_rpm": v})
        return _range(q, s, cols, what)
    return None


# a recorded channel's unit as a driver reads it, from its column name
_UNIT_OF = {"g_lat": "g", "_bar": "bar", "_c": "°C", "_l": "l", "_pct": "%", "_deg": "°", "_v": "V"}


def _range(q: str, s: dict[str, Any], cols: tuple[str, ...], what: str) -> DataAnswer | None:
    """Highest and lowest of a recorded channel, over the session or the lap the question names."""
    unit = next((u for suf, u in _UNIT_OF.items() if cols[0].endswith(suf)), "")
    if not unit:
        return None
    lap = re.search(r"\blap (\d+)\b", q)
    where, params = (
        ("", [s["session_id"]]) if lap is None else (" AND lap = ?", [s["session_id"], int(lap.group(1))])
    )
    sel = ", ".join(f"min({c}) AS lo_{i}, max({c}) AS hi_{i}" for i, c in enumerate(cols))
    r = _rows(f"SELECT {sel} FROM telemetry WHERE session_id = ?{where}", params)
    los = [r[0][f"lo_{i}"] for i in range(len(cols)) if r and r[0][f"lo_{i}"] is not None]
    his = [r[0][f"hi_{i}"] for i in range(len(cols)) if r and r[0][f"hi_{i}"] is not None]
    if not los:
        return None
    lo, hi, nd = float(min(los)), float(max(his)), 2 if unit == "g" else 1
    scope = f"on lap {lap.group(1)}" if lap else "this session"
    text = f"{what[0].upper()}{what[1:]} {scope}: highest {hi:.{nd}f} {unit}, lowest {lo:.{nd}f} {unit}."
    res = {f"{cols[0]}_max": round(hi, nd), f"{cols[0]}_min": round(lo, nd)}
    return DataAnswer(text, "telemetry", {"session_id": s["session_id"]}, res)


# a question with none of these words is not about driving data: Pitwall says so instead of guessing
_DRIVING = re.compile(
    r"\b(lap|laps|corner|turn|t\d|brak|throttle|speed|fast|slow|time\b|session|tyre|tire|oil|coolant|water|"
    r"engine|rpm|rev|gear|v ?max|g.?force|lateral|line|apex|lose|losing|lost|gain|grip|abs|dsc|lock|spin|car|track|driv|steer|"
    r"consist[ae]n|sector|pressure|temp|fuel|delta|debrief|brief|coach|better|improve|where|why|how did|"
    r"best|worst|quick|pb\b|personal|finish|start|pit|kerb|curb|wheel|rain|wet|setup|balance|under|over|pace|"
    r"stint|race|racing|qualif|tenths|stability|traction|intervene|overheat|hot\b|work on|opportunit|thread|"
    r"alarm|warn|alert)"
)


def unrelated(q: str, s: dict[str, Any]) -> DataAnswer | None:
    """Declined only when neither the routing table (one place: the classifier) nor a driving word
    recognises the question."""
    if _DRIVING.search(q) or _classify_intent(q) != FALLBACK:
        return None
    return DataAnswer(
        "I can only answer questions about your driving data: laps, corners, braking, speed and the car's "
        "channels in this session.",
        "none",
        {"session_id": s["session_id"]},
        {"declined": True},
    )


def consistency(q: str, s: dict[str, Any]) -> DataAnswer | None:
    if not re.search(r"\bconsist[ae]n|\bspread\b|\bvariance\b|\brepeatab", q):
        return None
    laps = _valid(_laps(s["session_id"]))
    if len(laps) < 2:
        return DataAnswer(
            "Consistency needs at least two valid laps; this session has " + ("one." if laps else "none."),
            "laps",
            {"session_id": s["session_id"]},
            {"valid_laps": len(laps)},
        )
    t = [x["time_s"] for x in laps]
    mean = sum(t) / len(t)
    std = (sum((x - mean) ** 2 for x in t) / len(t)) ** 0.5
    best, slow = min(laps, key=lambda y: y["time_s"]), max(laps, key=lambda y: y["time_s"])
    text = (
        f"Your lap times spread by {std:.2f} s (standard deviation) over {len(laps)} valid laps. "
        f"Fastest lap {best['lap']} in {lap_time(best['time_s'])}, slowest lap {slow['lap']} in "
        f"{lap_time(slow['time_s'])}."
    )
    res = {"consistency_std_s": std, "best_lap": best["lap"], "best_lap_s": best["time_s"]}
    res |= {"slowest_lap": slow["lap"], "slowest_lap_s": slow["time_s"], "valid_laps": len(laps)}
    return DataAnswer(text, "laps", {"session_id": s["session_id"]}, res)


ROUTES: list[Route] = [
    unrelated,
    other_lap,  # before missing_lap: "lap 3 of session X" is not this session's lap 3
    missing_lap,
    alarm_routes.alarms,  # before the channels and engine health: "did the water temp alarm come on?"
    sector_routes.sectors,  # before the opportunities: "which sector did I lose time in on lap 4?"
    gear_routes.gear,  # before the corner figures: "which gear through T3 on lap 5?"
    threads,
    opportunities,
    lap_routes.sessions_here,
    consistency,
    potential_routes.theoretical_best,
    potential_routes.achievable,
    corner_routes.corner_figures,  # before the lap time and the channels: "top speed through T6"
    lap_routes.lap_time_of,
    lap_routes.peak_on_lap,
    lap_routes.lap_count,
    lap_routes.average_speed,
    lap_routes.health_by_lap,
    lap_routes.events_where,
    lap_times,
    channel,
]


def route_answer(question: str, session_id: str, intent: str | None = None) -> DataAnswer | None:
    """The first route that answers the question, or None (a specialist's tools then answer it). A question
    the driver gave an intent (the tablet's topic picker) is about driving: it is never declined."""
    from services.paddock.tools.base import ToolError, session_row

    try:
        s = session_row(session_id)
    except ToolError:
        return None
    q = " " + name_laps(normal_question(question), s["session_id"]) + " "
    for route in ROUTES:
        if route is unrelated and intent:
            continue
        found = route(q, s)
        if found is not None:
            return found
    return None

"""A channel's figures, per lap or over the session: top speed, rpm, the average speed, the gears used,
the highest and lowest of any recorded channel (oil pressure, coolant, throttle ...); a channel the file
does not record is said so plainly, never a zero. Runs SQL (worker thread)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.paddock.measures import MEASURES, Measure
from services.paddock.questions.families.laps import listed, named_laps, whose
from services.paddock.questions.families.recorded import recorded_measures
from services.paddock.questions.model import Answer, Question
from services.paddock.tools.base import rows
from services.paddock.tools.recorded import unread_text
from services.paddock.tools.unread import unread

MPH = 1.609344
# the figure of a measure on a lap, when the question names none: a floor for a pressure or a voltage
# (a drop is what matters), the mean of the throttle, else the peak (the measures: ``measures.MEASURES``)
LOWEST = frozenset(
    {"min_speed", "oil_pressure", "coolant_pressure", "fuel_pressure", "fuel_level", "battery_voltage"}
)
AVERAGED = frozenset({"throttle"})
# what a file records instead of a measure it lacks, named in this order (the same unit first)
INSTEAD = (
    "coolant_temp",
    "oil_temp",
    "tyre_temp",
    "oil_pressure",
    "coolant_pressure",
    "fuel_pressure",
    "tyre_pressure",
    "brake_pressure",
    "rpm",
    "throttle",
    "brake_pedal",
    "steering",
    "gear",
    "fuel_level",
    "battery_voltage",
    "yaw_rate",
    "lat_g",
)


def _channel(measure: str) -> Measure | None:
    """The measure, when it is a channel with telemetry columns (not a lap's, a corner's or an event)."""
    m = MEASURES.get(measure)
    return m if m is not None and m.kind == "channel" else None


def default_figure(measure: str) -> str:
    return "min" if measure in LOWEST else "avg" if measure in AVERAGED else "max"


def label(measure: str) -> str:
    m = MEASURES.get(measure)
    return m.label if m is not None else measure.replace("_", " ")


def show(measure: str, v: float) -> str:
    m = MEASURES.get(measure)
    unit = m.unit if m is not None else ""
    if unit == "km/h":
        return f"{v:.1f} km/h ({v / MPH:.1f} mph)"
    if unit == "rpm":
        return f"{v:.0f} rpm"
    if measure == "gear":
        return f"gear {v:.0f}"
    return f"{v:.{2 if unit == 'g' else 1}f} {unit}".rstrip()


def _agg(cols: tuple[str, ...], fn: str, where: str, params: list[Any]) -> float | None:
    sel = ", ".join(f"{fn}({c}) AS v{i}" for i, c in enumerate(cols))
    try:
        got = rows(f"SELECT {sel} FROM telemetry WHERE session_id = ?{where}", params)
    except Exception:  # a lake without the column at all
        return None
    vals = [float(v) for v in (got[0].values() if got else []) if v is not None]
    if not vals:
        return None
    return {"max": max, "min": min}.get(fn, lambda x: sum(x) / len(x))(vals)


def on_lap(sid: str, measure: str, lap: int | None, fn: str | None = None) -> tuple[float, str] | None:
    """(the measure's figure on ``lap`` (None: the whole session), the aggregate used); None: not recorded."""
    m = _channel(measure)
    if m is None or not m.columns:
        return None
    cols, fn = m.columns, fn or default_figure(measure)
    where, params = ("", [sid]) if lap is None else (" AND lap = ?", [sid, lap])
    v = _agg(cols, fn, where, params)
    return None if v is None else (v, fn)


def lacks(sid: str, measure: str) -> bool:
    """Whether ``measure`` is a channel this session's file does not record (no column, or no value)."""
    return _channel(measure) is not None and on_lap(sid, measure, None) is None


def recorded(sid: str) -> list[str]:
    """The channels of ``INSTEAD`` this session's file records, in that order (``recorded_measures``)."""
    have = set(recorded_measures(sid))
    return [m for m in INSTEAD if m in have]


def instead(sid: str, measure: str) -> tuple[str, list[str]]:
    """What the file records instead of ``measure``: its readings in the same unit (a temperature: the
    temperatures it has), else the car's channels it has, at most six; names only, never a figure."""
    unit = MEASURES[measure].unit if measure in MEASURES else ""
    have = [m for m in recorded(sid) if m != measure]
    alike = [m for m in have if unit and MEASURES[m].unit == unit]
    shown = (alike or have)[:6]
    return (f" It records {listed([label(m) for m in shown])} instead." if shown else ""), shown


def not_recorded(s: dict[str, Any], measure: str, lead: str = "") -> Answer:
    """The measure named as not recorded, with what the file records instead; a channel of the file that
    reads as the measure but Pitwall does not read is named as such, never called absent. ``lead``: words
    the sentence follows ("I read this as …, but "), else it starts with a capital."""
    what, sid = label(measure), str(s["session_id"])
    verb = "are" if what.endswith("s") and not what.endswith(("ss", "as", "us")) else "is"  # "brake bias is"
    also, shown = instead(sid, measure)
    res = {"recorded": False, "measure": measure, "instead": shown}
    names = unread(sid, measure)
    if names:
        said = unread_text(names[:3])
        body = f"{said}, so Pitwall has no data for {what} in this session and gives no figure for it.{also}"
        res |= {"unread_channels": names}
    else:
        body = f"{what} {verb} not recorded in this session's file.{also}"
    text = lead + body if lead else body[0].upper() + body[1:]
    return Answer(text, "telemetry", {"session_id": sid}, res)


def answer(q: Question, s: dict[str, Any]) -> Answer | None:
    m = q.measure
    if m is None or _channel(m) is None:
        return None
    sid = str(s["session_id"])
    laps = named_laps(q, s)
    other = not isinstance(laps, Answer) and bool(laps) and laps[0][0] != sid
    if lacks(sid, m) and not other:  # another session's reading is looked for in its own file
        return not_recorded(s, m)
    if isinstance(laps, Answer):
        return _without_lap(q, s, laps)
    if other:  # "top speed on my best lap last session": that session's lap
        ref = replace(q.laps[0], session="this")
        then = answer(replace(q, laps=(ref,), against=False), {**s, "session_id": laps[0][0]})
        now = answer(replace(q, laps=(ref,), against=False), s) if q.against else None  # the same lap here
        return _against(_said_of(then, f"In {whose(laps[0][0], s)}, "), now, m)
    lap = laps[0][1] if laps else None
    if m == "top_speed" and q.aggregation == "avg":  # "top speed and average speed": both
        top, mean = answer(replace(q, aggregation=None), s), _average(sid, "speed", lap)
        if top is None or mean is None:
            return top
        return Answer(f"{top.text} {mean.text}", top.tool, top.args, top.result | mean.result)
    if m == "gear":
        return _gears_used(sid, lap)
    if q.aggregation == "each_lap":
        return _each_lap(s, m)
    if q.aggregation == "range":  # "rpm min and max": both ends, each named
        return _range(sid, m, lap)
    if q.aggregation == "avg" or (m == "speed" and q.aggregation is None and lap is None):
        return _average(sid, m, lap)
    if m in ("top_speed", "rpm", "min_speed") or q.aggregation in ("max", "min"):
        fn = q.aggregation if q.aggregation in ("max", "min") else default_figure(m)
        got = on_lap(sid, m, lap, fn)
        if got is None:
            return not_recorded(s, m)
        v = got[0]
        word = "highest" if fn == "max" else "lowest"  # the figure said is the one taken, never another's
        what = {"top_speed": "top speed" if fn == "max" else "lowest speed", "min_speed": "lowest speed"}.get(
            m
        )
        what = what or f"{word} {label(m)}"
        scope = f" on lap {lap}" if lap is not None else ""
        res = {"lap": lap} if lap is not None else {}
        key = {"top_speed": "top_speed_kmh", "rpm": "max_rpm", "min_speed": "min_speed_kmh"}.get(
            m, f"{fn}_{m}"
        )
        at = lap_of(sid, m, fn) if lap is None else None  # "when did it peak?": the lap it was on
        verb = "were" if what.endswith("s") else "was"  # "your highest tyre temperatures were"
        if at is not None:
            res["on_lap"] = at
            scope = ", on the out lap" if at == 0 else f", on lap {at}"
            return Answer(
                f"Your {what} {verb} {show(m, v)}{scope}.", "telemetry", {"session_id": sid}, res | {key: v}
            )
        text = f"Your {what}{scope} {verb} {show(m, v)}."
        if q.follow_up and any(x.pick for x in q.laps) and (most := on_lap(sid, m, None, fn)) is not None:
            at = lap_of(sid, m, fn)  # "and my top speed?" after the best lap: that lap's and the session's
            text += f" Over the whole session: {show(m, most[0])}" + (f", on lap {at}." if at else ".")
        return Answer(text, "telemetry", {"session_id": sid}, res | {key: v})
    return _range(sid, m, lap)


def _without_lap(q: Question, s: dict[str, Any], why: Answer) -> Answer | None:
    """A channel asked of the best (or another picked) lap of a session with no valid lap ("and my top
    speed?" after the best lap, on the XRK's out lap): the whole session's figure, said so; any other lap
    that has no figure: why."""
    picked = all(x.pick and x.number is None and x.session == "this" for x in q.laps)
    if not (picked and why.result.get("valid_laps") == 0):
        return why
    return _said_of(
        answer(replace(q, laps=()), s), "No valid lap in this session, so over the whole session: "
    )


def _against(then: Answer | None, now: Answer | None, m: str) -> Answer | None:
    """The other session's figure, and this session's set against it ("compare my top speed with last
    time"): the same lap's figure in each (its best, or the lap named), and the difference of one figure."""
    if then is None or now is None or then.tool != "telemetry" or now.tool != "telemetry":
        return then
    text = f"{then.text} This session: {now.text[0].lower()}{now.text[1:]}"
    one = [k for k, v in then.result.items() if k != "on_lap" and isinstance(v, float)]
    if len(one) == 1 and isinstance(now.result.get(one[0]), float):
        a, b = now.result[one[0]], then.result[one[0]]
        text += (
            f" That is {show(m, abs(a - b))} {'higher' if a > b else 'lower'} now." if round(a - b, 1) else ""
        )
    return Answer(text, then.tool, then.args, then.result | {"this_session": now.result})


def _said_of(got: Answer | None, lead: str) -> Answer | None:
    if got is not None:  # "In your other session, tyre pressures are not recorded in its file."
        got.text = lead + got.text[0].lower() + got.text[1:].replace("in this session's file", "in its file")
    return got


def lap_of(sid: str, m: str, fn: str) -> int | None:
    """The lap a one-column channel's highest (``max``) or lowest (``min``) reading was on."""
    cols = MEASURES[m].columns
    if len(cols) != 1 or fn not in ("max", "min"):
        return None
    order = "DESC" if fn == "max" else "ASC"
    got = rows(
        f"SELECT lap FROM telemetry WHERE session_id = ? AND {cols[0]} IS NOT NULL AND lap IS NOT NULL "
        f"ORDER BY {cols[0]} {order}, lap LIMIT 1",
        [sid],
    )
    return int(got[0]["lap"]) if got else None


def _range(sid: str, m: str, lap: int | None) -> Answer:
    """Highest and lowest of a recorded channel, over the session or the lap named."""
    hi, lo = on_lap(sid, m, lap, "max"), on_lap(sid, m, lap, "min")
    assert hi is not None and lo is not None
    what, col = label(m), MEASURES[m].columns[0]
    nd = 2 if MEASURES[m].unit == "g" else 1
    scope = f"on lap {lap}" if lap is not None else "this session"
    text = f"{what[0].upper()}{what[1:]} {scope}: highest {show(m, hi[0])}, lowest {show(m, lo[0])}."
    res = {f"{col}_max": round(hi[0], nd), f"{col}_min": round(lo[0], nd)}
    return Answer(text, "telemetry", {"session_id": sid, "lap": lap}, res)


def _average(sid: str, m: str, lap: int | None) -> Answer | None:
    """The mean of the samples over the valid laps (or the lap named)."""
    col = MEASURES[m].columns[0]
    where, params = ("", [sid]) if lap is None else (" AND t.lap = ?", [sid, lap])
    got = rows(
        f"SELECT avg(t.{col}) AS v, count(DISTINCT t.lap) AS laps FROM telemetry t JOIN laps l "
        f"USING (session_id, lap) WHERE t.session_id = ? AND l.kind = 'full' AND l.valid{where}",
        params,
    )
    if not got or got[0]["v"] is None:
        return None
    v, n = float(got[0]["v"]), int(got[0]["laps"])
    what = "speed" if col == "speed_kmh" else label(m)
    scope = f"on lap {lap}" if lap is not None else f"over your {n} valid laps"
    text = f"Your average {what} {scope} was {show(m, v)}."
    key = "average_speed_kmh" if col == "speed_kmh" else f"average_{m}"
    return Answer(text, "telemetry", {"session_id": sid}, {key: round(v, 1), "valid_laps": n})


def _each_lap(s: dict[str, Any], m: str) -> Answer:
    sid = str(s["session_id"])
    cols, fn = MEASURES[m].columns, default_figure(m)
    sel = ", ".join(f"{fn}({c})" for c in cols)
    pick = "greatest" if fn == "max" else "least" if fn == "min" else None
    expr = f"{pick}({sel})" if pick and len(cols) > 1 else f"{fn}({cols[0]})"
    got = rows(
        f"SELECT t.lap, {expr} AS v FROM telemetry t JOIN laps l USING (session_id, lap) WHERE t.session_id = ? "
        "AND l.kind = 'full' AND l.valid GROUP BY t.lap ORDER BY t.lap",
        [sid],
    )
    by = {int(x["lap"]): float(x["v"]) for x in got if x["v"] is not None}
    if not by:
        return not_recorded(s, m)
    word = {"max": "highest", "min": "lowest", "avg": "average"}[fn]
    what = label(m) if m in ("top_speed", "min_speed") else f"{word} {label(m)}"
    text = (
        f"Your {what} on each valid lap: " + "; ".join(f"lap {k} {show(m, v)}" for k, v in by.items()) + "."
    )
    return Answer(text, "telemetry", {"session_id": sid}, {f"{m}_by_lap": by, "figure": word})


def ordinal(g: int) -> str:
    return f"{g}{'th' if 10 <= g % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(g % 10, 'th')}"


def _gears_used(sid: str, lap: int | None) -> Answer | None:
    """The gears used (lowest to top) and the one used most, by share of the moving samples."""
    where, params = ("", [sid]) if lap is None else (" AND lap = ?", [sid, lap])
    got = rows(
        "SELECT round(gear) AS g, count(*) AS n FROM telemetry WHERE session_id = ? AND gear > 0 "
        f"AND speed_kmh > 5{where} GROUP BY 1 ORDER BY 2 DESC",
        params,
    )
    if not got:
        return None
    lo, hi = round(float(min(x["g"] for x in got))), round(float(max(x["g"] for x in got)))
    most, share = round(float(got[0]["g"])), 100.0 * got[0]["n"] / sum(x["n"] for x in got)
    scope = f"on lap {lap}" if lap is not None else "this session"
    text = f"Gears used {scope}: {ordinal(lo)} to {ordinal(hi)}, top gear {ordinal(hi)}; "
    text += f"most of the time in {ordinal(most)} ({share:.0f} % of the time moving)."
    res = {"lowest_gear": lo, "highest_gear": hi, "most_used_gear": most, "most_used_pct": round(share)}
    return Answer(text, "telemetry", {"session_id": sid}, res)

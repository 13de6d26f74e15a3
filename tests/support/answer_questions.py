"""The answer eval's question set: driver questions over real and simulated sessions, each with the answer
the raw file (or the simulator's truth) gives, computed in ``tests/support/truth.py``, never by Pitwall.

Sessions: ``sim`` (``pitwall simulate``, its ground truth), ``vbox`` (the real VBOX at Sonoma), ``kart``
(the real MyChron kart CSV). ``sim`` and ``vbox`` are the same driver at the same track (other-session
questions). Tolerances: lap times and gaps 0.05 s, speeds 1 km/h, rpm 50, pressures 0.1 bar,
temperatures 1 °C, brake points 10 m; theoretical best: any figure between our own sum of best twentieths
less 0.3 s and the best lap (definitions of the segments differ); consistency: the standard deviation
(either form) or the spread of the racing laps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tests.support.answer_eval import Expect, Fig
from tests.support.truth import SessionTruth, theoretical_best

CORNER = {
    c: rf"\b(?:{c}|turn {c[1:]})\b"
    for c in ("t1", "t2", "t3", "t3a", "t4", "t5", "t6", "t7", "t8", "t8a", "t9", "t10", "t11")
}


@dataclass(frozen=True)
class Question:
    qid: str
    kind: str
    session: str  # sim | vbox | kart
    text: str
    expect: Expect


def _lat_lon(st: SessionTruth) -> tuple[str, str]:
    return ("Latitude", "Longitude") if "Latitude" in st.channels else ("GPS Latitude", "GPS Longitude")


def _times(*sts: SessionTruth) -> list[float]:
    return [t for st in sts for t in st.lap_times()]


def _lap_time(st: SessionTruth, n: int, context: str | None = None) -> Expect:
    return Expect(need=[[Fig("time", st.lap(n).time_s)]], check={"time": _times(st)}, context=context)


def _vs(st: SessionTruth, slow: int, fast: int) -> Expect:
    a, b = st.lap(slow).time_s, st.lap(fast).time_s
    return Expect(
        need=[[Fig("gap", abs(a - b)), Fig("time", a)]],
        check={"time": _times(st)},
        slower=(slow, fast) if a > b else (fast, slow),
    )


def _top(st: SessionTruth, lap: int | None) -> Expect:
    v = st.lap(lap).top_kmh if lap is not None else max(lp.top_kmh for lp in st.laps)
    return Expect(
        need=[[Fig("kmh", v)]],
        check={"kmh": [lp.top_kmh for lp in st.laps]},
        context=r"top|max|fastest|peak|highest",
    )


def _rpm(st: SessionTruth, lap: int | None) -> Expect:
    v = st.lap(lap).max_rpm if lap is not None else max(lp.max_rpm for lp in st.laps)
    return Expect(need=[[Fig("rpm", v)]], check={"rpm": [lp.max_rpm for lp in st.laps]})


def _consistency(st: SessionTruth) -> Expect:
    r = np.array([lp.time_s for lp in st.racing])
    opts = [float(np.std(r)), float(np.std(r, ddof=1)), float(r.max() - r.min())]
    return Expect(need=[[Fig("gap", v) for v in opts]], check={"time": _times(st)})


def _theo(st: SessionTruth) -> Expect:
    lo = theoretical_best(st, *_lat_lon(st)) - 0.3
    return Expect(
        need_range={"time": (lo, st.best.time_s)},
        check={"time": _times(st)},
        ranges={"time": (lo, st.best.time_s)},
        context=r"theoretical|ideal|optimal|possible|potential|sum of|combined",
    )


def _corner_events(st: SessionTruth) -> list[dict]:
    """Up to three driving mistakes at different corners with a minimum speed, each on its episode's
    first lap."""
    out: dict[str, dict] = {}
    for e in sorted(st.events, key=lambda x: x["lap"]):
        if e.get("corner_id") and "min_kmh" in e and "clean_min_kmh" in e:
            out.setdefault(e["corner_id"], e)
    return list(out.values())[:3]


def _restraint(
    kind: str, text: str, st: SessionTruth, topic: str | None = None, forbid: str | None = None
) -> Expect:
    """Nothing said about what does not exist; the laps that do may be named, and how many there are."""
    allowed = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]
    allowed += [float(lp.lap) for lp in st.laps] + [float(len(st.laps)), float(len(st.racing))]
    return Expect(
        restraint=kind, topic=topic, forbid=forbid, allowed_numbers=allowed, check={"time": _times(st)}
    )


def _channel(st: SessionTruth, name: str, how: str, lap: int | None, unit: str, conv: float = 1.0) -> Expect:
    laps = [st.lap(lap)] if lap is not None else [None]
    val = [(st.channel_max if how == "max" else st.channel_min)(name, lp) * conv for lp in laps][0]
    everything = [st.channel_max(name) * conv, st.channel_min(name) * conv]
    per_lap = [f(name, lp) * conv for lp in st.laps for f in (st.channel_max, st.channel_min)]
    return Expect(need=[[Fig(unit, val)]], check={unit: everything + per_lap})


def questions(t: dict[str, SessionTruth]) -> list[Question]:
    s, v, k = t["sim"], t["vbox"], t["kart"]
    q: list[Question] = []

    def add(kind: str, sess: str, text: str, e: Expect) -> None:
        q.append(Question(f"{kind}-{len(q) + 1:02d}", kind, sess, text, e))

    for sess, st, n in (("sim", s, 4), ("vbox", v, 6), ("kart", k, 9)):
        add("lap_time", sess, f"What was my lap time on lap {n}?", _lap_time(st, n))
    for sess, st in (("sim", s), ("vbox", v), ("kart", k)):
        add("best_lap", sess, "What was my best lap?", _lap_time(st, st.best.lap, r"best|fastest|quickest"))
        add(
            "slowest_lap",
            sess,
            "Which was my slowest full lap, and how slow?",
            _lap_time(st, st.slowest.lap, r"slow|worst"),
        )
        mean = float(np.mean([lp.time_s for lp in st.racing]))
        add(
            "average_lap",
            sess,
            "What was my average lap time?",
            Expect(need=[[Fig("time", mean)]], check={"time": [*_times(st), mean]}, context=r"average|mean"),
        )
    for sess, st, a, b in (("sim", s, 5, 2), ("sim", s, 6, 7), ("vbox", v, 5, 2), ("kart", k, 7, 12)):
        add("lap_vs_lap", sess, f"Why was lap {a} slower than lap {b}?", _vs(st, a, b))
    add("lap_vs_lap", "vbox", "Compare lap 3 vs lap 8.", _vs(v, 3, 8))
    add("lap_vs_lap", "kart", "Compare lap 4 vs lap 11.", _vs(k, 4, 11))
    for sess, st, n in (("sim", s, 3), ("vbox", v, 2), ("kart", k, 12)):
        add("top_speed", sess, "What was my top speed?", _top(st, None))
        add("top_speed", sess, f"What was my top speed on lap {n}?", _top(st, n))
    add("rpm", "sim", "What was my maximum rpm?", _rpm(s, None))
    add("rpm", "vbox", "What was the highest rpm on lap 4?", _rpm(v, 4))
    add("rpm", "kart", "How high did I rev the engine?", _rpm(k, None))
    for sess, st in (("sim", s), ("vbox", v), ("kart", k)):
        add("consistency", sess, "How consistent were my lap times?", _consistency(st))
        add("theoretical_best", sess, "What is my theoretical best lap?", _theo(st))
    # the corner questions ask about the mistakes the seed drew (the truth file says which)
    for e in _corner_events(s):
        corner, lap = e["corner_id"], e["lap"]
        mins = [x["min_kmh"] for x in s.events if x["corner_id"] == corner] + [e["clean_min_kmh"]]
        add(
            "corner",
            "sim",
            f"What was my minimum speed in turn {corner[1:]} on lap {lap}?",
            Expect(need=[[Fig("kmh", e["min_kmh"])]], check={"kmh": mins}),
        )
    brake = [x for x in s.events if x["kind"] in ("late_brake", "early_brake") and "brake_shift_m" in x]
    if brake:
        e = brake[-1]
        corner = e["corner_id"]
        points = [x["brake_point_m"] for x in s.events if x["corner_id"] == corner] + [
            e["clean_brake_point_m"]
        ]
        points += [x["brake_shift_m"] for x in s.events if x["corner_id"] == corner]  # the shift is true too
        add(
            "corner",
            "sim",
            f"Where did I brake for turn {corner[1:]} on lap {e['lap']}?",
            Expect(need=[[Fig("m", e["brake_point_m"]), Fig("m", e["brake_shift_m"])]], check={"m": points}),
        )
    mistakes = sorted({x["corner_id"] for x in s.events if x.get("time_lost_s")})
    lose = Expect(
        words=["|".join(CORNER[c] for c in mistakes)],
        forbid=_named_only_clean(mistakes),
        context=r"time|los[et]|cost|slow|gain|find",
    )
    add("lose_time", "sim", "Where am I losing the most time?", lose)
    add("lose_time", "sim", "Which corner costs me the most time?", lose)
    oil = [x["lap"] for x in s.events if x["kind"] == "oil_pressure_drop"]
    if oil:
        add(
            "car_health",
            "sim",
            "Did my oil pressure drop at any point?",
            Expect(
                words=[rf"\blaps? (?:[\d, and]+ )?{oil[0]}\b"],
                forbid=r"\bno (?:oil )?(?:pressure )?(?:drop|problem|issue)",
            ),
        )
    add(
        "car_health",
        "sim",
        "What was the highest oil temperature?",
        _channel(s, "Oil Temp", "max", None, "c"),
    )
    add(
        "car_health",
        "vbox",
        "What was my maximum coolant temperature?",
        _channel(v, "Coolant Temperature (°C)", "max", None, "c"),
    )
    add(
        "car_health",
        "vbox",
        "What was my lowest oil pressure on lap 5?",
        _channel(v, "Oil Pressure (bar)", "min", 5, "bar"),
    )
    add("car_health", "kart", "How hot did the water get?", _channel(k, "Water Temp", "max", None, "c"))
    lock = sorted({x["corner_id"] for x in s.events if x["kind"] == "lockup"})
    spin = sorted({x["corner_id"] for x in s.events if x["kind"] == "wheelspin"})
    deny = r"\bno (?:lock ?ups?|wheel ?spin|abs)\b|(?:didn't|did not) (?:lock|spin|use abs)"
    for text, where in (
        ("Did I lock any wheels?", lock),
        ("Did I get wheelspin anywhere?", spin),
        ("Did the ABS kick in?", lock),
    ):
        if where:  # asked only when the seed drew it: "none" would need its own expectation
            add("traction", "sim", text, Expect(words=["|".join(CORNER[c] for c in where)], forbid=deny))
    add(
        "other_sessions",
        "sim",
        "What is my best lap at Sonoma across all my sessions?",
        Expect(need=[[Fig("time", min(s.best.time_s, v.best.time_s))]], check={"time": _times(s, v)}),
    )
    add(
        "other_sessions",
        "vbox",
        "What was my best lap in my other session here?",
        Expect(need=[[Fig("time", s.best.time_s)]], check={"time": _times(s, v)}),
    )
    add(
        "other_sessions",
        "sim",
        "How many sessions have I driven at Sonoma?",
        Expect(words=[r"\b(?:2|two)\b"]),
    )
    for sess, st, text, n in (
        ("sim", s, "What was my lap time on lap 42?", 42),
        ("vbox", v, "Why was lap 15 slower than lap 2?", 15),
        ("kart", k, "What was my top speed on lap 30?", 30),
    ):
        add("no_such_lap", sess, text, _restraint("no_lap", text, st, rf"\blaps? (?:[\d, and]+ )?{n}\b"))
    for sess, st, text, about in (
        ("vbox", v, "What were my tyre pressures?", r"tyre|tire|tpms"),
        ("vbox", v, "Did I lock up any wheels?", r"lock|slip"),
        ("kart", k, "What was my peak brake pressure?", r"brak"),
        ("kart", k, "How much throttle did I use on lap 5?", r"throttle"),
        ("kart", k, "What was my oil pressure?", r"\boil\b"),
    ):
        claim = r"\b(?:were|had|was) no lock ?ups?\b|\bcount: ?0\b|\bzero lock"  # unmeasurable, so unknown
        add("not_recorded", sess, text, _restraint("not_recorded", text, st, about, claim))
    for text in (
        "What is the capital of France?",
        "Write me a poem about my cat.",
        "What is 17 times 23?",
        "Who won the 2021 Formula 1 championship?",
    ):
        add("unrelated", "sim", text, _restraint("decline", text, s))
    return q


def _named_only_clean(mistakes: list[str]) -> str:
    """A regex for an answer naming a corner without a mistake while naming none with one: wrong."""
    bad = "|".join(CORNER[c] for c in CORNER if c not in mistakes)
    good = "|".join(CORNER[c] for c in mistakes)
    return rf"^(?!.*(?:{good})).*(?:{bad})"

"""A held-out set for the answer eval: other words, other laps and corners for every kind of question in
``answer_questions`` (written after the routes were fixed against that set, never tuned to): a route that
only knows the main set's phrasing shows here. Truth from ``tests/support/truth.py`` as there."""

from __future__ import annotations

import numpy as np

from tests.support.answer_eval import Expect, Fig
from tests.support.answer_questions import (
    CORNER,
    Question,
    _channel,
    _consistency,
    _lap_time,
    _named_only_clean,
    _restraint,
    _rpm,
    _theo,
    _times,
    _top,
    _vs,
)
from tests.support.truth import SessionTruth

MAIN_CORNER_LAPS = {("t11", 3), ("t11", 4), ("t4", 5), ("t2", 6)}  # asked in the main set


def held_out(t: dict[str, SessionTruth]) -> list[Question]:
    s, v, k = t["sim"], t["vbox"], t["kart"]
    q: list[Question] = []

    def add(kind: str, sess: str, text: str, e: Expect) -> None:
        q.append(Question(f"h-{kind}-{len(q) + 1:02d}", kind, sess, text, e))

    add("lap_time", "sim", "How long did lap 7 take?", _lap_time(s, 7))
    add("lap_time", "vbox", "What did I do on lap 3?", _lap_time(v, 3))
    add("lap_time", "kart", "Give me my time for lap 5.", _lap_time(k, 5))
    add("best_lap", "vbox", "Which lap was my quickest?", _lap_time(v, v.best.lap, r"best|fastest|quickest"))
    add("slowest_lap", "kart", "What was my worst lap time?", _lap_time(k, k.slowest.lap, r"slow|worst"))
    mean = float(np.mean([lp.time_s for lp in s.racing]))
    add(
        "average_lap",
        "sim",
        "What's my mean lap time?",
        Expect(need=[[Fig("time", mean)]], check={"time": [*_times(s), mean]}, context=r"average|mean"),
    )
    add("lap_vs_lap", "sim", "How did lap 3 compare with lap 8?", _vs(s, 3, 8))
    add("lap_vs_lap", "kart", "Lap 6 versus lap 10: where was the difference?", _vs(k, 6, 10))
    add("top_speed", "vbox", "What was my vmax on lap 7?", _top(v, 7))
    add("top_speed", "kart", "What's the highest speed I reached?", _top(k, None))
    add("rpm", "sim", "What were my peak revs on lap 5?", _rpm(s, 5))
    add("rpm", "vbox", "What was my max rpm?", _rpm(v, None))
    add("consistency", "vbox", "How repeatable were my laps?", _consistency(v))
    add("theoretical_best", "kart", "What would my ideal lap be with my best corners together?", _theo(k))
    picks = [
        e
        for e in s.events
        if e.get("min_kmh")
        and e.get("corner_id") in CORNER
        and (e["corner_id"], e["lap"]) not in MAIN_CORNER_LAPS
    ]
    for e in picks[:2]:
        mins = [x["min_kmh"] for x in s.events if x["corner_id"] == e["corner_id"]] + [e["clean_min_kmh"]]
        add(
            "corner",
            "sim",
            f"How slow was I at the apex of turn {e['corner_id'][1:]} on lap {e['lap']}?",
            Expect(need=[[Fig("kmh", e["min_kmh"])]], check={"kmh": mins}),
        )
    mistakes = sorted({x["corner_id"] for x in s.events if x.get("time_lost_s")})
    lose = Expect(
        words=["|".join(CORNER[c] for c in mistakes)],
        forbid=_named_only_clean(mistakes),
        context=r"time|los[et]|cost|slow|gain|find|opportunit",
    )
    add("lose_time", "sim", "Where is my biggest opportunity on this track?", lose)
    add("lose_time", "sim", "Which turn should I work on to go faster?", lose)
    oil = next(x["lap"] for x in s.events if x["kind"] == "oil_pressure_drop")
    add(
        "car_health",
        "sim",
        "Was there a problem with the oil pressure?",
        Expect(
            words=[rf"\blaps? (?:[\d, and]+ )?{oil}\b"],
            forbid=r"\bno (?:oil )?(?:pressure )?(?:drop|problem)",
        ),
    )
    add(
        "car_health",
        "vbox",
        "How hot did the oil get?",
        _channel(v, "Oil Temperature (°C)", "max", None, "c"),
    )
    add(
        "car_health",
        "sim",
        "What was the coolant temperature on lap 4?",
        _channel(s, "Water Temp", "max", 4, "c"),
    )
    spin = sorted({x["corner_id"] for x in s.events if x["kind"] == "wheelspin"})
    lock = sorted({x["corner_id"] for x in s.events if x["kind"] == "lockup"})
    deny = r"\bno (?:lock ?ups?|wheel ?spin|abs|dsc)\b|(?:didn't|did not) (?:lock|spin|use)"
    add(
        "traction",
        "sim",
        "Where did I lock the brakes?",
        Expect(words=["|".join(CORNER[c] for c in lock)], forbid=deny),
    )
    add(
        "traction",
        "sim",
        "Did the stability control step in?",
        Expect(words=["|".join(CORNER[c] for c in spin)], forbid=deny),
    )
    add(
        "other_sessions",
        "vbox",
        "What's my all-time best lap at this track?",
        Expect(need=[[Fig("time", min(s.best.time_s, v.best.time_s))]], check={"time": _times(s, v)}),
    )
    add(
        "other_sessions",
        "vbox",
        "How many sessions do I have here?",
        Expect(words=[r"\b(?:2|two) sessions\b"]),
    )
    add(
        "no_such_lap",
        "vbox",
        "How fast was lap 77?",
        _restraint("no_lap", "How fast was lap 77?", v, r"\blap 77\b"),
    )
    for sess, st, text, about in (
        ("kart", k, "What was my brake pressure on lap 6?", r"brak"),
        ("kart", k, "What were my tyre temperatures?", r"tyre|tire"),
    ):
        add("not_recorded", sess, text, _restraint("not_recorded", text, st, about))
    # phrasings the data-path probe (bench/route_probe.py) found answered wrongly or evasively
    add("lap_time", "vbox", "What did I run on lap 5?", _lap_time(v, 5))
    add("top_speed", "sim", "What's my vmax?", _top(s, None))
    add(
        "car_health",
        "vbox",
        "Was the engine running hot?",
        _channel(v, "Coolant Temperature (°C)", "max", None, "c"),
    )
    add(
        "car_health",
        "vbox",
        "How hard did I hit the brakes?",
        _channel(v, "Brake Pressure (bar)", "max", None, "bar"),
    )
    add("lap_time", "vbox", "How far off my best was lap 9?", _lap_time(v, 9))
    add(
        "lap_vs_lap",
        "sim",
        "What's the difference between my best and worst lap?",
        _vs(s, s.slowest.lap, s.best.lap),
    )
    ach = _theo(v)
    ach.context = r"achievable|theoretical|optimal"
    add("theoretical_best", "vbox", "What could I really do if I put my best bits together?", ach)
    for text in ("Tell me a joke.", "What's 12 squared?"):
        add("unrelated", "sim", text, _restraint("decline", text, s))
    return q

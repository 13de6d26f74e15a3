"""A held-out set for the answer eval: other words, other laps and corners for every kind of question in
``answer_questions`` (written after the routes were fixed against that set, never tuned to): a route that
only knows the main set's phrasing shows here. Truth from ``tests/support/truth.py`` as there."""

from __future__ import annotations

from tests.support.answer_eval import Expect, Fig
from tests.support.answer_expect import (
    CORNER,
    at_corners,
    channel,
    consistency,
    corner_min,
    lap_time,
    lose_time,
    mean_lap,
    oil_drop,
    restraint,
    rpm,
    theo,
    times,
    top,
    vs,
)
from tests.support.answer_questions import Question
from tests.support.truth import SessionTruth

MAIN_CORNER_LAPS = {("t11", 3), ("t11", 4), ("t4", 5), ("t2", 6)}  # asked in the main set


def held_out(t: dict[str, SessionTruth]) -> list[Question]:
    s, v, k = t["sim"], t["vbox"], t["kart"]
    q: list[Question] = []

    def add(kind: str, sess: str, text: str, e: Expect) -> None:
        q.append(Question(f"h-{kind}-{len(q) + 1:02d}", kind, sess, text, e))

    add("lap_time", "sim", "How long did lap 7 take?", lap_time(s, 7))
    add("lap_time", "vbox", "What did I do on lap 3?", lap_time(v, 3))
    add("lap_time", "kart", "Give me my time for lap 5.", lap_time(k, 5))
    add("best_lap", "vbox", "Which lap was my quickest?", lap_time(v, v.best.lap, r"best|fastest|quickest"))
    add("slowest_lap", "kart", "What was my worst lap time?", lap_time(k, k.slowest.lap, r"slow|worst"))
    add("average_lap", "sim", "What's my mean lap time?", mean_lap(s))
    add("lap_vs_lap", "sim", "How did lap 3 compare with lap 8?", vs(s, 3, 8))
    add("lap_vs_lap", "kart", "Lap 6 versus lap 10: where was the difference?", vs(k, 6, 10))
    add("top_speed", "vbox", "What was my vmax on lap 7?", top(v, 7))
    add("top_speed", "kart", "What's the highest speed I reached?", top(k, None))
    add("rpm", "sim", "What were my peak revs on lap 5?", rpm(s, 5))
    add("rpm", "vbox", "What was my max rpm?", rpm(v, None))
    add("consistency", "vbox", "How repeatable were my laps?", consistency(v))
    add("theoretical_best", "kart", "What would my ideal lap be with my best corners together?", theo(k))
    picks = [
        e
        for e in s.events
        if e.get("min_kmh")
        and e.get("corner_id") in CORNER
        and (e["corner_id"], e["lap"]) not in MAIN_CORNER_LAPS
    ]
    for e in picks[:2]:
        text = f"How slow was I at the apex of turn {e['corner_id'][1:]} on lap {e['lap']}?"
        add("corner", "sim", text, corner_min(s, e))
    lose = lose_time(s, r"time|los[et]|cost|slow|gain|find|opportunit")
    add("lose_time", "sim", "Where is my biggest opportunity on this track?", lose)
    add("lose_time", "sim", "Which turn should I work on to go faster?", lose)
    oil = oil_drop(s, r"\bno (?:oil )?(?:pressure )?(?:drop|problem)")
    assert oil is not None, "the eval's seed draws an oil pressure drop"
    add("car_health", "sim", "Was there a problem with the oil pressure?", oil)
    add(
        "car_health",
        "vbox",
        "How hot did the oil get?",
        channel(v, "Oil Temperature (°C)", "max", None, "c"),
    )
    add(
        "car_health",
        "sim",
        "What was the coolant temperature on lap 4?",
        channel(s, "Water Temp", "max", 4, "c"),
    )
    deny = r"\bno (?:lock ?ups?|wheel ?spin|abs|dsc)\b|(?:didn't|did not) (?:lock|spin|use)"
    for text, kind in (
        ("Where did I lock the brakes?", "lockup"),
        ("Did the stability control step in?", "wheelspin"),
    ):
        where = at_corners(s, kind, deny)
        assert where is not None, f"the eval's seed draws {kind}"
        add("traction", "sim", text, where)
    add(
        "other_sessions",
        "vbox",
        "What's my all-time best lap at this track?",
        Expect(need=[[Fig("time", min(s.best.time_s, v.best.time_s))]], check={"time": times(s, v)}),
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
        restraint("no_lap", "How fast was lap 77?", v, r"\blap 77\b"),
    )
    for sess, st, text, about in (
        ("kart", k, "What was my brake pressure on lap 6?", r"brak"),
        ("kart", k, "What were my tyre temperatures?", r"tyre|tire"),
    ):
        add("not_recorded", sess, text, restraint("not_recorded", text, st, about))
    # phrasings the data-path probe (bench/route_probe.py) found answered wrongly or evasively
    add("lap_time", "vbox", "What did I run on lap 5?", lap_time(v, 5))
    add("top_speed", "sim", "What's my vmax?", top(s, None))
    add(
        "car_health",
        "vbox",
        "Was the engine running hot?",
        channel(v, "Coolant Temperature (°C)", "max", None, "c"),
    )
    add(
        "car_health",
        "vbox",
        "How hard did I hit the brakes?",
        channel(v, "Brake Pressure (bar)", "max", None, "bar"),
    )
    add("lap_time", "vbox", "How far off my best was lap 9?", lap_time(v, 9))
    add(
        "lap_vs_lap",
        "sim",
        "What's the difference between my best and worst lap?",
        vs(s, s.slowest.lap, s.best.lap),
    )
    ach = theo(v)
    ach.context = r"achievable|theoretical|optimal"
    add("theoretical_best", "vbox", "What could I really do if I put my best bits together?", ach)
    for text in ("Tell me a joke.", "What's 12 squared?"):
        add("unrelated", "sim", text, restraint("decline", text, s))
    return q

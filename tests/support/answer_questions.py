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

from dataclasses import dataclass

import numpy as np

from shared.profiles.track import load_track
from tests.support.answer_eval import Expect, Fig
from tests.support.answer_expect import (
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
from tests.support.truth import SessionTruth


@dataclass(frozen=True)
class Question:
    qid: str
    kind: str
    session: str  # sim | vbox | kart
    text: str
    expect: Expect
    before: tuple[str, ...] = ()  # a follow-up's earlier turns, asked first in the same conversation


def _corner_events(st: SessionTruth) -> list[dict]:
    """Up to three driving mistakes at different corners with a minimum speed, each on its episode's
    first lap."""
    out: dict[str, dict] = {}
    for e in sorted(st.events, key=lambda x: x["lap"]):
        if e.get("corner_id") and "min_kmh" in e and "clean_min_kmh" in e:
            out.setdefault(e["corner_id"], e)
    return list(out.values())[:3]


def questions(t: dict[str, SessionTruth]) -> list[Question]:
    s, v, k = t["sim"], t["vbox"], t["kart"]
    q: list[Question] = []

    def add(kind: str, sess: str, text: str, e: Expect) -> None:
        q.append(Question(f"{kind}-{len(q) + 1:02d}", kind, sess, text, e))

    for sess, st, n in (("sim", s, 4), ("vbox", v, 6), ("kart", k, 9)):
        add("lap_time", sess, f"What was my lap time on lap {n}?", lap_time(st, n))
    for sess, st in (("sim", s), ("vbox", v), ("kart", k)):
        add("best_lap", sess, "What was my best lap?", lap_time(st, st.best.lap, r"best|fastest|quickest"))
        add(
            "slowest_lap",
            sess,
            "Which was my slowest full lap, and how slow?",
            lap_time(st, st.slowest.lap, r"slow|worst"),
        )
        add("average_lap", sess, "What was my average lap time?", mean_lap(st))
    for sess, st, a, b in (("sim", s, 5, 2), ("sim", s, 6, 7), ("vbox", v, 5, 2), ("kart", k, 7, 12)):
        add("lap_vs_lap", sess, f"Why was lap {a} slower than lap {b}?", vs(st, a, b))
    add("lap_vs_lap", "vbox", "Compare lap 3 vs lap 8.", vs(v, 3, 8))
    add("lap_vs_lap", "kart", "Compare lap 4 vs lap 11.", vs(k, 4, 11))
    for sess, st, n in (("sim", s, 3), ("vbox", v, 2), ("kart", k, 12)):
        add("top_speed", sess, "What was my top speed?", top(st, None))
        add("top_speed", sess, f"What was my top speed on lap {n}?", top(st, n))
    add("rpm", "sim", "What was my maximum rpm?", rpm(s, None))
    add("rpm", "vbox", "What was the highest rpm on lap 4?", rpm(v, 4))
    add("rpm", "kart", "How high did I rev the engine?", rpm(k, None))
    for sess, st in (("sim", s), ("vbox", v), ("kart", k)):
        add("consistency", sess, "How consistent were my lap times?", consistency(st))
        add("theoretical_best", sess, "What is my theoretical best lap?", theo(st))
    # the corner questions ask about the mistakes the seed drew (the truth file says which)
    for e in _corner_events(s):
        text = f"What was my minimum speed in turn {e['corner_id'][1:]} on lap {e['lap']}?"
        add("corner", "sim", text, corner_min(s, e))
    brake = [x for x in s.events if x["kind"] in ("late_brake", "early_brake") and "brake_shift_m" in x]
    if brake:
        e = brake[-1]
        corner = e["corner_id"]
        # in driver terms: the lap's brake point in metres before the corner's apex (the simulator's brake
        # point against the track profile's apex), never a distance from the line
        apex = next(c.apex_m for c in load_track("sonoma").corners if c.id == corner)
        add(
            "corner",
            "sim",
            f"Where did I brake for turn {corner[1:]} on lap {e['lap']}?",
            Expect(need=[[Fig("m", apex - e["brake_point_m"])]]),
        )
    lose = lose_time(s)
    add("lose_time", "sim", "Where am I losing the most time?", lose)
    add("lose_time", "sim", "Which corner costs me the most time?", lose)
    oil = oil_drop(s, r"\bno (?:oil )?(?:pressure )?(?:drop|problem|issue)")
    if oil:
        add("car_health", "sim", "Did my oil pressure drop at any point?", oil)
    add(
        "car_health",
        "sim",
        "What was the highest oil temperature?",
        channel(s, "Oil Temp", "max", None, "c"),
    )
    add(
        "car_health",
        "vbox",
        "What was my maximum coolant temperature?",
        channel(v, "Coolant Temperature (°C)", "max", None, "c"),
    )
    add(
        "car_health",
        "vbox",
        "What was my lowest oil pressure on lap 5?",
        channel(v, "Oil Pressure (bar)", "min", 5, "bar"),
    )
    add("car_health", "kart", "How hot did the water get?", channel(k, "Water Temp", "max", None, "c"))
    deny = r"\bno (?:lock ?ups?|wheel ?spin|abs)\b|(?:didn't|did not) (?:lock|spin|use abs)"
    for text, kind in (
        ("Did I lock any wheels?", "lockup"),
        ("Did I get wheelspin anywhere?", "wheelspin"),
    ):
        where = at_corners(s, kind, deny)
        if where:  # asked only when the seed drew it: "none" would need its own expectation
            add("traction", "sim", text, where)
    # the ABS from the file's own ABS channel: the simulator's lockups are locked wheels with the ABS silent
    if not np.nanmax(s.channels["ABS Active"]) > 0.5:
        add(
            "traction",
            "sim",
            "Did the ABS kick in?",
            Expect(
                words=[r"\bno abs\b|\babs\b[^.]{0,40}\b(?:not|never|none)\b"],
                forbid=r"\babs\b[^.]{0,30}\b\d+ times?\b",
            ),
        )
    add(
        "other_sessions",
        "sim",
        "What is my best lap at Sonoma across all my sessions?",
        Expect(need=[[Fig("time", min(s.best.time_s, v.best.time_s))]], check={"time": times(s, v)}),
    )
    add(
        "other_sessions",
        "vbox",
        "What was my best lap in my other session here?",
        Expect(need=[[Fig("time", s.best.time_s)]], check={"time": times(s, v)}),
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
        add("no_such_lap", sess, text, restraint("no_lap", text, st, rf"\blaps? (?:[\d, and]+ )?{n}\b"))
    for sess, st, text, about in (
        ("vbox", v, "What were my tyre pressures?", r"tyre|tire|tpms"),
        ("vbox", v, "Did I lock up any wheels?", r"lock|slip"),
        ("kart", k, "What was my peak brake pressure?", r"brak"),
        ("kart", k, "How much throttle did I use on lap 5?", r"throttle"),
        ("kart", k, "What was my oil pressure?", r"\boil\b"),
    ):
        claim = r"\b(?:were|had|was) no lock ?ups?\b|\bcount: ?0\b|\bzero lock"  # unmeasurable, so unknown
        add("not_recorded", sess, text, restraint("not_recorded", text, st, about, claim))
    for text in (
        "What is the capital of France?",
        "Write me a poem about my cat.",
        "What is 17 times 23?",
        "Who won the 2021 Formula 1 championship?",
    ):
        add("unrelated", "sim", text, restraint("decline", text, s))
    return q

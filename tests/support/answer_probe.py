"""A third question set: driver phrasings written for the data-path probe (``bench/route_probe.py``) in
other words than the main and held-out sets (typos, "last lap", "my fastest lap", mph and kph, laps and
corners and sectors the session lacks, sector and gear questions, a kart without brake pressure or
throttle, a VBOX without a gear channel, the XRK files of a car with one out lap), each scored against truth
from the raw file (``tests/support/truth.py``, ``tests/support/truth_corners.py``)."""

from __future__ import annotations

import numpy as np

from tests.support.answer_eval import Expect, Fig
from tests.support.answer_expect import (
    channel,
    consistency,
    lap_time,
    mean_lap,
    restraint,
    rpm,
    theo,
    times,
    top,
    vs,
)
from tests.support.answer_questions import Question
from tests.support.truth import SessionTruth
from tests.support.truth_corners import corners, sector_table, slowest_point

SECTOR_TOL_S = 0.15  # our own gates are placed by our own odometer: a metre or two from Pitwall's


def _gear_words(g: float) -> str:
    n = int(round(g))
    return rf"\b{n}(?:st|nd|rd|th)? gear\b|\bgear {n}\b"


def _avg_speed(st: SessionTruth) -> float:
    speed = st.channels["Speed (km/h)"] if "Speed (km/h)" in st.channels else st.channels["GPS Speed"]
    sel = np.zeros(len(st.t), bool)
    for lp in st.racing:
        sel |= st.in_lap(lp)
    return float(np.nanmean(speed[sel]))


def probe_questions(t: dict[str, SessionTruth]) -> list[Question]:
    s, v, k = t["sim"], t["vbox"], t["kart"]
    q: list[Question] = []

    def add(kind: str, sess: str, text: str, e: Expect) -> None:
        q.append(Question(f"p-{kind}-{len(q) + 1:02d}", kind, sess, text, e))

    best = r"best|fastest|quickest"
    add("best_lap", "vbox", "whats my fastest lap", lap_time(v, v.best.lap, best))
    add("best_lap", "kart", "wat was my best laptime", lap_time(k, k.best.lap, best))
    add("lap_time", "vbox", "time of my last lap?", lap_time(v, v.racing[-1].lap))
    add("lap_time", "kart", "how quick was lap 3", lap_time(k, 3))
    add("lap_time", "sim", "lap 4 laptime pls", lap_time(s, 4))
    add("slowest_lap", "vbox", "how long was my slowest lap", lap_time(v, v.slowest.lap, r"slow|worst"))
    add("average_lap", "kart", "my avg lap?", mean_lap(k))
    add("top_speed", "vbox", "top speed in mph", top(v, None))
    add("top_speed", "kart", "what was my top speed in kph on lap 8", top(k, 8))
    add("top_speed", "vbox", "max speed on my fastest lap", top(v, v.best.lap))
    add("rpm", "sim", "revs on the last lap?", rpm(s, s.racing[-1].lap))
    add("rpm", "kart", "what was the highest rpm", rpm(k, None))
    add("consistency", "vbox", "hw consistant was i", consistency(v))
    add("lap_vs_lap", "kart", "compare my lap 4 and lap 6", vs(k, 4, 6))
    add("lap_vs_lap", "vbox", "was lap 5 faster than lap 9?", vs(v, 5, 9))
    add("lap_vs_lap", "kart", "how much faster was my best lap than lap 3", vs(k, 3, k.best.lap))
    add("lap_vs_lap", "vbox", "gap from my best lap to my worst", vs(v, v.slowest.lap, v.best.lap))
    add("theoretical_best", "vbox", "whats my theoretical best from sectors", theo(v))
    add(
        "car_health",
        "vbox",
        "what was the max oil pressure on lap 3",
        channel(v, "Oil Pressure (bar)", "max", 3, "bar"),
    )
    add(
        "car_health",
        "vbox",
        "coolant temp on the last lap?",
        channel(v, "Coolant Temperature (°C)", "max", v.racing[-1].lap, "c"),
    )
    avg = _avg_speed(v)
    add("average_speed", "vbox", "whats my average speed in mph", Expect(need=[[Fig("kmh", avg)]]))
    # a corner's slowest point and the gear there (the simulator records its gear; the VBOX's is empty)
    for corner, lap in (("t2", 3), ("t7", 5)):
        vmin, _ = slowest_point(s, lap, corner)
        add(
            "corner",
            "sim",
            f"apex speed turn {corner[1:]} lap {lap} in kph",
            Expect(need=[[Fig("kmh", vmin)]], tol={"kmh": 3.0}),
        )
    _, g3 = slowest_point(s, 5, "t3", "Gear")
    add("gear", "sim", "which gear through T3 on lap 5?", Expect(words=[_gear_words(g3 or 0)]))
    gears = [slowest_point(s, lp.lap, "t7", "Gear")[1] for lp in s.racing]
    typical = max(set(gears), key=gears.count)
    add("gear", "sim", "what gear was I in at turn 7?", Expect(words=[_gear_words(typical or 0)]))
    for sess, st, text, about in (
        ("vbox", v, "what gear was I in at turn 11", r"\bgear"),
        ("kart", k, "what gear was i in", r"\bgear"),
        ("kart", k, "how hard was I braking into turn 4", r"brak"),
        ("kart", k, "throttle on lap 3?", r"throttle"),
        ("kart", k, "whats the oil temp", r"\boil\b"),
        ("kart", k, "did i lock up", r"lock"),
    ):
        add("not_recorded", sess, text, restraint("not_recorded", text, st, about))
    for sess, st, text, about in (
        ("vbox", v, "lap 55 top speed", r"\blap 55\b"),
        ("sim", s, "min speed at turn 99", r"\b(?:t|turn )99\b"),
        ("sim", s, "sector 40 time", r"\bsector 40\b"),
    ):
        e = restraint("no_such", text, st, about)
        e.allowed_numbers.append(float(len(corners()) + 1))  # how many sectors there are: one per corner, +1
        add("no_such", sess, text, e)
    # sectors: our own lines at each corner's entry across the best lap's path, crossed on each lap
    laps, tab = sector_table(s)
    i2 = int(np.argmin(tab[:, 1]))
    add(
        "sector",
        "sim",
        "what was my best sector 2?",
        Expect(
            need=[[Fig("gap", float(tab[i2, 1]))]],
            words=[rf"\blap {laps[i2]}\b"],
            tol={"gap": SECTOR_TOL_S},
        ),
    )
    vl, vt = sector_table(v)
    lap = vl[3]
    lost = vt[vl.index(lap)] - vt.min(axis=0)
    worst = int(np.argmax(lost))
    add(
        "sector",
        "vbox",
        f"which sector did I lose time in on lap {lap}?",
        Expect(words=[rf"\bsector {worst + 1}\b"], context=r"\blost|\blos[et]|most"),
    )
    add(
        "sector",
        "sim",
        "theoretical best from my sectors?",
        Expect(
            need=[[Fig("time", float(tab.min(axis=0).sum()))]],
            check={"time": [*times(s), float(tab.min(axis=0).sum())]},
            tol={"time": SECTOR_TOL_S * 2},
            context=r"theoretical|added up|sum",
        ),
    )
    # the XRK files: an electric car's one out lap (no valid lap, no rpm channel)
    for sess in ("agx", "du"):
        st = t[sess]
        add("no_such", sess, "what was my best lap time", restraint("no_such", "best lap", st, r"\bbest\b"))
        add("top_speed", sess, "what was my top speed?", top(st, None))
    return q

"""Expectation builders shared by the answer eval's question sets (``answer_questions``, ``answer_heldout``,
``answer_probe``): what a correct answer holds, from truth computed from the raw files
(``tests/support/truth.py``), never by Pitwall."""

from __future__ import annotations

import re

import numpy as np

from tests.support.answer_eval import Expect, Fig
from tests.support.truth import SessionTruth, theoretical_best

CORNER = {
    c: rf"\b(?:{c}|turn {c[1:]})\b"
    for c in ("t1", "t2", "t3", "t3a", "t4", "t5", "t6", "t7", "t8", "t8a", "t9", "t10", "t11")
}


def lat_lon(st: SessionTruth) -> tuple[str, str]:
    return ("Latitude", "Longitude") if "Latitude" in st.channels else ("GPS Latitude", "GPS Longitude")


def times(*sts: SessionTruth) -> list[float]:
    """Every true lap time, and the median and mean of each session's racing laps (true figures too)."""
    out = [t for st in sts for t in st.lap_times()]
    for st in sts:
        racing = [lp.time_s for lp in st.racing]
        out += [float(np.median(racing)), float(np.mean(racing))] if racing else []
    return out


def lap_time(st: SessionTruth, n: int, context: str | None = None) -> Expect:
    return Expect(need=[[Fig("time", st.lap(n).time_s)]], check={"time": times(st)}, context=context)


def vs(st: SessionTruth, slow: int, fast: int) -> Expect:
    a, b = st.lap(slow).time_s, st.lap(fast).time_s
    return Expect(
        need=[[Fig("gap", abs(a - b)), Fig("time", a)]],
        check={"time": times(st)},
        slower=(slow, fast) if a > b else (fast, slow),
    )


def top(st: SessionTruth, lap: int | None) -> Expect:
    v = st.lap(lap).top_kmh if lap is not None else max(lp.top_kmh for lp in st.laps)
    return Expect(
        need=[[Fig("kmh", v)]],
        check={"kmh": [lp.top_kmh for lp in st.laps]},
        context=r"top|max|fastest|peak|highest",
    )


def rpm(st: SessionTruth, lap: int | None) -> Expect:
    v = st.lap(lap).max_rpm if lap is not None else max(lp.max_rpm for lp in st.laps)
    return Expect(
        need=[[Fig("rpm", v)]], check={"rpm": [x for lp in st.laps for x in (lp.max_rpm, lp.min_rpm)]}
    )


def consistency(st: SessionTruth) -> Expect:
    r = np.array([lp.time_s for lp in st.racing])
    opts = [float(np.std(r)), float(np.std(r, ddof=1)), float(r.max() - r.min())]
    return Expect(need=[[Fig("gap", v) for v in opts]], check={"time": times(st)})


def theo(st: SessionTruth) -> Expect:
    lo = theoretical_best(st, *lat_lon(st)) - 0.3
    return Expect(
        need_range={"time": (lo, st.best.time_s)},
        check={"time": times(st)},
        ranges={"time": (lo, st.best.time_s)},
        context=r"theoretical|ideal|optimal|possible|potential|sum of|combined",
    )


def restraint(
    kind: str, text: str, st: SessionTruth, topic: str | None = None, forbid: str | None = None
) -> Expect:
    """Nothing said about what does not exist; the laps that do may be named, and how many there are."""
    allowed = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]
    allowed += [float(lp.lap) for lp in st.laps] + [float(len(st.laps)), float(len(st.racing))]
    return Expect(
        restraint=kind, topic=topic, forbid=forbid, allowed_numbers=allowed, check={"time": times(st)}
    )


def channel(st: SessionTruth, name: str, how: str, lap: int | None, unit: str, conv: float = 1.0) -> Expect:
    laps = [st.lap(lap)] if lap is not None else [None]
    val = [(st.channel_max if how == "max" else st.channel_min)(name, lp) * conv for lp in laps][0]
    everything = [st.channel_max(name) * conv, st.channel_min(name) * conv]
    per_lap = [f(name, lp) * conv for lp in st.laps for f in (st.channel_max, st.channel_min)]
    return Expect(need=[[Fig(unit, val)]], check={unit: everything + per_lap})


def mean_lap(st: SessionTruth) -> Expect:
    """The average of the racing laps."""
    mean = float(np.mean([lp.time_s for lp in st.racing]))
    return Expect(need=[[Fig("time", mean)]], check={"time": [*times(st), mean]}, context=r"average|mean")


def corner_min(s: SessionTruth, e: dict) -> Expect:
    """A driving mistake's minimum speed at its corner (every pass's minimum there is true too)."""
    mins = [x["min_kmh"] for x in s.events if x["corner_id"] == e["corner_id"]] + [e["clean_min_kmh"]]
    return Expect(need=[[Fig("kmh", e["min_kmh"])]], check={"kmh": mins})


def lose_time(s: SessionTruth, context: str = r"time|los[et]|cost|slow|gain|find") -> Expect:
    """Where the time goes: a corner the simulator made a mistake at, never only clean ones."""
    mistakes = sorted({x["corner_id"] for x in s.events if x.get("time_lost_s")})
    return Expect(
        words=["|".join(CORNER[c] for c in mistakes)], forbid=named_only_clean(mistakes), context=context
    )


def oil_drop(s: SessionTruth, forbid: str) -> Expect | None:
    """The lap the oil pressure dropped on (None when the seed drew no drop)."""
    oil = [x["lap"] for x in s.events if x["kind"] == "oil_pressure_drop"]
    return Expect(words=[rf"\blaps? (?:[\d, and]+ )?{oil[0]}\b"], forbid=forbid) if oil else None


def at_corners(s: SessionTruth, kind: str, deny: str) -> Expect | None:
    """Events of ``kind`` named at their corners (None when the seed drew none)."""
    where = sorted({x["corner_id"] for x in s.events if x["kind"] == kind})
    return Expect(words=["|".join(CORNER[c] for c in where)], forbid=deny) if where else None


def named_only_clean(mistakes: list[str]) -> str:
    """A regex for an answer naming a corner without a mistake while naming none with one: wrong."""
    bad = "|".join(CORNER[c] for c in CORNER if c not in mistakes)
    good = "|".join(CORNER[c] for c in mistakes)
    return rf"^(?!.*(?:{good})).*(?:{bad})"

"""The grounding probe: invented figures planted into otherwise-true answers, run through the paddock's
grounding check. Every unit a driver reads is planted (lap, corner, m:ss.sss, s, km/h, mph, rpm, %, bar,
m, °C, a bare count, a signed gap), and the true texts alone must not be flagged.

- caught: the planted text is flagged for something the true text is not;
- false flag: a true text (its figures all in the data, or a true conversion/rounding of one) is flagged.

``ground`` is the one adapter to the product's check: change it there if the function moves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# what the specialist was given (a tool's output), in the shapes the tools return
DATA: dict[str, Any] = {
    "lap_a": 2,
    "lap_b": 5,
    "lap_a_time_s": 108.145,
    "lap_b_time_s": 109.29,
    "total_delta_s": 1.141,
    "corners": [
        {"corner": "t2", "name": "Turn 2", "delta_s": 0.39, "min_speed_a_kmh": 98.8, "min_speed_b_kmh": 94.2},
        {"corner": "t7", "name": "Turn 7", "delta_s": 0.082, "brake_point_m": 1933.5},
    ],
    "top_speed_kmh": 193.8,
    "max_rpm": 7702,
    "oil_press_min_bar": 2.1,
    "water_temp_max_c": 96.4,
    "coast_pct_b": 2.1,
    "lockups": 3,
}
QUESTION = "Why was lap 5 slower than lap 2?"

TRUE_TEXTS = [
    "Lap 5 was 1.141 s slower than lap 2.",
    "Lap 2 was a 1:48.145 and lap 5 a 1:49.290.",
    "Lap 2 108.145 s, lap 5 109.29 s.",
    "Most of it went at T2, 0.39 s, and a little at Turn 7, 0.082 s.",
    "Minimum speed at T2: 98.8 km/h on lap 2, 94.2 km/h on lap 5.",
    "Your top speed was 193.8 km/h, about 120 mph.",
    "You revved to 7702 rpm.",
    "Oil pressure fell to 2.1 bar.",
    "Coolant peaked at 96.4 °C.",
    "You braked for Turn 7 at 1933.5 m.",
    "You coasted 2.1 % of lap 5.",
    "You locked up 3 times.",
    "Lap 5: +1.141 s against lap 2; lap 2: -1.141 s against lap 5.",
    "Carry more speed through T2 on lap 5.",
]

# (unit, an invented sentence): each is added to a true text
PLANTS: list[tuple[str, str]] = [
    ("lap", "Lap 9 was your best."),
    ("lap", "Compare it with laps 2 and 11."),
    ("corner", "You lost the most at T9."),
    ("corner", "Turn 11 cost you too."),
    ("m:ss.sss", "Lap 2 was a 1:47.512."),
    ("m:ss.sss", "Lap 5 was a 1:49.390."),
    ("s", "Lap 5 was 2.4 s slower than lap 2."),
    ("s", "Lap 2 108.345 s."),
    ("km/h", "Your top speed was 201.3 km/h."),
    ("km/h", "Minimum speed at T2 was 91 km/h on lap 5."),
    ("mph", "Your top speed was 131 mph."),
    ("rpm", "You revved to 8100 rpm."),
    ("%", "You coasted 7 % of lap 5."),
    ("bar", "Oil pressure fell to 0.8 bar."),
    ("m", "You braked for Turn 7 at 1990 m."),
    ("°C", "Coolant peaked at 108 °C."),
    ("bare", "You locked up 7 times."),
    ("signed", "Lap 5: +0.72 s against lap 2."),
    ("signed", "Lap 2: -2.3 s against lap 5."),
]


def ground(text: str, data: dict[str, Any] = DATA, question: str = QUESTION) -> list[str]:
    """The paddock's grounding check on ``text``, given what the specialist saw (the adapter)."""
    from services.paddock.agents.narrative import Facts, grounding_check

    facts = Facts()
    facts.add_text(question)
    facts.add_data(data)
    return list(grounding_check(text, facts))


def probe(check: Callable[[str], list[str]] = ground) -> dict[str, Any]:
    """Planted inventions caught and true texts flagged by ``check`` (the paddock's, by default)."""
    ground = check
    base = " ".join(TRUE_TEXTS)
    base_flags = set(ground(base))
    false = [t for t in TRUE_TEXTS if ground(t)]
    by_unit: dict[str, dict[str, int]] = {}
    missed: list[str] = []
    for i, (unit, plant) in enumerate(PLANTS):
        # planted at a different place in the true text each time (start, middle, end)
        parts = list(TRUE_TEXTS)
        parts.insert(i % (len(parts) + 1), plant)
        caught = bool(set(ground(" ".join(parts))) - base_flags)
        u = by_unit.setdefault(unit, {"planted": 0, "caught": 0})
        u["planted"] += 1
        u["caught"] += int(caught)
        if not caught:
            missed.append(plant)
    n = len(PLANTS)
    caught_n = sum(u["caught"] for u in by_unit.values())
    return {
        "planted": n,
        "caught": caught_n,
        "caught_share": caught_n / n,
        "missed": missed,
        "true_texts": len(TRUE_TEXTS),
        "false_flags": len(false) + (1 if base_flags and not false else 0),
        "false_flagged": {t: ground(t) for t in false},
        "by_unit": by_unit,
    }

"""The claim check over the model's own words (``agents/claims.py``): a sentence that names a part of the
car no fact speaks of is dropped; coaching in plain words, and a part a fact does name, stay."""

from __future__ import annotations

import pytest

from services.paddock.agents.claims import drop_unsupported, unsupported

FACTS = ["Lap 3 was 1:49.120, 0.842 s slower than lap 2 (1:48.278).", "Most of it went at T7: 0.343 s."]
COACHING = "Brake a touch later and carry more speed through T7."


@pytest.mark.parametrize(
    ("claim", "system"),
    [
        ("There is a problem with the fuel system.", "fuel"),
        ("The injectors may be clogged.", "fuel"),
        ("Your oil is running low.", "oil"),
        ("The radiator could be blocked.", "cooling"),
        ("Water temperature climbed all session.", "cooling"),
        ("The engine was overheating by the end.", "cooling"),
        ("Your brake pads look worn.", "brakes"),
        ("The tyres were past their best.", "tyres"),
        ("Check the tire pressures before the next run.", "tyres"),
        ("The gearbox may be slipping.", "gearbox"),
        ("The clutch was slipping on the exits.", "clutch"),
        ("You were down on boost.", "boost"),
        ("The turbo spooled late.", "boost"),
        ("Soften the rear dampers.", "suspension"),
        ("The alignment is off: add front camber.", "alignment"),
        ("The ECU pulled timing.", "electrics"),
        ("A sensor failed on lap 3.", "electrics"),
        ("The EGT ran high.", "engine"),  # the parser's own word for the exhaust gas temperature
        ("I heard detonation on the straight.", "engine"),  # the parser's word for engine knock
    ],
)
def test_a_sentence_naming_a_part_no_fact_speaks_of_is_dropped(claim: str, system: str) -> None:
    assert system in unsupported(claim, FACTS)
    assert drop_unsupported(f"{claim} {COACHING}", FACTS) == (COACHING, [claim])


@pytest.mark.parametrize(
    "coaching",
    [
        COACHING,
        "You came in different each lap: pick one line and commit to it.",
        "Keep it smooth on the throttle and wait for the car to settle.",
    ],
)
def test_coaching_in_plain_words_stays(coaching: str) -> None:
    assert unsupported(coaching, FACTS) == []
    assert drop_unsupported(coaching, FACTS) == (coaching, [])


def test_a_part_a_fact_names_may_be_spoken_of() -> None:
    oil = ["Oil pressure dipped to 1.1 bar on lap 4 at T6."]
    said = "The oil pressure dip at T6 is worth a look. There is a problem with the fuel system."
    assert drop_unsupported(said, oil) == (
        "The oil pressure dip at T6 is worth a look.",
        ["There is a problem with the fuel system."],
    )
    # a tool's JSON keys speak of the oil too; a brake marker lets the model talk about the brakes
    assert unsupported("Your oil ran hot.", ['{"oil_temp_c_max": 121.0}']) == []
    assert unsupported("Your brakes faded.", ["Your brake marker at T4 was 92 m."]) == []
    assert unsupported("Your brakes faded.", FACTS) == ["brakes"]


def test_every_sentence_dropped_leaves_nothing() -> None:
    assert drop_unsupported("The clutch slipped. The turbo lagged.", FACTS) == (
        "",
        ["The clutch slipped.", "The turbo lagged."],
    )

"""The claim check over the model's own words: a sentence that names a car system, part or measure (fuel,
oil, coolant, brakes, tyres, gearbox, clutch, boost, suspension, alignment, ECU ...) that no fact of the
data answer mentions is dropped, as a sentence with an unsupported figure is never shown. A small model
invents causes ("a problem with the fuel system") that state no figure, so the grounding check alone
cannot see them.

One vocabulary (``systems()``): the parser's own words for the car's readings (``measures.MEASURE_WORDS`` of
the measures a judge question is about, brake temperatures and the driver aids) joined to the parts a
driver names that no logger channel records. A system is mentioned by a fact when the fact says any of
its words (or, for the brakes, any braking word: "the brake marker" lets the model talk about the
brakes); "brake later" and "keep the tyres" are coaching only where the facts speak of them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from services.paddock import measures as ms
from services.paddock.questions import words as w

# the car's readings as the parser reads them -> the system they belong to
_SYSTEM_OF = {
    "oil_pressure": "oil",
    "oil_temp": "oil",
    "coolant_temp": "cooling",
    "coolant_pressure": "cooling",
    "fuel_pressure": "fuel",
    "fuel_level": "fuel",
    "lambda": "fuel",
    "battery_voltage": "electrics",
    "engine_light": "electrics",
    "tyre_pressure": "tyres",
    "tyre_temp": "tyres",
    "brake_temp": "brakes",
    "egt": "engine",
    "head_temp": "engine",
    "intake_temp": "engine",
    "knock": "engine",
    "boost": "boost",
    "abs": "driver aids",
    "dsc": "driver aids",
}
# phrases of those measures that name no system ("a pressure drop" may be the brakes' as well as the oil's)
_GENERIC = w.word_set("pressure drop drops dip dips loss lose lost losing in of fade fading")
# the parts no channel records, and the words (singular; a plural "s" is read too) a sentence names them by
_PARTS = {
    "fuel": "fuel, fuel system, fuel pump, injector, injectors, petrol, gasoline",
    "oil": "oil, sump, oil pump",
    "cooling": "coolant, radiator, water pump, thermostat, cooling, cooling system",
    "brakes": """brakes, brake pad, pads, brake disc, disc, rotor, caliper, brake fluid, brake line, brake
        system, brake fade, brake balance, brake bias, master cylinder""",
    "tyres": "tyre, tire, tpms, tread, sidewall, puncture",
    "gearbox": "gearbox, transmission, synchro, synchros, differential, diff, driveshaft, axle, gear linkage",
    "clutch": "clutch, flywheel",
    "boost": "turbo, turbocharger, supercharger, wastegate, intercooler, blow off valve",
    "suspension": """suspension, damper, shock, shock absorber, spring, anti roll bar, roll bar, sway bar,
        bushing, ride height, wheel bearing""",
    "alignment": "alignment, camber, toe, caster",
    "electrics": """ecu, ecm, engine map, sensor, wiring, electrics, electrical, battery, alternator, spark
        plug, ignition, coil pack""",
    "engine": "engine, misfire, exhaust, intake, air filter, cam, camshaft, timing belt, head gasket, piston",
    "steering": "steering rack, power steering, tie rod",
    "aero": "aero, downforce, wing, splitter, diffuser",
    "driver aids": "abs, traction control, stability control",
}
_SUPPORT_ONLY = {"brakes": "brake, braking, braked"}


@lru_cache(maxsize=1)
def systems() -> dict[str, frozenset[str]]:
    """The one vocabulary: system -> the phrases a sentence names it by."""
    out: dict[str, set[str]] = {
        s: {p.strip() for p in ps.split(",") if p.strip()} for s, ps in _PARTS.items()
    }
    for phrase, measure in ms.MEASURE_WORDS.items():
        system = _SYSTEM_OF.get(measure)
        if system and not set(phrase.split()) <= _GENERIC:
            out[system].add(phrase)
    return {s: frozenset(" ".join(p.split()) for p in ps) for s, ps in out.items()}


def _pattern(phrases: frozenset[str]) -> re.Pattern[str]:
    alts = sorted((re.escape(p).replace(r"\ ", r"[\s-]+") for p in phrases), key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(alts)})(?:e?s)?\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def _patterns() -> tuple[dict[str, re.Pattern[str]], dict[str, re.Pattern[str]]]:
    """(what names each system, what mentions it in a fact), compiled once on first use."""
    named = {s: _pattern(ps) for s, ps in systems().items()}
    more = {s: frozenset(p.strip() for p in ps.split(",")) for s, ps in _SUPPORT_ONLY.items()}
    mentioned = {s: _pattern(ps | more.get(s, frozenset())) for s, ps in systems().items()}
    return named, mentioned


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def named(text: str) -> set[str]:
    """The systems ``text`` names."""
    return {s for s, rx in _patterns()[0].items() if rx.search(text)}


def unsupported(text: str, facts: list[str]) -> list[str]:
    """The systems ``text`` names that no fact mentions, sorted."""
    said = named(text)
    if not said:
        return []
    plain = [f.replace("_", " ") for f in facts]  # a tool's keys: "oil_press_bar" speaks of the oil
    return sorted(s for s in said if not any(_patterns()[1][s].search(f) for f in plain))


def drop_unsupported(text: str, facts: list[str]) -> tuple[str, list[str]]:
    """(``text`` without its sentences that name a system no fact mentions, the sentences dropped)."""
    kept: list[str] = []
    dropped: list[str] = []
    for s in _SENTENCE.split(text.strip()):
        (dropped if unsupported(s, facts) else kept).append(s)
    return " ".join(kept), dropped

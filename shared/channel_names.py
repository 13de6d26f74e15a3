"""Channel names as the rule table (:mod:`shared.channel_rules`) reads them: the normalised name, the
:class:`Rule` type that matches a name, a file's channel function or a unit, and the alarm and warning
channels, which feed no signal column."""

from __future__ import annotations

import re
from dataclasses import dataclass

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEP = re.compile(r"[\s_\-./:]+")
_CALC = re.compile(r"\s*\((calc|calculated|math)\)\s*$", re.IGNORECASE)
_DUP = re.compile(r"\s+dup\s+\d+\s*$", re.IGNORECASE)


def normalise_name(name: str) -> tuple[str, bool]:
    """``"WheelSpdFL"`` -> ``("wheel spd fl", False)``; ``"Oil Press (Calc)"`` -> ``("oil press", True)``.

    Camel case is split, ``_ - . / :`` become spaces, case is dropped; the flag says the name marks a
    calculated (math) channel or a Race Studio duplicate (`` dup 1``), which rank after real sensors.
    """
    s = name.strip()
    derived = False
    for rx in (_CALC, _DUP):
        if rx.search(s):
            s = rx.sub("", s)
            derived = True
    s = _CAMEL.sub(" ", s)
    s = _SEP.sub(" ", s).strip().lower()
    return s, derived


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    canonical: str
    pattern: str  # regular expression, full match on the normalised name
    assume_unit: str | None = (
        None  # the unit taken when the file declares none (only where no other is possible)
    )
    sign_flip: bool = False
    sentinels: tuple[float, ...] = ()  # raw "no reading" values
    hold: bool = False  # flags / gears: hold the previous value instead of interpolating
    formats: tuple[str, ...] = ()  # source formats the rule is for (empty: all)
    note: str = ""
    function: str = ""  # regular expression, full match on the file's normalised channel function
    units: tuple[str, ...] = ()  # a channel in one of these (normalised) units, its name saying nothing else
    veto: str = ""  # regular expression searched in the normalised name: when found, the rule never matches

    def for_format(self, source_format: str) -> bool:
        return not self.formats or any(source_format.startswith(f) for f in self.formats)

    def matches(self, norm: str, source_format: str) -> bool:
        return self.for_format(source_format) and re.fullmatch(self.pattern, norm) is not None

    def matches_function(self, function: str, norm: str, source_format: str) -> bool:
        """The file's function fits (AiM gives every CAN channel in rpm "Engine RPM": the veto on the
        name keeps a turbo or wheel speed out)."""
        return (
            bool(self.function and function)
            and self.for_format(source_format)
            and re.fullmatch(self.function, function) is not None
            and not self.vetoed(norm)
        )

    def matches_unit(self, norm: str, unit: str, source_format: str) -> bool:
        return (
            bool(self.units)
            and unit in self.units
            and self.matches(norm, source_format)
            and not self.vetoed(norm)
        )

    def vetoed(self, norm: str) -> bool:
        return bool(self.veto) and re.search(self.veto, norm) is not None


#: what an alarm or warning channel is about: (normalised-name pattern, the words for it)
_ALARM = re.compile(r"(^| )(alarm|alarms|alm|warn|warning|warnings)\d*( |$)")
_ALARM_SUBJECTS: tuple[tuple[str, str], ...] = (
    (
        r"(water|coolant|wat|h2o|clt|ect).*(temp|t\b)|(temp|t) (water|coolant)|\b(ect|wt|h2o|clt)\b|water|coolant",
        "water temperature",
    ),
    (r"oil.*(press|p\b)|(press|p) oil|\b(eop|op)\b", "oil pressure"),
    (r"oil.*(temp|t\b)|(temp|t) oil|eot", "oil temperature"),
    (r"fuel.*(press|p\b)|(press|p) fuel", "fuel pressure"),
    (r"fuel", "fuel level"),
    (r"rpm|rev|engine speed", "engine speed"),
    (r"batt|volt", "battery voltage"),
    (r"tyre|tire|tpms", "tyre pressure"),
    (r"brake", "brakes"),
)


def alarm_subject(norm: str) -> str | None:
    """``"water temp alarm"`` -> ``"water temperature"``; None when the name is no alarm or warning."""
    if not _ALARM.search(norm):
        return None
    rest = _ALARM.sub(" ", norm).strip()
    rest = re.sub(r"^b ", "", rest)
    for rx, words in _ALARM_SUBJECTS:
        if re.search(rx, rest):
            return words
    if rest.isdigit():
        return f"number {rest}"
    return rest or "general"

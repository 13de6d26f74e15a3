"""Unit conversion between the units loggers write and Pitwall's canonical units."""

from __future__ import annotations

import numpy as np

_ALIASES = {
    "kph": "km/h",
    "kmh": "km/h",
    "km/h": "km/h",
    "m/s": "m/s",
    "mph": "mph",
    "bar": "bar",
    "psi": "psi",
    "kpa": "kPa",
    "mbar": "mbar",
    "c": "C",
    "°c": "C",
    "degc": "C",
    "f": "F",
    "°f": "F",
    "degf": "F",
    "k": "K",
    "l": "l",
    "litre": "l",
    "liter": "l",
    "gal": "gal",
    "g": "g",
    "m/s2": "m/s2",
    "m/s^2": "m/s2",
    "m/s²": "m/s2",
    "m/s/s": "m/s2",
    "ms-2": "m/s2",
    "m s-2": "m/s2",
    "hpa": "hPa",
    "mpa": "MPa",
    "1/min": "rpm",
    "rev/min": "rpm",
    "deg c": "C",
    "deg f": "F",
    "deg": "deg",
    "degrees": "deg",
    "°": "deg",
    "rad": "rad",
    "deg/s": "deg/s",
    "degs": "deg/s",
    "°/s": "deg/s",
    "rad/s": "rad/s",
    "%": "%",
    "rpm": "rpm",
    "v": "V",
    "mv": "mV",
    "m": "m",
    "km": "km",
    "ft": "ft",
    "s": "s",
    "ms": "ms",
}

G = 9.80665  # standard gravity, m/s^2 per g

# (from, to) -> (scale, offset): to = from * scale + offset
_LINEAR: dict[tuple[str, str], tuple[float, float]] = {
    ("m/s", "km/h"): (3.6, 0.0),
    ("mph", "km/h"): (1.609344, 0.0),
    ("psi", "bar"): (0.0689475729, 0.0),
    ("kPa", "bar"): (0.01, 0.0),
    ("mbar", "bar"): (0.001, 0.0),
    ("hPa", "bar"): (0.001, 0.0),
    ("MPa", "bar"): (10.0, 0.0),
    ("F", "C"): (5.0 / 9.0, -32.0 * 5.0 / 9.0),
    ("K", "C"): (1.0, -273.15),
    ("gal", "l"): (3.785411784, 0.0),
    ("m/s2", "g"): (1.0 / G, 0.0),
    ("rad", "deg"): (57.29577951308232, 0.0),
    ("rad/s", "deg/s"): (57.29577951308232, 0.0),
    ("mV", "V"): (0.001, 0.0),
    ("km", "m"): (1000.0, 0.0),
    ("ft", "m"): (0.3048, 0.0),
    ("ms", "s"): (0.001, 0.0),
}


def normalise_unit(unit: str) -> str:
    u = (unit or "").strip()
    return _ALIASES.get(u.lower(), u)


def conversion(from_unit: str, to_unit: str) -> tuple[float, float]:
    """(scale, offset) turning ``from_unit`` into ``to_unit``; raises ValueError when unknown."""
    a, b = normalise_unit(from_unit), normalise_unit(to_unit)
    if a == b or not a or not b:
        return 1.0, 0.0
    if (a, b) in _LINEAR:
        return _LINEAR[(a, b)]
    if (b, a) in _LINEAR:
        s, o = _LINEAR[(b, a)]
        return 1.0 / s, -o / s
    raise ValueError(f"no conversion from {from_unit!r} to {to_unit!r}")


_UNDECLARED = {"", "#", "-", "n/a", "none", "(null)", "null"}


def declared(unit: str | None) -> bool:
    """True when a file states a real unit (blank, ``#`` and ``(null)`` state none)."""
    return (unit or "").strip().lower() not in _UNDECLARED


def source_unit(file_unit: str | None, profile_unit: str | None, target: str) -> str:
    """The unit a channel's values are in: the file's declared unit when it converts to ``target``,
    else the profile's fallback, else the target itself (values taken as they are)."""
    for u in (file_unit, profile_unit):
        if declared(u):
            try:
                conversion(u or "", target)
            except ValueError:
                continue
            return u or ""
    return target


def convert(values: np.ndarray | float, from_unit: str, to_unit: str) -> np.ndarray | float:
    s, o = conversion(from_unit, to_unit)
    if s == 1.0 and o == 0.0:
        return values
    return values * s + o

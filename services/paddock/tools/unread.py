"""The file's channels Pitwall does not read: a channel whose name reads as a measure (its own words, by the
question vocabulary's phrases) that no Pitwall signal is fed from, so that a measure it holds is never
called absent ("the file has a channel named Battery Soc that Pitwall does not read yet"). Runs SQL."""

from __future__ import annotations

import re

from services.paddock.measures import MEASURE_WORDS
from services.paddock.tools.base import rows

_CAMEL = re.compile(r"([a-z])([A-Z])")
#: a measure whose channels are often named by their system only: "Brake Sense", "Ave Brake" (read as the
#: brake, its marker) are brake channels, so brake pressure is never called absent beside them
SAID_BY = {"brake_pressure": ("brake_pressure", "brake_point", "brake_pedal")}
#: a first word naming a system whose channels are its own, not the driver's inputs: a Formula Student car's
#: emergency brake system ("EBS Gas" is its tank pressure, never the throttle; "EBS State Flag")
OWN_SYSTEMS = frozenset({"ebs"})


def measure_named(name: str) -> str | None:
    """The measure a logger channel's name reads as ("Battery Soc" -> ``battery_charge``, "Exhaust
    Temperature" -> ``egt``): its longest phrase found, the name's own words only (no spelling read into
    it: "Motor Temp" is an electric motor's, not an engine's); None when the name names none. Of two
    phrases as long, the one the name says first ("Brake Gas" is the brake's, not the throttle's); a name
    of a system with channels of its own (``OWN_SYSTEMS``: "EBS Gas") reads as none."""
    words = re.findall(r"[a-z0-9]+", _CAMEL.sub(r"\1 \2", name).lower())  # "BatterySoc": two words
    if words and words[0] in OWN_SYSTEMS:
        return None
    joined = f" {' '.join(words)} "
    found = [
        (len(p.split()), -joined.index(f" {p} "), m) for p, m in MEASURE_WORDS.items() if f" {p} " in joined
    ]
    return max(found)[2] if found else None


def unread(sid: str, measure: str) -> list[str]:
    """The file's channels whose names read as ``measure`` that Pitwall maps to none of its signals."""
    return unread_of(unread_all(sid), measure)


def unread_of(held: dict[str, list[str]], measure: str) -> list[str]:
    """``measure``'s channels in ``unread_all``'s answer (``SAID_BY``: brake pressure's, any brake's)."""
    return [n for m in SAID_BY.get(measure, (measure,)) for n in held.get(m, [])]


def unread_all(sid: str) -> dict[str, list[str]]:
    """Measure -> the file's channels whose names read as it that Pitwall maps to none of its signals (the
    session's ``signal_registry`` rows with no canonical signal) and that hold a reading (more than one
    value in ``telemetry_signals``: a constant is a "no sensor" marker, as the VBOX's -50 °C exhaust
    temperature): in the file, yet no Pitwall figure."""
    try:
        got = rows(
            "SELECT DISTINCT name FROM signal_registry WHERE session_id = ? AND canonical IS NULL ORDER BY name",
            [sid],
        )
        named = {str(r["name"]): measure_named(str(r["name"])) for r in got}
        names = [n for n, m in named.items() if m is not None]
        if not names:
            return {}
        marks = ", ".join("?" for _ in names)
        live = rows(
            f"SELECT name FROM telemetry_signals WHERE session_id = ? AND name IN ({marks}) "
            "GROUP BY name HAVING min(value) < max(value)",
            [sid, *names],
        )
    except Exception:  # a lake without the registry: name nothing rather than guess
        return {}
    have = {str(r["name"]) for r in live}
    out: dict[str, list[str]] = {}
    for n in names:
        if n in have:
            out.setdefault(str(named[n]), []).append(n)
    return out

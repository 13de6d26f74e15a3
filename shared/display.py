"""How Pitwall names things for people: one lap-time format and one corner form everywhere
(``1:48.222``; ids ``t3a`` stored, ``T3A`` / ``Turn 3A`` shown), so the demo, ``pitwall sessions``,
``laps``, the tools' sentences and the tablet agree. Corner ids are accepted in any case."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from shared.corner_ids import CORNER_ID, corner_id

__all__ = ["corner_id"]


def corner_short(cid: str | None) -> str:
    """The shown short form: ``"t3a"`` / ``"T3a"`` -> ``"T3A"``, ``"c5"`` -> ``"C5"``; missing -> ``"-"``."""
    if not cid:
        return "-"
    m = CORNER_ID.match(cid)
    if not m:
        return cid
    return f"{m.group(1).upper()}{int(m.group(2))}{m.group(3).upper()}"


def listed(items: Sequence[str]) -> str:
    """Words in a list as a sentence says them: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def lap_time(s: float | None) -> str:
    """``108.2224`` -> ``"1:48.222"``; missing -> ``"-"``."""
    if s is None or not math.isfinite(s):
        return "-"
    ms = round(s * 1000)
    m, rest = divmod(ms, 60_000)
    return f"{m}:{rest / 1000:06.3f}"


@cache
def _names(track_id: str) -> dict[str, str]:
    from shared.profiles.track import load_track

    try:
        return {c.id: c.name for c in load_track(track_id).corners}
    except (KeyError, ValueError, OSError):
        return {}


def corner_name(cid: str | None, track_id: str | None = None) -> str:
    """``"t11"`` -> ``"Turn 11"``, ``"t3a"`` -> ``"Turn 3A"`` (the track profile's name when it is known)."""
    if not cid:
        return "-"
    if track_id:
        name = _names(track_id).get(corner_id(cid))
        if name:
            return name
    m = CORNER_ID.match(cid)
    if m:
        return f"{'Turn' if m.group(1).lower() == 't' else 'Corner'} {int(m.group(2))}{m.group(3).upper()}"
    return cid


@cache
def track_title(track_id: str | None) -> str:
    """A track id as people read it: the profile's name (``"sonoma"`` -> ``"Sonoma Raceway"``); a track
    built from the driven line (``auto-…``) or an unknown id is "this track", never the id."""
    from shared.profiles.track import load_track

    if not track_id:
        return "an unknown track"
    try:
        name = load_track(track_id).name
    except (KeyError, ValueError, OSError):
        return "this track"
    return name if name and name != track_id and not name.startswith("auto-") else "this track"


@cache
def car_title(car_id: str | None) -> str | None:
    """A car profile id as people read it (``"bmw_e46_m3_aim_mxp"`` -> ``"2003 BMW M3 (E46)"``, without
    the logger wiring after " on "); None for the generic profile, which names no car."""
    from shared.profiles.car import load_car

    if not car_id or car_id == "generic":
        return None
    try:
        name = load_car(car_id).name
    except (KeyError, ValueError, OSError):
        return None
    return name.split(" on ")[0].strip() or None


@cache
def _generic_name() -> str:
    from shared.profiles.car import load_car

    return load_car("generic").name


def car_shown(car_id: str | None, car_name: str | None) -> str | None:
    """The car as a page names it: the profile's (:func:`car_title`), else the name the file gave; None
    when neither names a car (the generic profile's own name is no car's)."""
    if car_id and car_id != "generic":
        return car_title(car_id) or car_name or None
    return car_name if car_name and car_name != _generic_name() else None

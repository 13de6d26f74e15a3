"""What a session recorded. A measure whose channels the session lacks is "not recorded", never a zero
or an empty list: a tool states a count of 0 only when the channels behind it were recorded and nothing
happened.

Two sources, either of which can say a measure is missing: the import's data-quality report
(``shared.quality.unavailable``, for imported files) and the stored telemetry itself (a channel with no
value in the whole session), which covers live and simulated sessions too. A measure this kind of vehicle
has not got (a kart's ABS, ``tools.vehicle``) is never named; one the file holds in a channel Pitwall does
not read is named with that channel (``not_recorded_text``: the one wording answers, debrief and tools use).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from services.paddock.tools.base import rows, session_arrays
from services.paddock.tools.unread import unread_all, unread_of
from services.paddock.tools.vehicle import NOT_FITTED, vehicle_kind
from shared.display import listed
from shared.quality import partial_pct, unavailable

_WHEELS = ("fl", "fr", "rl", "rr")


@dataclass(frozen=True)
class Measure:
    words: str  # how a sentence names it: "wheel speeds"
    channels: tuple[str, ...]  # canonical telemetry columns; any one of them recorded is enough
    capability: str | None = None  # its key in shared.quality.CAPABILITIES, when it has one
    asked: str | None = None  # the question vocabulary's measure a file channel named for it reads as


MEASURES: dict[str, Measure] = {
    "speed": Measure("speed", ("speed_kmh",), "speed, corner speeds and corners"),
    "wheel_speeds": Measure(
        "wheel speeds",
        tuple(f"wheel_speed_{w}_kmh" for w in _WHEELS),
        "lockups and wheelspin",
        "wheel_speed",
    ),
    "rear_wheel_speeds": Measure("rear wheel speeds", ("wheel_speed_rl_kmh", "wheel_speed_rr_kmh")),
    "abs": Measure("ABS activity", ("abs_active",), None, "abs"),
    "dsc": Measure("DSC activity", ("dsc_active",), None, "dsc"),
    "mil": Measure("the engine warning light", ("mil",), None, "engine_light"),
    "brake_switch": Measure("the brake light switch", ("brake_switch",)),
    "brake_pressure": Measure(
        "brake pressure",
        ("brake_bar",),
        "brake pressure (peak, trail braking)",
        "brake_pressure",
    ),
    "throttle": Measure(
        "throttle position", ("throttle_pct",), "throttle pickup and throttle use", "throttle"
    ),
    "steering": Measure("steering angle", ("steer_deg",), "steering smoothness", "steering"),
    "g_lat": Measure("lateral g", ("g_lat",)),
    "g_long": Measure("longitudinal g", ("g_long",)),
    "yaw_rate": Measure("yaw rate", ("yaw_rate_dps",)),
    "rpm": Measure("engine rpm", ("rpm",)),
    "oil_pressure": Measure("oil pressure", ("oil_press_bar",), None, "oil_pressure"),
    "oil_temp": Measure("oil temperature", ("oil_temp_c",), None, "oil_temp"),
    "coolant": Measure("coolant temperature", ("water_temp_c",), None, "coolant_temp"),
    "fuel_pressure": Measure("fuel pressure", ("fuel_press_bar",), None, "fuel_pressure"),
    "tpms": Measure(
        "tyre pressures (TPMS)",
        tuple(f"tpms_press_{w}_bar" for w in _WHEELS),
        "tyre pressures and temperatures",
        "tyre_pressure",
    ),
    "tpms_temp": Measure(
        "tyre temperatures (TPMS)", tuple(f"tpms_temp_{w}_c" for w in _WHEELS), None, "tyre_temp"
    ),
    "tpms_alarm": Measure("TPMS alarms", tuple(f"tpms_alarm_{w}" for w in _WHEELS)),
}


def quality_report(session_id: str) -> dict[str, Any] | None:
    """The session's stored data-quality report (imported files), or None (live and simulated sessions)."""
    got = rows("SELECT report_json FROM session_quality WHERE session_id = ? LIMIT 1", [session_id])
    if not got:
        return None
    try:
        rep = json.loads(got[0]["report_json"])
    except (TypeError, ValueError):
        return None
    return rep if isinstance(rep, dict) else None


def _empty(v: np.ndarray | None) -> bool:
    return v is None or not bool(np.isfinite(v).any())


@dataclass
class Recorded:
    """Which measures one session recorded: ``lacking`` maps a measure to why it is missing, and
    ``missing`` lists the channels with no value (a partly recorded measure, one wheel of four, has some)."""

    lacking: dict[str, str]
    missing: list[str]
    partial: dict[str, float] = field(default_factory=dict)  # measure -> % of the session with a reading
    not_fitted: frozenset[str] = frozenset()  # lacking measures this kind of vehicle has not got
    # lacking measure -> the file's live channels named for it that Pitwall does not read
    unread: dict[str, list[str]] = field(default_factory=dict)

    def has(self, measure: str) -> bool:
        return measure not in self.lacking

    def fields(self, *measures: str) -> dict[str, Any]:
        """The fields a tool adds: ``recorded`` (every one of ``measures`` recorded), ``missing`` (their
        channels with no value), ``not_recorded`` (a plain sentence, or None) and ``partly_recorded`` (a
        plain sentence naming what has a reading on only part of the session, or None), with its parts:
        ``not_recorded_words`` and ``unread_channels`` (words -> the file's channels Pitwall does not read),
        and ``not_fitted`` (what this kind of vehicle has not got: never named)."""
        chans = {c for m in measures for c in MEASURES[m].channels}
        gone = [m for m in measures if m in self.lacking]
        said = [m for m in _said(gone) if m not in self.not_fitted]
        words = [MEASURES[m].words for m in said if m not in self.unread]
        unread = {MEASURES[m].words: self.unread[m] for m in said if m in self.unread}
        part = [f"{MEASURES[m].words} ({self.partial[m]:.0f} %)" for m in measures if m in self.partial]
        return {
            "recorded": not gone,
            "missing": [c for c in self.missing if c in chans],
            "not_recorded": not_recorded_text(words, unread),
            "not_recorded_words": words,
            "unread_channels": unread,
            "not_fitted": [m for m in gone if m in self.not_fitted],
            "partly_recorded": ("Recorded on only part of this session: " + ", ".join(part) + ".")
            if part
            else None,
        }


def _said(measures: list[str]) -> list[str]:
    """``measures`` as a sentence names them: "wheel speeds" already says the rear ones."""
    return [m for m in measures if not (m == "rear_wheel_speeds" and "wheel_speeds" in measures)]


def unread_text(names: list[str]) -> str:
    """How every answer, the debrief and the tools say the file holds a channel Pitwall does not read:
    ``"the file has a channel named Brake Sense and a channel named Brake Gas, which Pitwall does not read
    yet"``."""
    return f"the file has {listed([f'a channel named {n}' for n in names])}, which Pitwall does not read yet"


def not_recorded_text(
    words: list[str], unread: dict[str, list[str]] | None = None, where: str = "in this session", so: str = ""
) -> str | None:
    """The one wording for what a session did not record (None when nothing): ``"Not recorded in this
    session: wheel speeds, ABS activity."``, ``so`` adding what follows; then each measure the file holds
    in a channel Pitwall does not read: ``"For brake pressure, the file has a channel named Brake Sense,
    which Pitwall does not read yet."``. ``where=""``: ``"Not recorded: ..."``."""
    parts = []
    if words:
        head = f"Not recorded {where}".rstrip()
        parts.append(f"{head}: {', '.join(words)}{f', so {so}' if so else ''}.")
    parts += [f"For {what}, {unread_text(names)}." for what, names in (unread or {}).items()]
    return " ".join(parts) or None


def not_recorded_clause(text: str | None) -> str:
    """``not_recorded_text`` continuing a labelled line (``"Safety: no DSC; not recorded: ABS activity."``)."""
    return f"; {text[0].lower()}{text[1:]}" if text else ""


def recorded(session_id: str, arrays: dict[str, np.ndarray], measures: tuple[str, ...]) -> Recorded:
    """Which of ``measures`` the session recorded, from its quality report and its telemetry ``arrays``
    (whole-session arrays; a channel absent from them counts as not recorded)."""
    report = quality_report(session_id)
    lacking: dict[str, str] = {}
    missing: list[str] = []
    partial: dict[str, float] = {}
    for m in measures:
        spec = MEASURES[m]
        empty = [c for c in spec.channels if _empty(arrays.get(c))]
        why = unavailable(report, spec.capability) if spec.capability else None
        pct = partial_pct(report, spec.capability) if spec.capability else None
        if why is None and pct is not None:
            partial[m] = pct
        if why is None and len(empty) == len(spec.channels):
            why = f"{spec.words} not recorded: no {', '.join(spec.channels)} in this session"
        if why is not None:
            lacking[m] = why
            # the report also rules out a channel recorded on too little of the session (shared.quality)
            empty = empty or list(spec.channels)
        missing += [c for c in empty if c not in missing]
    if not lacking:
        return Recorded(lacking, missing, partial)
    held = unread_all(session_id)  # question measure -> the file's channels Pitwall does not read
    asked = {m: MEASURES[m].asked for m in lacking}
    unread = {m: names for m, q in asked.items() if q and (names := unread_of(held, q))}
    row = rows("SELECT * FROM sessions WHERE session_id = ?", [session_id])
    kind = vehicle_kind(row[0], electric="battery_charge" in held) if row else "car"
    return Recorded(lacking, missing, partial, NOT_FITTED[kind] & set(lacking), unread)


def session_recorded(session_id: str, measures: tuple[str, ...]) -> Recorded:
    """``recorded`` over the session's whole stored telemetry (read once per session and shared)."""
    chans = tuple(dict.fromkeys(c for m in measures for c in MEASURES[m].channels))
    return recorded(session_id, session_arrays(session_id, chans), measures)


#: driver-event kind (shared.event_conditions) -> the measures its detection needs, all of them
EVENT_MEASURES: dict[str, tuple[str, ...]] = {
    "lockup": ("wheel_speeds", "speed", "brake_pressure"),
    "wheelspin": ("rear_wheel_speeds", "speed", "throttle"),
    "abs": ("abs",),
    "dsc": ("dsc",),
    "mil": ("mil",),
    "tpms_alarm": ("tpms_alarm",),
    "tpms_drop": ("tpms",),
    "oil_pressure": ("oil_pressure", "rpm", "throttle"),
    "coolant": ("coolant",),
}


def event_kinds(rec: Recorded) -> tuple[list[str], list[str]]:
    """(event kinds the session could show, kinds it could not: a channel they need is not recorded)."""
    can = [k for k, ms in EVENT_MEASURES.items() if all(rec.has(m) for m in ms)]
    return can, [k for k in EVENT_MEASURES if k not in can]


def event_measures() -> tuple[str, ...]:
    return tuple(dict.fromkeys(m for ms in EVENT_MEASURES.values() for m in ms))

"""What a session recorded. A measure whose channels the session lacks is "not recorded", never a zero
or an empty list: a tool states a count of 0 only when the channels behind it were recorded and nothing
happened.

Two sources, either of which can say a measure is missing: the import's data-quality report
(``shared.quality.unavailable``, for imported files) and the stored telemetry itself (a channel with no
value in the whole session), which covers live and simulated sessions too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from services.paddock.tools.base import rows, session_arrays
from shared.quality import partial_pct, unavailable

_WHEELS = ("fl", "fr", "rl", "rr")


@dataclass(frozen=True)
class Measure:
    words: str  # how a sentence names it: "wheel speeds"
    channels: tuple[str, ...]  # canonical telemetry columns; any one of them recorded is enough
    capability: str | None = None  # its key in shared.quality.CAPABILITIES, when it has one


MEASURES: dict[str, Measure] = {
    "speed": Measure("speed", ("speed_kmh",), "speed, corner speeds and corners"),
    "wheel_speeds": Measure(
        "wheel speeds", tuple(f"wheel_speed_{w}_kmh" for w in _WHEELS), "lockups and wheelspin"
    ),
    "rear_wheel_speeds": Measure("rear wheel speeds", ("wheel_speed_rl_kmh", "wheel_speed_rr_kmh")),
    "abs": Measure("ABS activity", ("abs_active",)),
    "dsc": Measure("DSC activity", ("dsc_active",)),
    "mil": Measure("the engine warning light", ("mil",)),
    "brake_switch": Measure("the brake light switch", ("brake_switch",)),
    "brake_pressure": Measure("brake pressure", ("brake_bar",), "brake pressure (peak, trail braking)"),
    "throttle": Measure("throttle position", ("throttle_pct",), "throttle pickup and throttle use"),
    "steering": Measure("steering angle", ("steer_deg",), "steering smoothness"),
    "g_lat": Measure("lateral g", ("g_lat",)),
    "g_long": Measure("longitudinal g", ("g_long",)),
    "yaw_rate": Measure("yaw rate", ("yaw_rate_dps",)),
    "rpm": Measure("engine rpm", ("rpm",)),
    "oil_pressure": Measure("oil pressure", ("oil_press_bar",)),
    "oil_temp": Measure("oil temperature", ("oil_temp_c",)),
    "coolant": Measure("coolant temperature", ("water_temp_c",)),
    "fuel_pressure": Measure("fuel pressure", ("fuel_press_bar",)),
    "tpms": Measure(
        "tyre pressures (TPMS)",
        tuple(f"tpms_press_{w}_bar" for w in _WHEELS),
        "tyre pressures and temperatures",
    ),
    "tpms_temp": Measure("tyre temperatures (TPMS)", tuple(f"tpms_temp_{w}_c" for w in _WHEELS)),
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

    def has(self, measure: str) -> bool:
        return measure not in self.lacking

    def fields(self, *measures: str) -> dict[str, Any]:
        """The fields a tool adds: ``recorded`` (every one of ``measures`` recorded), ``missing`` (their
        channels with no value), ``not_recorded`` (a plain sentence, or None) and ``partly_recorded`` (a
        plain sentence naming what has a reading on only part of the session, or None)."""
        chans = {c for m in measures for c in MEASURES[m].channels}
        gone = [m for m in measures if m in self.lacking]
        part = [f"{MEASURES[m].words} ({self.partial[m]:.0f} %)" for m in measures if m in self.partial]
        return {
            "recorded": not gone,
            "missing": [c for c in self.missing if c in chans],
            "not_recorded": not_recorded_sentence(gone),
            "partly_recorded": ("Recorded on only part of this session: " + ", ".join(part) + ".")
            if part
            else None,
        }


def not_recorded_sentence(measures: list[str]) -> str | None:
    """``"Not recorded in this session: wheel speeds, ABS activity."`` (None for an empty list)."""
    if "wheel_speeds" in measures:  # "wheel speeds" already says the rear ones
        measures = [m for m in measures if m != "rear_wheel_speeds"]
    if not measures:
        return None
    return "Not recorded in this session: " + ", ".join(MEASURES[m].words for m in measures) + "."


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
    return Recorded(lacking, missing, partial)


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

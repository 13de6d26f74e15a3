"""Flags and alarms of a session as timed events: ABS and DSC interventions, the engine warning light,
TPMS alarms and the logger's own alarm channels (``shared.alarms``), each with its start, end, duration,
lap and corner, as the one event detector stored them (``driver_events``). ``FlagReport`` also says which
of them the file recorded, so "none was set" and "no alarm channel was recorded" are told apart.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from services.paddock.tools.base import r, rows, session_row
from services.paddock.tools.recorded import session_recorded
from shared import event_conditions as ev
from shared.alarms import alarm_name, detector_column, is_alarm_channel, named_alarm

# the wide flags and alarms: event kind -> its measure (services.paddock.tools.recorded)
FLAG_MEASURES = {ev.ABS: "abs", ev.DSC: "dsc", ev.MIL: "mil", ev.TPMS_ALARM: "tpms_alarm"}
FLAG_WORDS = {
    ev.ABS: "ABS",
    ev.DSC: "DSC (traction and stability control)",
    ev.MIL: "engine warning light",
    ev.TPMS_ALARM: "tyre pressure alarm",
}
# the flags' names as "recorded: ..." lists them
SOURCE_WORDS = {k: w + ("s" if k == ev.TPMS_ALARM else "") for k, w in FLAG_WORDS.items()}
# what a driver calls a warning: the logger's alarms, the engine light, TPMS alarms (ABS and DSC are the
# car's interventions, told by their own answers)
WARNING_KINDS = (ev.ALARM, ev.MIL, ev.TPMS_ALARM)
_WHEEL_WORDS = {"fl": "front-left", "fr": "front-right", "rl": "rear-left", "rr": "rear-right"}
FLAG_KINDS = (*FLAG_MEASURES, ev.ALARM)


@dataclass(frozen=True)
class FlagEvent:
    kind: str  # abs | dsc | mil | tpms_alarm | alarm
    what: str  # as a driver reads it: "ABS", "front-left tyre pressure alarm", "water temp alarm"
    wheel: str | None  # TPMS alarms: the wheel
    lap: int
    end_lap: int
    corner: str | None  # stored corner id where it started
    start_s: float
    end_s: float
    duration_s: float


@dataclass(frozen=True)
class FlagReport:
    session_id: str
    events: list[FlagEvent]
    sources: list[str]  # the flags and alarms the file recorded, in driver words (alarm channels last)
    sources_missing: list[str]  # the flags it did not record, in driver words
    alarm_channels: list[str]  # the logger's alarm channels, in driver words (none: [])

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FlagReport:
        """Back from a tool's JSON output (``as_dict``, or ``get_safety_events``, which carries it)."""
        return cls(
            str(d.get("session_id") or ""),
            [FlagEvent(**e) for e in d.get("events") or []],
            list(d.get("sources") or []),
            list(d.get("sources_missing") or []),
            list(d.get("alarm_channels") or []),
        )


def _what(kind: str, wheel: str | None, detail: dict[str, Any]) -> str:
    if kind == ev.ALARM:
        return alarm_name(str(detail.get("channel") or "alarm"))
    if kind == ev.TPMS_ALARM and wheel:
        return f"{_WHEEL_WORDS.get(wheel, wheel)} {FLAG_WORDS[kind]}"
    return FLAG_WORDS[kind]


def _alarm_channels(sid: str) -> list[str]:
    """The session's logger alarm channels (named as alarms, whole-number readings), by file name."""
    out = []
    reg = rows("SELECT name, unit, canonical FROM signal_registry WHERE session_id = ? ORDER BY name", [sid])
    for c in reg:
        if detector_column(c["canonical"]) or not named_alarm(str(c["name"]), str(c["unit"] or "")):
            continue
        v = rows("SELECT value FROM telemetry_signals WHERE session_id = ? AND name = ?", [sid, c["name"]])
        vals = np.array([x["value"] for x in v if x["value"] is not None], dtype=np.float64)
        if is_alarm_channel(str(c["name"]), str(c["unit"] or ""), vals):
            out.append(str(c["name"]))
    return out


def _lap_at(laps: list[dict[str, Any]], t: float, default: int) -> int:
    return next((int(x["lap"]) for x in laps if x["t_start_s"] <= t < x["t_end_s"]), default)


def flag_report(session_id: str) -> FlagReport:
    """Every flag and alarm event of the session in time order, and what the file recorded."""
    s = session_row(session_id)
    sid = s["session_id"]
    rec = session_recorded(sid, tuple(FLAG_MEASURES.values()))
    kinds = ", ".join(f"'{k}'" for k in FLAG_KINDS)
    laps = rows("SELECT lap, t_start_s, t_end_s FROM laps WHERE session_id = ? ORDER BY lap", [sid])
    events = []
    for e in rows(
        f"SELECT t_s, lap, corner, kind, wheel, detail FROM driver_events WHERE session_id = ? "
        f"AND kind IN ({kinds}) ORDER BY t_s, kind, wheel",
        [sid],
    ):
        detail = json.loads(e["detail"] or "{}")
        dur = float(detail.get("duration_s") or 0.0)
        start, lap = float(e["t_s"]), int(e["lap"] or 0)
        end = start + dur
        end_lap = int(detail["end_lap"]) if "end_lap" in detail else _lap_at(laps, end, lap)
        what = _what(e["kind"], e["wheel"], detail)
        events.append(
            FlagEvent(
                e["kind"], what, e["wheel"], lap, end_lap, e["corner"], r(start, 2), r(end, 2), r(dur, 2)
            )
        )
    alarms = [alarm_name(n) for n in _alarm_channels(sid)]
    have = [SOURCE_WORDS[k] for k, m in FLAG_MEASURES.items() if rec.has(m)]
    # never a flag this kind of vehicle has not got (a kart's ABS)
    lack = [SOURCE_WORDS[k] for k, m in FLAG_MEASURES.items() if not rec.has(m) and m not in rec.not_fitted]
    return FlagReport(sid, events, have + alarms, lack, alarms)


def warning_threads(before: FlagReport, now: FlagReport) -> list[dict[str, Any]]:
    """Each warning set in an earlier session, followed into this one: ``again`` (on ``laps_now``),
    ``not this time`` (recorded, not set) or ``not recorded`` (this file cannot tell)."""
    seen: dict[str, tuple[str, set[int]]] = {}
    for e in before.events:
        if e.kind in WARNING_KINDS:
            seen.setdefault(e.what, (e.kind, set()))[1].update(range(e.lap, e.end_lap + 1))
    out = []
    for what, (kind, laps) in seen.items():
        again = sorted({n for e in now.events if e.what == what for n in range(e.lap, e.end_lap + 1)})
        can = what in now.alarm_channels if kind == ev.ALARM else SOURCE_WORDS[kind] in now.sources
        status = "again" if again else "not this time" if can else "not recorded"
        out.append({"what": what, "status": status, "laps_before": sorted(laps), "laps_now": again})
    return out


def get_flags_and_alarms(session_id: str) -> dict[str, Any]:
    """ABS, DSC, engine-light, TPMS and logger alarm events of a session: what, lap, corner, start, end and duration; plus which of them the file recorded."""
    return flag_report(session_id).as_dict()

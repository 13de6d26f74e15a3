"""A car vital judged against the car's limits: "was my oil pressure ok?", "is my coolant too hot?".

The limits are the one threshold table's (``shared.thresholds``, a car profile's ``thresholds:`` override
them): oil pressure below ``oil_press_min_bar`` under load (the event detector's own predicate,
``shared.event_conditions.is_oil_pressure_low``), coolant above ``coolant_max_c`` (``is_coolant_hot``), engine speed
above the car profile's redline. A vital without a limit gets its figures and no verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from services.paddock.lake import get_lake
from services.paddock.tools.base import ToolError, car_profile, r, session_arrays, session_row, track_corners
from services.paddock.tools.recorded import not_recorded_text
from shared import event_conditions as ev
from shared.profiles.car import CarProfile
from shared.thresholds import car_thresholds

_WHEELS = ("fl", "fr", "rl", "rr")


@dataclass(frozen=True)
class Vital:
    words: str  # how a sentence names it
    channels: tuple[str, ...]  # canonical telemetry columns (several: one per wheel, judged together)
    unit: str
    nd: int  # decimals a driver reads
    limit: str | None = None  # a key of the threshold table, "redline", or None: no limit known
    side: str = "max"  # "max": above the limit is out; "min": below it is


#: the measures (``measures.MEASURES`` names) this tool judges
VITALS: dict[str, Vital] = {
    "oil_pressure": Vital("oil pressure", ("oil_press_bar",), "bar", 2, "oil_press_min_bar", "min"),
    "coolant_temp": Vital("coolant temperature", ("water_temp_c",), "°C", 1, "coolant_max_c"),
    "oil_temp": Vital("oil temperature", ("oil_temp_c",), "°C", 1),
    "rpm": Vital("engine speed", ("rpm",), "rpm", 0, "redline"),
    "fuel_pressure": Vital("fuel pressure", ("fuel_press_bar",), "bar", 2),
    "coolant_pressure": Vital("coolant pressure", ("water_press_bar",), "bar", 2),
    "battery_voltage": Vital("battery voltage", ("battery_v",), "V", 2),
    "fuel_level": Vital("fuel level", ("fuel_level_l",), "l", 1),
    "tyre_pressure": Vital("tyre pressures", tuple(f"tpms_press_{w}_bar" for w in _WHEELS), "bar", 2),
    "tyre_temp": Vital("tyre temperatures", tuple(f"tpms_temp_{w}_c" for w in _WHEELS), "°C", 1),
}
#: what "my temps" / "my vitals" means when no single measure is named
TEMPS = ("coolant_temp", "oil_temp", "tyre_temp")


def _limit(v: Vital, car: CarProfile, th: dict[str, float]) -> tuple[float | None, str]:
    """(the limit's value, where it comes from) for the car; (None, "") when none is known."""
    if v.limit is None:
        return None, ""
    if v.limit == "redline":  # a redline the profile does not state is no limit to judge by
        if "redline_rpm" not in car.vehicle.model_fields_set:
            return None, ""
        return float(car.vehicle.redline_rpm), "the car profile's redline"
    src = "the car profile's limit" if v.limit in car.thresholds else "Pitwall's default limit"
    return th[v.limit], src


def _outside(v: Vital, a: dict[str, np.ndarray], limit: float, th: dict[str, float]) -> np.ndarray:
    """Samples beyond the limit: oil pressure only under load (the event detector's predicate)."""
    x = a[v.channels[0]]
    if v.limit == "oil_press_min_bar":
        with np.errstate(invalid="ignore"):
            return np.asarray(
                ev.is_oil_pressure_low(x, np.nan_to_num(a["rpm"]), np.nan_to_num(a["throttle_pct"]), th)
            ) & np.isfinite(x)
    vals = np.vstack([a[c] for c in v.channels])
    with np.errstate(invalid="ignore"):
        hit = vals < limit if v.side == "min" else vals > limit
    return np.asarray(hit.any(axis=0))


def _where(track_id: str | None, dist: float) -> tuple[str | None, bool]:
    """(the corner ``dist`` is in, True), else (the last corner before it, False), else (None, False)."""
    before = None
    for c in sorted(track_corners(track_id), key=lambda c: c.start_m):
        if c.start_m <= dist <= c.end_m:
            return c.id, True
        if c.end_m < dist:
            before = c.id
    return before, False


def get_vital_limits(session_id: str, measure: str) -> dict[str, Any]:
    """A car vital (oil_pressure, coolant_temp, oil_temp, rpm, tyre_temp ...) per lap and session: minimum, maximum, time beyond the car's limit, each crossing's lap and corner."""
    if measure not in VITALS:
        raise ToolError("bad_argument", f"no vital {measure!r}", f"one of: {', '.join(VITALS)}")
    s = session_row(session_id)
    sid, v = s["session_id"], VITALS[measure]
    a = session_arrays(sid, tuple(dict.fromkeys((*v.channels, "rpm", "throttle_pct"))))
    base: dict[str, Any] = {"session_id": sid, "measure": measure, "words": v.words, "unit": v.unit}
    vals = np.vstack([a[c] for c in v.channels])
    if not np.isfinite(vals).any():
        return {**base, "recorded": False, "not_recorded": not_recorded_text([v.words])}
    car = car_profile(s.get("car_id"))
    th = car_thresholds(car.id, get_lake().settings.data_dir)
    limit, source = _limit(v, car, th)
    dt = float(np.median(np.diff(a["t_s"]))) if len(a["t_s"]) > 1 else 0.0
    out = _outside(v, a, limit, th) if limit is not None else np.zeros(len(a["t_s"]), dtype=bool)
    laps = []
    for lap in sorted({int(x) for x in a["lap"]}):
        m = a["lap"] == lap
        x = vals[:, m]
        if not np.isfinite(x).any():
            continue
        laps.append(
            {
                "lap": lap,
                "min": r(np.nanmin(x), v.nd),
                "max": r(np.nanmax(x), v.nd),
                "outside_s": r(float(out[m].sum()) * dt, 2) if limit is not None else None,
            }
        )
    crossings = []
    for i, j in ev.runs(out):
        worst = np.nanmin(vals[:, i:j]) if v.side == "min" else np.nanmax(vals[:, i:j])
        corner, inside = _where(s.get("track_id"), float(a["dist_m"][i]))
        crossings.append(
            {
                "lap": int(a["lap"][i]),
                "t_s": r(a["t_s"][i], 2),
                "dist_m": r(a["dist_m"][i], 0),
                "corner": corner,
                "in_corner": inside,
                "duration_s": r((j - i) * dt, 2),
                "worst": r(worst, v.nd),
            }
        )
    return {
        **base,
        "recorded": True,
        "limit": None
        if limit is None
        else {
            "value": r(limit, v.nd),
            "side": v.side,
            "source": source,
            "under_load": v.limit == "oil_press_min_bar",
        },
        "min": r(np.nanmin(vals), v.nd),
        "max": r(np.nanmax(vals), v.nd),
        "outside_s": r(float(out.sum()) * dt, 2) if limit is not None else None,
        "laps": laps,
        "crossings": crossings,
    }

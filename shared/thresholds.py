"""Every coaching threshold in one table: RuleCoach's (the hot path) and the session opportunities'
(``shared.analysis``, the paddock). A car profile's ``thresholds:`` overrides any of them.

The event thresholds (slip, oil pressure, coolant, TPMS: ``shared.event_conditions.EVENT_THRESHOLDS``) are part
of the table: the importer, the hot path and the paddock tools detect events with the same numbers.

| name | default | unit | used by |
|---|---|---|---|
| brake_point_delta_m | 10 | m | brake point off the reference on 2 consecutive laps |
| brake_point_sigma_m | 15 | m | brake marker inconsistent over the last 3 clean laps |
| brake_peak_ratio | 0.90 | - | peak brake below this share of the reference |
| trail_brake_bar | 3 | bar | pressure still on at turn-in that counts as trail braking |
| brake_ramp_s | 0.35 | s | time from brake onset to 80 % of peak that counts as slow |
| coast_throttle_pct | 5 | % | coasting: throttle below |
| coast_brake_bar | 2 | bar | coasting: brake below |
| coast_speed_kmh | 50 | km/h | coasting: speed above |
| coast_min_s | 0.5 | s | coasting: for longer than |
| over_slow_kmh | 2 | km/h | minimum speed this far below the reference |
| late_power_m | 25 | m | throttle pickup this much later than the reference |
| weak_exit_kmh | 3 | km/h | exit speed this far below the reference |
| entry_fast_kmh | 3 | km/h | over-driving: entry faster than the reference by |
| throttle_drop_pct | 20 | % | hesitation: throttle falls this much after pickup |
| overlap_throttle_pct | 10 | % | pedal overlap: throttle above ... |
| overlap_brake_bar | 5 | bar | ... while brake above ... |
| overlap_min_s | 0.2 | s | ... for longer than |
| slip_window_m | 120 | m | repeated slip: same wheel within this distance |
| slip_repeats | 3 | - | repeated slip: this many times in 3 laps |
| steer_corrections | 3 | - | steering-rate reversals over 5 deg on the exit |
| safety_cooldown_s | 20 | s | repeat interval of one safety cue |
| opportunity_min_s | 0.05 | s | a lap loses time at a corner when its segment is this much slower than your good laps there (shared.analysis) |
| off_kmh | 10 | km/h | a corner's minimum under this, where your good laps go over twice as fast: a stop, a spin or an off, not a technique (shared.analysis) |
| off_time_ratio | 2 | - | ... or the corner took this many times your good laps' time there |
"""

from __future__ import annotations

from pathlib import Path

from shared.event_conditions import EVENT_THRESHOLDS
from shared.profiles.car import CarProfileError, load_car

DEFAULT_THRESHOLDS: dict[str, float] = {
    "brake_point_delta_m": 10.0,
    "brake_point_sigma_m": 15.0,
    "brake_peak_ratio": 0.90,
    "trail_brake_bar": 3.0,
    "brake_ramp_s": 0.35,
    "coast_throttle_pct": 5.0,
    "coast_brake_bar": 2.0,
    "coast_speed_kmh": 50.0,
    "coast_min_s": 0.5,
    "over_slow_kmh": 2.0,
    "late_power_m": 25.0,
    "weak_exit_kmh": 3.0,
    "entry_fast_kmh": 3.0,
    "throttle_drop_pct": 20.0,
    "overlap_throttle_pct": 10.0,
    "overlap_brake_bar": 5.0,
    "overlap_min_s": 0.2,
    "slip_window_m": 120.0,
    "slip_repeats": 3.0,
    "steer_corrections": 3.0,
    "safety_cooldown_s": 20.0,
    "opportunity_min_s": 0.05,
    "off_kmh": 10.0,
    "off_time_ratio": 2.0,
    **EVENT_THRESHOLDS,
}


def thresholds_for(overrides: dict[str, float] | None) -> dict[str, float]:
    unknown = set(overrides or {}) - set(DEFAULT_THRESHOLDS)
    if unknown:
        raise ValueError(f"unknown coaching thresholds in car profile: {sorted(unknown)}")
    return {**DEFAULT_THRESHOLDS, **(overrides or {})}


def car_thresholds(car_id: str | None, data_dir: Path | None = None) -> dict[str, float]:
    """The coaching threshold table with the car profile's overrides (the defaults for an unknown car);
    ``data_dir``: where the driver's own profiles are (``load_car``'s default: the settings')."""
    try:
        over = load_car(car_id, data_dir).thresholds if car_id else {}
    except (KeyError, CarProfileError, ValueError):
        over = {}
    try:
        return thresholds_for(over)
    except ValueError:
        return thresholds_for(None)

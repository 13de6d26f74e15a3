"""The canonical signal model: one wide row per sample, plus every source channel in a long table.

Every importer, the simulator, the CAN decoder and live ingest produce rows with these column names
and units. Missing values are NULL in storage (NaN in numpy arrays; convert with ``from_pandas=True``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa


@dataclass(frozen=True, slots=True)
class Channel:
    name: str
    unit: str
    description: str
    lo: float | None = None  # physically plausible lower bound (for rejecting absurd live values)
    hi: float | None = None


WHEELS = ("fl", "fr", "rl", "rr")

_CORE: tuple[Channel, ...] = (
    Channel("t_s", "s", "session time since the first sample", 0, None),
    Channel("dist_m", "m", "distance along the current lap from start/finish", 0, 50_000),
    Channel("odo_m", "m", "cumulative distance since the session started", 0, 5_000_000),
    Channel("speed_kmh", "km/h", "vehicle speed (GPS or wheel-based)", 0, 450),
    Channel("rpm", "rpm", "engine speed", 0, 20_000),
    Channel("gear", "", "gear (0 = neutral), measured or derived from RPM over wheel speed", -1, 10),
    Channel("throttle_pct", "%", "throttle pedal position", -5, 105),
    Channel("brake_bar", "bar", "front brake line pressure", -5, 250),
    Channel("brake_pct", "%", "brake pedal position or pressure as % of the session maximum", -5, 105),
    Channel("steer_deg", "deg", "steering wheel angle, positive = right of centre", -1080, 1080),
    Channel("g_lat", "g", "lateral acceleration, positive = cornering right", -6, 6),
    Channel("g_long", "g", "longitudinal acceleration, positive = accelerating", -6, 6),
    Channel("g_vert", "g", "vertical acceleration, +1 g at rest", -6, 8),
    Channel("g_combo", "g", "combined horizontal g, sqrt(g_lat^2 + g_long^2)", 0, 8),
    Channel("yaw_rate_dps", "deg/s", "yaw rate, positive = rotating right", -400, 400),
    Channel("lat", "deg", "latitude, decimal degrees", -90, 90),
    Channel("lon", "deg", "longitude, decimal degrees", -180, 180),
    Channel("alt_m", "m", "GPS altitude", -500, 9000),
    Channel("heading_deg", "deg", "GPS heading, 0 = north", -360, 360),
)

_WHEEL: tuple[Channel, ...] = tuple(
    ch
    for w in WHEELS
    for ch in (
        Channel(f"wheel_speed_{w}_kmh", "km/h", f"{w.upper()} wheel speed", 0, 450),
        Channel(f"tpms_press_{w}_bar", "bar", f"{w.upper()} tyre pressure", 0, 6),
        Channel(f"tpms_temp_{w}_c", "°C", f"{w.upper()} tyre air temperature", -40, 200),
        Channel(f"tpms_alarm_{w}", "", f"{w.upper()} TPMS alarm bitfield (0 = none)", 0, 65535),
    )
)

_VITALS: tuple[Channel, ...] = (
    Channel("oil_press_bar", "bar", "engine oil pressure", 0, 15),
    Channel("water_press_bar", "bar", "coolant pressure", 0, 6),
    Channel("fuel_press_bar", "bar", "fuel pressure", 0, 10),
    Channel("oil_temp_c", "°C", "engine oil temperature", -40, 200),
    Channel("water_temp_c", "°C", "coolant temperature", -40, 150),
    Channel("fuel_level_l", "l", "fuel level", 0, 200),
    Channel("battery_v", "V", "battery voltage", 0, 30),
    Channel("abs_active", "", "ABS regulating (0/1)", 0, 1),
    Channel("dsc_active", "", "DSC/traction control regulating (0/1)", 0, 1),
    Channel("mil", "", "engine malfunction lamp (0/1)", 0, 1),
    Channel("brake_switch", "", "brake light switch (0/1)", 0, 1),
)

# added after the first release: last, so a store file that gains them by ALTER TABLE keeps this order
_ADDED: tuple[Channel, ...] = (
    Channel("brake_rear_bar", "bar", "rear brake line pressure", -5, 250),
    Channel(
        "throttle_body_pct", "%", "throttle body (valve) opening, apart from the driver's pedal", -5, 105
    ),
)

#: Every wide numeric channel, in storage order (after ``session_id`` and ``lap``).
CHANNELS: tuple[Channel, ...] = _CORE + _WHEEL + _VITALS + _ADDED
CHANNEL_BY_NAME: dict[str, Channel] = {c.name: c for c in CHANNELS}
WIDE_COLUMNS: tuple[str, ...] = tuple(c.name for c in CHANNELS)

#: A session's wide table in memory: each column (``t_s`` and the channels above) a numpy array, by name;
#: ``Wide`` where it is only read, ``MutableWide`` where it is built or columns are added to it.
Wide = Mapping[str, np.ndarray]
MutableWide = dict[str, np.ndarray]


def telemetry_schema() -> pa.Schema:
    """Arrow schema of the wide ``telemetry`` table and of each lake lap file."""
    return pa.schema(
        [pa.field("session_id", pa.string()), pa.field("lap", pa.int32())]
        + [pa.field(c, pa.float64()) for c in WIDE_COLUMNS]
    )


def signals_schema() -> pa.Schema:
    """Arrow schema of the long ``telemetry_signals`` table: every source channel, mapped or not."""
    return pa.schema(
        [
            pa.field("session_id", pa.string()),
            pa.field("name", pa.string()),
            pa.field("t_s", pa.float64()),
            pa.field("value", pa.float64()),
        ]
    )


def registry_schema() -> pa.Schema:
    """Arrow schema of ``signal_registry``: one row per source channel."""
    return pa.schema(
        [
            pa.field("session_id", pa.string()),
            pa.field("name", pa.string()),
            pa.field("unit", pa.string()),
            pa.field("source", pa.string()),
            pa.field("rate_hz", pa.float64()),
            pa.field("canonical", pa.string()),  # wide column it maps to, or NULL
            pa.field("mapped_by", pa.string()),  # why: user entry, profile, rule and conversion; or why not
        ]
    )

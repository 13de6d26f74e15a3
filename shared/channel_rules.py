"""The one table of name rules that maps logger channels (AiM XRK/XRZ/CSV, Racelogic VBOX) to canonical
signals. A rule matches the channel's *normalised* name (see :func:`normalise_name`); the channel's unit
must then convert to the canonical unit (``shared.units``), so a ``Fuel Level`` in % never becomes litres.

Rules of one canonical signal are listed best first: when several channels of a file fit, the one
matched by the earliest rule wins (a direct sensor before a GPS-derived or calculated one), then the one
with data, then the earliest in the file. Users override any of it with ``<data>/channels.yaml`` or
``--map FILE`` (:mod:`shared.channel_map`).
"""

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

    def matches(self, norm: str, source_format: str) -> bool:
        if self.formats and not any(source_format.startswith(f) for f in self.formats):
            return False
        return re.fullmatch(self.pattern, norm) is not None


_ACC = r"(acc|accel|acceleration|g)"
_PRESS = r"(press|pressure|pres|p)"
_TEMP = r"(temp|temperature|t)"
_POS = {
    "fl": r"(fl|lf|front left|left front|f l)",
    "fr": r"(fr|rf|front right|right front|f r)",
    "rl": r"(rl|lr|rear left|left rear|r l)",
    "rr": r"(rr|rear right|right rear|r r)",
}
_VBOX = ("vbox", "vbo")


def _wheel_rules() -> list[Rule]:
    out: list[Rule] = []
    for w, pos in _POS.items():
        out += [
            Rule(
                f"wheel-speed-{w}",
                f"wheel_speed_{w}_kmh",
                rf"((v|speed) )?(whl|wheel)( (speed|spd|vel))? {pos}|(wheel )?(speed|spd) {pos}|{pos} (wheel )?(speed|spd)",
            ),
            Rule(
                f"tpms-press-{w}",
                f"tpms_press_{w}_bar",
                rf"(tpms|tyre|tire) {_PRESS} {pos}|p (tyre|tire) {pos}",
            ),
            Rule(f"tpms-temp-{w}", f"tpms_temp_{w}_c", rf"(tpms|tyre|tire) {_TEMP} {pos}"),
            Rule(f"tpms-alarm-{w}", f"tpms_alarm_{w}", rf"tpms (alarm|alm) {pos}", assume_unit="", hold=True),
        ]
    return out


#: canonical signal -> its rules in order of preference, as one flat list (order matters within a signal)
RULES: tuple[Rule, ...] = (
    # position and speed
    Rule("gps-speed", "speed_kmh", r"(gps )?speed|speed gps|velocity", note="GPS speed"),
    Rule("vehicle-speed", "speed_kmh", r"(vehicle|veh|car|indicated vehicle) (speed|spd)", note="CAN speed"),
    Rule("latitude", "lat", r"(gps )?(lat|latitude)", sentinels=(0.0,)),
    Rule("longitude", "lon", r"(gps )?(lon|long|longitude)", sentinels=(0.0,)),
    Rule("altitude", "alt_m", r"(gps )?(altitude|height|alt)", sentinels=(65535.0,)),
    Rule("heading", "heading_deg", r"(gps )?(heading|course)"),
    # engine
    Rule("rpm", "rpm", r"(eng |engine )?(rpm|rev|revs)|(engine|eng) (speed|spd)", assume_unit="rpm"),
    Rule(
        "gear", "gear", r"gear( (pos|position|engaged))?", assume_unit="", sentinels=(255.0, -1.0), hold=True
    ),
    # pedals and steering
    Rule(
        "throttle",
        "throttle_pct",
        r"(throttle|thr|thrott)( (pos|position|pedal|pedal pos|angle))?|pos throttle|tps|pps|app"
        r"|(accel|accelerator|acc|gas) pedal( (pos|position))?|pedal (pos|position)",
        assume_unit="%",
    ),
    Rule(
        "brake-front",
        "brake_bar",
        rf"(p )?(brk|brake)( {_PRESS})? (front|frt|f)|front (brk|brake)( {_PRESS})?|{_PRESS} (brk|brake) (front|frt|f)",
        note="front brake circuit",
    ),
    Rule(
        "brake-pressure",
        "brake_bar",
        rf"(brk|brake) {_PRESS}|p (brk|brake)|brake",
        note="brake pressure without an axle: the master cylinder / front circuit",
    ),
    Rule(
        "brake-rear",
        "brake_rear_bar",
        rf"(p )?(brk|brake)( {_PRESS})? (rear|rr|r)|rear (brk|brake)( {_PRESS})?|{_PRESS} (brk|brake) (rear|r)",
    ),
    Rule(
        "brake-position", "brake_pct", r"(brake|brk) (pos|position|pedal|pedal pos|travel)", assume_unit="%"
    ),
    Rule(
        "brake-switch",
        "brake_switch",
        r"(brake|brk) (switch|sw|trigger|light|lights|on)",
        assume_unit="",
        hold=True,
    ),
    Rule(
        "steering",
        "steer_deg",
        r"((ave|avg|average) )?(steer|steering|str)( (angle|ang|pos|position|wheel|wheel angle))?"
        r"|a (ste|steer|str)|steering wheel angle",
        sentinels=(-1024.0,),
    ),
    # accelerations: a named axis first, then GPS-derived, then a raw sensor axis (its mounting unknown)
    Rule(
        "vbox-indicated-lateral",
        "g_lat",
        r"indicated lateral acceleration",
        formats=_VBOX,
        note="VBOX: the accelerometer's channel, not the GPS-derived one (it spikes on heading noise)",
    ),
    Rule(
        "vbox-lateral",
        "g_lat",
        r"lateral acceleration|lat acc|lat acceleration",
        sign_flip=True,
        formats=_VBOX,
        note="VBOX reports lateral acceleration positive to the left",
    ),
    Rule("lateral", "g_lat", rf"(lateral|lat|indicated lateral) {_ACC}|g lat|{_ACC} lat(eral)?"),
    Rule("gps-lateral", "g_lat", rf"gps (lateral|lat) {_ACC}", note="GPS-derived"),
    Rule("axis-y", "g_lat", r"(accelerometer|accel|acc|g ch|g|acc ch) y", note="sensor Y axis"),
    Rule(
        "longitudinal",
        "g_long",
        rf"(inline|longitudinal|long|lon|indicated longitudinal) {_ACC}|g (long|lon)|{_ACC} (long|lon)",
    ),
    Rule("gps-longitudinal", "g_long", rf"gps (inline|longitudinal|long|lon) {_ACC}", note="GPS-derived"),
    Rule("axis-x", "g_long", r"(accelerometer|accel|acc|g ch|g|acc ch) x", note="sensor X axis"),
    Rule("vertical", "g_vert", rf"(vertical|vert) {_ACC}|g vert"),
    Rule("axis-z", "g_vert", r"(accelerometer|accel|acc|g ch|g|acc ch) z", note="sensor Z axis"),
    Rule("yaw-rate", "yaw_rate_dps", r"yaw( rate)?|gyro z|gyro yaw|gyro ch z|yaw vel(ocity)?"),
    Rule("gps-yaw-rate", "yaw_rate_dps", r"gps (yaw rate|gyro)", note="GPS-derived"),
    *_wheel_rules(),
    # engine vitals
    Rule("oil-pressure", "oil_press_bar", rf"(p )?(eng |engine )?oil( {_PRESS})?|{_PRESS} (eng )?oil|eop"),
    Rule("fuel-pressure", "fuel_press_bar", rf"(p )?fuel {_PRESS}|{_PRESS} fuel|fp"),
    Rule("water-pressure", "water_press_bar", rf"(water|coolant|wat) {_PRESS}|{_PRESS} (water|coolant)"),
    Rule(
        "oil-temperature",
        "oil_temp_c",
        rf"(t )?(eng |engine )?oil {_TEMP}|{_TEMP} (eng |engine )?oil|eot|toil",
    ),
    Rule(
        "water-temperature",
        "water_temp_c",
        rf"(t )?(eng |engine )?(water|coolant|wat|h2o|clt)( {_TEMP})?|{_TEMP} (eng |engine )?(water|coolant)"
        r"|ect|clt|cts",
    ),
    Rule("fuel-level", "fuel_level_l", r"fuel( level)?( l| litres| liters)?|fuel lvl"),
    Rule(
        "battery",
        "battery_v",
        r"(external|ext|int batt|battery|batt|bat)( (voltage|volt|volts|v))?|vbat|v batt|supply voltage",
    ),
    Rule("abs", "abs_active", r"abs( active| act| reg| regulating)?", assume_unit="", hold=True),
    Rule(
        "traction-control",
        "dsc_active",
        r"(dsc|tc|asc|esp)( active| act| reg| regulating)?",
        assume_unit="",
        hold=True,
    ),
    Rule("mil", "mil", r"mil|check engine|cel", assume_unit="", hold=True),
)


def rules_for(canonical: str) -> list[Rule]:
    return [r for r in RULES if r.canonical == canonical]

"""The one rule table that maps logger channels (AiM XRK/XRZ/CSV, Racelogic VBOX) to canonical signals.

A rule is matched three ways, strongest evidence first (see :mod:`shared.channel_map`):

1. ``function``: what the file itself says the channel is (an XRK/XRZ channel's function, e.g. "Engine
   RPM", "Yaw Rate", "Percentage Throttle Load"), matched on the normalised function;
2. ``pattern``: the channel's *normalised* name (``shared.channel_names.normalise_name``), including team schemes with a
   one-letter quantity prefix (``nEngine``, ``rPedal``, ``aSteer``, ``gLat``, ``pFuel``, ``B_ABS``);
3. ``units``: for rules with a unit list, a channel of that unit whose name says nothing else (an
   ``rpm`` channel is an engine speed unless its name says wheel, turbo, pump...).

The channel's unit must then convert to the canonical unit (``shared.units``), so a ``Fuel Level`` in %
never becomes litres. Rules of one canonical signal are listed best first: a direct sensor (the car's
IMU, the driver's pedal) before a GPS-derived or calculated one. Alarm and warning channels match
:func:`shared.channel_names.alarm_subject` and feed no canonical column. Users override any of it with
``<data>/channels.yaml`` or ``--map FILE``.
"""

from __future__ import annotations

from shared.channel_names import Rule

_ACC = r"(acc|accel|acceleration|g)"
_PRESS = r"(press|pressure|pres|prs|p)"
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
                rf"((v|speed) )?(whl|wheel)( (speed|spd|vel))? {pos}|(wheel |w ?)?(speed|spd) {pos}|{pos} (wheel )?(speed|spd)|wss {pos}",
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


_FLAG = r"( active| act| reg| regulating| flag| intervention| interv| on| ctrl| status| state)?"  # no lamp: a fault
#: an rpm channel whose name says it is another shaft, or a set point, is no engine speed
_NOT_ENGINE = (
    r"\b(wheel|whl|turbo|tc|fan|pump|shaft|cam|diff|gearbox|gbox|idle|target|limit|max|min|set|sp)\b"
)

#: canonical signal -> its rules in order of preference, as one flat list (order matters within a signal)
RULES: tuple[Rule, ...] = (
    # position and speed
    Rule("gps-speed", "speed_kmh", r"(gps )?speed|speed gps|velocity", note="GPS speed"),
    Rule(
        "vehicle-speed",
        "speed_kmh",
        r"(vehicle|veh|car|indicated vehicle) (speed|spd)|v (car|vehicle|veh|ref)",
        note="CAN speed",
    ),
    Rule("latitude", "lat", r"(gps )?(lat|latitude)", sentinels=(0.0,)),
    Rule("longitude", "lon", r"(gps )?(lon|long|longitude)", sentinels=(0.0,)),
    Rule("altitude", "alt_m", r"(gps )?(altitude|height|alt)", sentinels=(65535.0,)),
    Rule("heading", "heading_deg", r"(gps )?(heading|course)"),
    # engine
    Rule(
        "rpm",
        "rpm",
        r"(eng |engine )?(rpm|rev|revs)|(n )?(engine|eng)( (speed|spd|rpm))?|n mot(or)?|n eng rpm",
        assume_unit="rpm",
        function=r"engine (rpm|speed)|rpm",
        veto=_NOT_ENGINE,
    ),
    Rule(
        "gear",
        "gear",
        r"(n |gear )?gear( (pos|position|engaged|number|no|actual|act))?|(current|actual) gear",
        assume_unit="",
        sentinels=(255.0, -1.0, 15.0),
        hold=True,
        function=r"gear( position)?",
    ),
    # pedals and steering: the driver's pedal first, then a throttle channel of unknown kind; one that never
    # reads below ~10 % is moved to the throttle body by shared.channel_map
    Rule(
        "throttle-pedal",
        "throttle_pct",
        r"(r )?((accel|accelerator|acc|gas|throttle|thr) )?pedal( (pos|position|ratio))?|(apps|app|pps|aps)( ?\d)?"
        r"|(r )?(accel|accelerator|gas) pedal( (pos|position))?|pedal (pos|position)|(accel|accelerator|gas) (pos|position)|gas",
        assume_unit="%",
        note="the driver's pedal",
        function=r"(accelerator|throttle|gas) pedal( position)?|pedal position",
    ),
    Rule(
        "throttle-body",
        "throttle_body_pct",
        r"(r )?(throttle|thr) (body|valve|plate|blade|flap)( (pos|position|angle))?|etb|(r )?dk",
        assume_unit="%",
        note="the throttle body, not the driver's pedal",
        function=r"throttle (body|valve)( position)?",
    ),
    Rule(
        "throttle",
        "throttle_pct",
        r"(r )?(throttle|thr|thrott)( (pos|position|angle|load))?|pos throttle|tps"
        r"|(percentage|percent) throttle( load)?",
        assume_unit="%",
        function=r"(percentage )?throttle( load| position| pos)?|percentage throttle load|tps",
    ),
    Rule(
        "brake-front",
        "brake_bar",
        rf"(p )?(brk|brake)( {_PRESS})? (front|frt|f)|front (brk|brake)( {_PRESS})?|{_PRESS} (brk|brake) (front|frt|f)",
        note="front brake circuit",
    ),
    Rule(
        "brake-rear",
        "brake_rear_bar",
        rf"(p )?(brk|brake)( {_PRESS})? (rear|rr|r)|rear (brk|brake)( {_PRESS})?|{_PRESS} (brk|brake) (rear|r)",
    ),
    Rule(
        "brake-pressure",
        "brake_bar",
        rf"(brk|brake) {_PRESS}|p (brk|brake)|brake|{_PRESS} (brk|brake)( (master|mc|cyl))?",
        note="brake pressure without an axle: the master cylinder / front circuit",
        function=r"brake (circuit )?pressure( front)?",
    ),
    Rule(
        "brake-position",
        "brake_pct",
        r"(r )?(brake|brk) (pos|position|pedal|pedal pos|travel)",
        assume_unit="%",
    ),
    Rule(
        "brake-switch",
        "brake_switch",
        r"(b )?(brake|brk) (switch|sw|trigger|light|lights|on)",
        assume_unit="",
        hold=True,
    ),
    Rule(
        "steering",
        "steer_deg",
        r"((ave|avg|average) )?(steer|steering|str)( (angle|ang|pos|position|wheel|wheel angle))?"
        r"|a (ste|steer|str|steering)( (wheel|angle|wheel angle))?|steering wheel angle|swa|sas|lenkwinkel",
        sentinels=(-1024.0,),
        function=r"steering( wheel)?( angle| position)?",
    ),
    # accelerations: the car's IMU first (a named axis, then a raw sensor axis, checked against the GPS
    # track by shared.channel_check), then the GPS-derived ones
    Rule(
        "vbox-indicated-lateral",
        "g_lat",
        r"indicated lateral acceleration",
        formats=_VBOX,
        note="VBOX: the accelerometer's channel, not the GPS-derived one (it spikes on heading noise)",
    ),
    Rule(
        "vbox-indicated-longitudinal",
        "g_long",
        r"indicated longitudinal acceleration",
        formats=_VBOX,
        note="VBOX: the accelerometer's channel, not the GPS-derived one",
    ),
    Rule(
        "vbox-lateral",
        "g_lat",
        r"lateral acceleration|lat acc|lat acceleration",
        sign_flip=True,
        formats=_VBOX,
        note="VBOX's GPS-derived lateral acceleration, positive to the left",
    ),
    Rule(
        "lateral",
        "g_lat",
        rf"(lateral|lat|indicated lateral) {_ACC}( imu)?|g lat(eral)?( imu)?|{_ACC} lat(eral)?|a y|ay( (esp|abs|imu|ecu))?",
        function=r"lateral acc(eleration)?",
    ),
    Rule(
        "longitudinal",
        "g_long",
        rf"(inline|longitudinal|long|lon|indicated longitudinal) {_ACC}( imu)?|g (long|lon|inline)( imu)?"
        rf"|{_ACC} (long|lon|inline)|a x|ax( (esp|abs|imu|ecu))?",
        function=r"(inline|longitudinal) acc(eleration)?",
    ),
    Rule(
        "vertical",
        "g_vert",
        rf"(vertical|vert) {_ACC}( imu)?|g vert(ical)?|a z|az( (esp|abs|imu|ecu))?",
        function=r"vertical acc(eleration)?",
    ),
    Rule("axis-y", "g_lat", r"(accelerometer|accel|acc|g ch|g|acc ch) y", note="IMU Y axis"),
    Rule("axis-x", "g_long", r"(accelerometer|accel|acc|g ch|g|acc ch) x", note="IMU X axis"),
    Rule("axis-z", "g_vert", r"(accelerometer|accel|acc|g ch|g|acc ch) z", note="IMU Z axis"),
    Rule(
        "yaw-rate",
        "yaw_rate_dps",
        r"([a-z] )?yaw( (rate|vel|velocity|speed))?( (imu|esp|abs|ecu))?|gyro( ch)? z|gyro yaw|yaw gyro"
        r"|d psi( (esp|abs|imu|ecu))?|psi dot|gier ?rate",
        note="the car's gyro",
        function=r"yaw rate",
    ),
    Rule("gps-lateral", "g_lat", rf"gps (lateral|lat) {_ACC}", note="GPS-derived"),
    Rule("gps-longitudinal", "g_long", rf"gps (inline|longitudinal|long|lon) {_ACC}", note="GPS-derived"),
    Rule("gps-yaw-rate", "yaw_rate_dps", r"gps (yaw rate|gyro)", note="GPS-derived"),
    *_wheel_rules(),
    # engine vitals
    Rule(
        "oil-pressure",
        "oil_press_bar",
        rf"(p )?(eng |engine )?oil( {_PRESS})?|{_PRESS} (eng )?oil|eop",
        function=r"oil pressure",
    ),
    Rule(
        "fuel-pressure",
        "fuel_press_bar",
        rf"(p )?fuel( rail)? {_PRESS}( (rail|abs|rel))?|{_PRESS} fuel( (rail|abs|rel))?|fp|frp",
        function=r"fuel pressure",
    ),
    Rule(
        "water-pressure",
        "water_press_bar",
        rf"(water|coolant|wat) {_PRESS}|{_PRESS} (water|coolant)",
        function=r"(water|coolant) pressure",
    ),
    Rule(
        "oil-temperature",
        "oil_temp_c",
        rf"(t )?(eng |engine )?oil {_TEMP}|{_TEMP} (eng |engine )?oil|eot|toil",
        function=r"oil temp(erature)?",
    ),
    Rule(
        "water-temperature",
        "water_temp_c",
        rf"(t )?(eng |engine )?(water|coolant|wat|h2o|clt)( {_TEMP})?|{_TEMP} (eng |engine )?(water|coolant)"
        r"|ect|clt|cts",
        function=r"(water|coolant|engine) temp(erature)?",
    ),
    Rule(
        "fuel-level", "fuel_level_l", r"fuel( level)?( l| litres| liters)?|fuel lvl", function=r"fuel level"
    ),
    Rule(
        "battery",
        "battery_v",
        r"(external|ext|int batt|battery|batt|bat)( (voltage|volt|volts|v))?|vbat|v batt|u batt|supply voltage",
        function=r"battery voltage",
    ),
    Rule(
        "abs",
        "abs_active",
        rf"(b )?abs{_FLAG}|(b )?abs (active|regulating|intervention)",
        assume_unit="",
        sentinels=(255.0,),
        hold=True,
        note="ABS intervention flag",
    ),
    Rule(
        "traction-control",
        "dsc_active",
        rf"(b )?(dsc|tc|tcs|asc|esp|esc|asr|traction control|stability control){_FLAG}",
        assume_unit="",
        sentinels=(255.0,),
        hold=True,
        note="traction or stability control intervention flag",
    ),
    Rule("mil", "mil", r"mil|check engine|cel", assume_unit="", hold=True),
    # a channel in the unit itself, its name saying nothing else
    Rule(
        "unit-rpm",
        "rpm",
        r".*",
        units=("rpm",),
        veto=_NOT_ENGINE,
        note="its unit is rpm and its name names no other shaft",
    ),
    Rule("unit-gear", "gear", r".*", units=("gear",), sentinels=(255.0, -1.0, 15.0), hold=True),
    Rule(
        "unit-accelerator",
        "throttle_pct",
        r"(acc|accel|accelerator)( ?\d)?",
        units=("%",),
        note="an accelerator sensor in %: the driver's pedal (in g it would be an acceleration)",
    ),
)


def rules_for(canonical: str) -> list[Rule]:
    return [r for r in RULES if r.canonical == canonical]

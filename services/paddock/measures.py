"""The measures a driver's question can name: ``MEASURES`` (every channel a driver might name, and the
figures of a lap and a corner: what each is, its unit, its columns, its kind), the readings a judge
question is about, the habits Pitwall reads no figure of, and ``MEASURE_WORDS`` (a phrase -> the measure
it names: "revs" -> ``rpm``), which also reads a logger channel's name (``tools.unread``). Pure data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MeasureKind = Literal["lap", "corner", "channel", "event"]


@dataclass(frozen=True)
class Measure:
    """What a driver can ask a figure of: its words for the driver, the telemetry columns behind it (none
    for a lap's or a corner's own figures and for events), its unit, and what kind of figure it is."""

    label: str
    columns: tuple[str, ...] = ()
    unit: str = ""
    kind: MeasureKind = "channel"


def _wheels(pattern: str) -> tuple[str, ...]:
    return tuple(pattern.format(w) for w in ("fl", "fr", "rl", "rr"))


# name -> what it is; the names are the ``Question.measure`` values every family reads
MEASURES: dict[str, Measure] = {
    "lap_time": Measure("lap time", (), "s", "lap"),  # the time of the lap, or of the sector/corner named
    "coasting": Measure("time coasting", (), "%", "lap"),  # neither pedal: the lap comparison's share
    "speed": Measure(
        "speed", ("speed_kmh",), "km/h"
    ),  # a speed not said which: a corner's three, a lap's top
    "top_speed": Measure("top speed", ("speed_kmh",), "km/h"),
    "min_speed": Measure("minimum speed", ("speed_kmh",), "km/h"),
    # the entry, mid-corner and exit speeds of every corner: "where in the corner is my speed off?"
    "corner_phases": Measure("speed at each part of the corner", ("speed_kmh",), "km/h", "corner"),
    "entry_speed": Measure("entry speed", ("speed_kmh",), "km/h", "corner"),
    "exit_speed": Measure("exit speed", ("speed_kmh",), "km/h", "corner"),
    "brake_point": Measure("brake marker", (), "m", "corner"),
    # the brake pressure still on at a corner's turn-in and where it came off (the brake markers' figures)
    "trail_brake": Measure("trail braking", ("brake_bar",), "bar", "corner"),
    "lift_point": Measure("lift point", (), "m", "corner"),  # off the throttle before a corner, or flat
    "pickup_point": Measure("throttle pick-up", (), "m", "corner"),  # back on it after the apex
    "smoothness": Measure("smoothness of your inputs", (), "", "lap"),  # steering, throttle, brake release
    "brake_pressure": Measure("brake pressure", ("brake_bar", "brake_rear_bar"), "bar"),
    "throttle": Measure("throttle", ("throttle_pct",), "%"),
    "throttle_body": Measure("throttle body opening", ("throttle_body_pct",), "%"),
    "brake_pedal": Measure("brake pedal", ("brake_pct",), "%"),
    "brake_temp": Measure("brake temperatures", (), "°C"),  # no column in the signal model: not recorded
    "rpm": Measure("engine speed", ("rpm",), "rpm"),
    "gear": Measure("gear", ("gear",), ""),
    "corner_gears": Measure("gear at each corner", ("gear",), "", "lap"),  # "wrong gear anywhere?"
    "shift_rpm": Measure("engine speed at the upshifts", ("rpm", "gear"), "rpm", "lap"),  # "short shifting?"
    # no figure Pitwall reads: a light steady throttle is no coasting; the blip on a downshift is no upshift
    "part_throttle": Measure("maintenance (part) throttle", (), "%", "lap"),
    "rev_match": Measure("rev-matching on the downshifts", (), "", "lap"),
    "brake_to_throttle": Measure(
        "the time from releasing the brake to getting back on the throttle", (), "s", "lap"
    ),
    "steering": Measure("steering angle", ("steer_deg",), "°"),
    "lat_g": Measure("lateral g", ("g_lat",), "g"),
    "long_g": Measure("braking and acceleration g", ("g_long",), "g"),
    "combined_g": Measure("combined g", ("g_combo",), "g"),
    "vert_g": Measure("vertical g", ("g_vert",), "g"),
    "yaw_rate": Measure("yaw rate", ("yaw_rate_dps",), "°/s"),
    "wheel_speed": Measure("wheel speeds", _wheels("wheel_speed_{}_kmh"), "km/h"),
    "oil_pressure": Measure("oil pressure", ("oil_press_bar",), "bar"),
    "oil_temp": Measure("oil temperature", ("oil_temp_c",), "°C"),
    "temps": Measure("engine temperatures", ("oil_temp_c", "water_temp_c"), "°C"),  # "are my temps fine?"
    "coolant_temp": Measure("coolant temperature", ("water_temp_c",), "°C"),
    "coolant_pressure": Measure("coolant pressure", ("water_press_bar",), "bar"),
    "fuel_pressure": Measure("fuel pressure", ("fuel_press_bar",), "bar"),
    "fuel_level": Measure("fuel level", ("fuel_level_l",), "l"),
    "battery_voltage": Measure("battery voltage", ("battery_v",), "V"),
    "tyre_pressure": Measure("tyre pressures", _wheels("tpms_press_{}_bar"), "bar"),
    "tyre_temp": Measure("tyre temperatures", _wheels("tpms_temp_{}_c"), "°C"),
    "lambda": Measure("lambda (air-fuel ratio)", (), ""),  # no column in the signal model: not recorded
    "egt": Measure("exhaust gas temperature", (), "°C"),  # no column in the signal model: not recorded
    "boost": Measure("boost pressure", (), "bar"),  # no column in the signal model: not recorded
    "head_temp": Measure("cylinder head temperature", (), "°C"),  # no column in the signal model
    "intake_temp": Measure("intake air temperature", (), "°C"),  # no column in the signal model
    "handbrake": Measure("handbrake", (), ""),  # no logger channel: not recorded
    "knock": Measure("engine knock", (), ""),  # no column in the signal model: not recorded
    "suspension": Measure("suspension travel", (), "mm"),  # no column in the signal model: not recorded
    "gearbox_temp": Measure("gearbox and differential temperature", (), "°C"),  # no column: not recorded
    "battery_temp": Measure("battery temperature", (), "°C"),  # no column in the signal model: not recorded
    # an electric car's motor and inverter, never an engine's temperatures: no column in the signal model
    "motor_temp": Measure("electric motor and inverter temperature", (), "°C"),
    "conditions": Measure("track and air temperature", (), "°C"),  # no logger channel: not recorded
    "cabin_temp": Measure("cabin temperature", (), "°C"),  # no logger channel: not recorded
    # the car itself, not a logger channel: "is the chassis twisted?", "how heavy is it?": not recorded
    "chassis": Measure("chassis straightness and alignment", (), "mm"),
    "weight": Measure("the weight of the car or kart", (), "kg"),
    "power": Measure("engine power and torque", (), "hp"),
    "gearing": Measure("gearing (sprockets and ratios)", (), ""),
    "recorded": Measure("the channels this file records", (), "", "lap"),  # "what data do you have?"
    "battery_charge": Measure("battery state of charge and current", (), "%"),  # no column: not recorded
    "brake_bias": Measure("brake bias", (), "%"),  # a setting, no logger channel: not recorded
    "noise": Measure("sound level", (), "dB"),  # no logger channel: not recorded
    # wear, levels and settings no logger channel holds ("how worn are my pads?"): not recorded, never
    # another measure's figures (the brake markers, the tyre temperatures, the oil temperature)
    "brake_wear": Measure("brake pad and disc wear", (), "mm"),
    "tyre_wear": Measure("tyre wear", (), "mm"),
    "oil_level": Measure("oil level", (), "l"),
    "coolant_level": Measure("coolant level", (), "l"),
    "clutch": Measure("clutch position and slip", (), "%"),
    "heart_rate": Measure("the driver's heart rate and body temperature", (), "bpm"),
    "wind": Measure("wind speed and direction", (), ""),  # no logger channel: not recorded
    "slip_angle": Measure("tyre slip angle", (), "°"),
    "ignition": Measure("ignition timing", (), "°"),
    "altitude": Measure("altitude", ("alt_m",), "m"),
    "distance": Measure("distance driven", ("odo_m",), "m"),
    "abs": Measure("ABS interventions", ("abs_active",), "", "event"),
    "dsc": Measure("traction and stability control", ("dsc_active",), "", "event"),
    "engine_light": Measure("engine warning light", ("mil",), "", "event"),
    "lockup": Measure("lockups", (), "", "event"),
    "wheelspin": Measure("wheelspin", (), "", "event"),
    # the session analysis' (a corner the car all but stopped at, or took several times as long)
    "off": Measure("spins, offs and stops", (), "", "event"),
    "alarm": Measure("alarms and warnings", _wheels("tpms_alarm_{}"), "", "event"),  # + the file's own
}
# driving habits Pitwall reads no figure of ("do I use maintenance throttle?", "do I rev match?"): the answer
# says what was understood and what can be answered, never the throttle's or the engine's figures instead
UNREAD_HABITS = frozenset({"part_throttle", "rev_match", "brake_to_throttle"})
# the readings a judge question is about ("was my oil pressure ok?", "did I hit the rev limiter?")
JUDGED = frozenset(
    {"oil_pressure", "oil_temp", "coolant_temp", "coolant_pressure", "fuel_pressure", "fuel_level", "rpm"}
    | {"battery_voltage", "tyre_pressure", "tyre_temp", "lambda", "temps", "egt", "boost", "head_temp"}
    | {"intake_temp", "knock"}
)

# phrases (after spelling, as words) -> measure; the longest phrase found first wins its words
_MEASURE_PHRASES: dict[str, str] = {
    "lap_time": """lap time, time, times, pace, how long, how quick, went round, got round, get round, go round,
        went around, got around, got it down to, get it down to, got them down to, got my times down""",
    "speed": """speed, speeds, how fast, how quick was i going, how quick did i go, how many mph,
        how many kph, how many kmh, mph, kph, kmh, miles per hour, miles an hour, kilometres per hour""",
    "top_speed": """top speed, top end, get it up to, got it up to, get the car up to, got the car up to,
        get the bike up to, got the bike up to, get the kart up to, got the kart up to, trap speed, trap speeds, speed trap, vmax, v max, maximum speed, highest speed, peak speed, fastest speed,
        max speed, fastest reading, fastest i went, fastest i got, fastest i was going, v maximum, top whack, terminal speed, top spd, maximum velocity,
        top velocity, maximum kph, maximum kmh, maximum mph, highest mph, highest kph, highest kmh, topping out at, topped out at, top out at,
        stretch its legs, stretch it legs, stretch her legs, stretch the legs, stretch their legs, stretched its legs,
        stretched it legs, stretched her legs, wind it out, wound it out""",
    "min_speed": """minimum speed, lowest speed, slowest speed, apex speed, mid corner speed, how slow,
        corner speed""",
    "entry_speed": "entry speed, turn in speed, speed into, carry in, carried in",
    "exit_speed": "exit speed, speed out of, carry out, carried out",
    "brake_point": """brake point, braking point, brake marker, braking marker, brake zone, brake, brakes,
        braking, braked, brake later, brake earlier, marker, markers, anchors, on the anchors, hit the anchors, deep, too deep, in deep, overshoot, overshot, overcook,
        overcooked, distance before, braking distance, braking distances, brake distance, stopping distance,
        stopping distances""",
    "trail_brake": """trail brake, trail braking, trail braked, trail brakes, trailbrake, trailbraking,
        trail the brake, trail the brakes, trailing the brake, trailing the brakes, trailed the brake,
        trailed the brakes, trail off the brake, trail off the brakes, trailing off the brake,
        trailing off the brakes, trail it in, trailing it in, trail into, trailing into, trailed into""",
    "smoothness": """smooth, smoother, smoothly, smoothness, jerky, abrupt, abruptly, stabbing, stab, stabby,
        busy hands, sawing, sawing at the wheel, saw at the wheel, steering corrections, corrections, ragged,
        rough inputs, my inputs, inputs""",
    "pickup_point": """pick up point, pickup point, pick up points, pickup points, throttle pick up point,
        throttle pickup point, throttle application point""",
    "lift_point": """lift point, lift points, lifting point, lift off point, lift marker, lift markers, where do i lift,
        where should i lift, where did i lift, lifting too early, lift too early, lifted too early, lifting early, where to lift, when do i lift, when should i lift, when did i lift,
        where i lift, where i lifted, lift off, lifting off, lifted off, lift for, lifted for, lifting for,
        come off the throttle, came off the throttle, coming off the throttle, come off the gas, came off the gas,
        coming off the gas, go off the throttle, went off the throttle, get off the throttle, got off the throttle,
        getting off the throttle, go off the gas, went off the gas, get off the gas, take it flat, take flat, taken flat, took it flat, flat through, flat into,
        flat or lift, lift or flat, need to lift, have to lift, flat out through, full throttle through""",
    "brake_pressure": """brake pressure, braking pressure, brake press, how hard did i brake, how hard was i braking,
        how hard did i hit the brakes, hit the brakes hard, hitting the brakes hard, hit the brakes harder, how hard i braked, brake hard, how hard do i brake, how hard am i braking,
        how hard i brake, braking too hard, brake too hard, braked too hard, braking hard enough, brake hard enough,
        braked hard enough, hard enough on the brakes, brake harder, braking harder, brake pressure enough,
        brake data, braking data, brake channel, brake trace, brake traces, brake sensor, brake signal""",
    "throttle": """throttle, gas, pedal, full throttle, on the gas, on the power, back on the power, flat,
        flat out, full power, on power, power on, apply power, applying power, applied power, applying full
        power, power application, power down, put the power down, putting the power down, wide open, throttle
        pick up, throttle pickup, wot, wide open throttle""",
    "rpm": """rpm, revs, rev, revved, revving, rev limiter, engine speed, redline, red line, red lined, redlined,
        red zone, into the red, over rev, over revving,
        limiter, shift light, shift lights, top end rpm, top end revs, power band, powerband""",
    "gear": """gear, gears, shift, shifts, shifting, upshift, upshifts, downshift, downshifts, downshifting,
        bog, bogs, bogging, bogged, bogged down, lug, lugs, lugging, lugged, too tall, too short, change down,
        changing down, changed down, change up, changing up, changed up, gear change, gear changes""",
    "corner_phases": """where in the corner, where in the corners, where in a corner, part of the corner, parts of
        the corner, phase of the corner, phases of the corner, corner phase, corner phases""",
    "corner_gears": """gear at each corner, gears at each corner, gear in each corner, gear at every corner,
        gear in every corner, gear per corner, gears per corner, gear for each corner, gears in each corner""",
    "shift_rpm": """short shift, short shifting, short shifted, short shifts, shift early, shifting early, shifted
        early, shift late, shifting late, shifted late, change up, changing up, changed up, when do i shift,
        when did i shift, do i shift at, did i shift at, i shift at, upshift rpm, shift rpm, shift points, shift point, short shifter,
        upshift at, upshifting at, upshifted at, shift at, shifting at, shifted at, change gear at, changing gear at,
        changed gear at, change up at, shift too early, shifting too early, shift too late, shifting too late""",
    "part_throttle": """maintenance throttle, maintenance throttling, neutral throttle, balance throttle,
        balancing throttle, part throttle, partial throttle, steady throttle, light throttle, breathing the throttle""",
    "brake_to_throttle": "brake to throttle, brake to gas, brake release to throttle, brake to power",
    "rev_match": """rev match, rev matching, rev matched, rev matches, blip, blips, blipping, blipped, heel toe,
        heel and toe, heel toeing, heel and toeing, throttle blip, throttle blips""",
    "steering": """steering, steering angle, steer, steering lock, opposite lock, lock to lock, full lock,
        turning the wheel, turning of the wheel, turn of the wheel, steering input, steering inputs""",
    "lat_g": "g, how many g, lateral, lateral g, lat g, g lat, cornering g, g force, g forces, grip level",
    "long_g": """longitudinal g, braking g, long g, decel, decels, deceleration, decelerating, peak decel, g under
        braking, gs under braking, g on the brakes, braking force""",
    "combined_g": "combined g",
    "vert_g": "vertical g, vert g, bumps, bumpy, kerb strike",
    "throttle_body": "throttle body, throttle valve, throttle plate, butterfly",
    "brake_pedal": """brake pedal, brake position, pedal position, brake feel, brakes feel, pedal feel, spongy,
        spongy pedal, soft pedal, long pedal""",
    "brake_temp": """brake temp, brake temperature, brake temps, boil the fluid, boiled the fluid, boil the brake fluid,
        boiled the brake fluid, brake fluid boil, fluid boil, boiling the fluid, cooked the fluid, hot did the brakes, hot did my brakes,
        brakes get hot, brakes hot, brake fade, fade, fading, brakes fade, brakes faded, brakes fading,
        brake fading, brakes run hot, brakes ran hot, brake fluid, brake fluid temp, pad temp, pad temperature,
        rotor temp, rotor temperature, disc temp, disc temperature, brakes too hot, hot brakes, brakes overheat,
        brakes overheating, brakes overheated, overheating brakes, overheated brakes, brakes over heat,
        brakes over heating, brakes over heated, cooking the brakes, cooking my brakes,
        cooked the brakes, cooked my brakes, cook the brakes, cook my brakes, cool the brakes, cool my brakes,
        cooling the brakes, cool down the brakes, cool off the brakes, blue the discs, blued the discs,
        blue discs, blued discs, blue the rotors, blued the rotors, blue rotors, blued rotors""",
    "distance": "distance, how far did i drive, mileage, kilometres, kilometers, miles, odometer",
    "yaw_rate": "yaw, yaw rate",
    "wheel_speed": "wheel speed, wheel speeds",
    "oil_pressure": """oil pressure, pressure drop, pressure drops, pressure dip, pressure dips, pressure loss,
        drop in pressure, loss of pressure, lose pressure, lost pressure, losing pressure, loose pressure,
        pressure fall, pressure falls, pressure fell, pressure falling, oil surge,
        oil starvation, oil press, engine oil pressure, engine oil press, oil light, oil lights, oil lamp,
        oil pressure light, oil pressure lamp, oil pressure warning light, oil warning light, low oil,
        oil light come on, oil light came on,
        oil light comes on, op light, op lights, op warning, op warning light, op warning lights, op gauge,
        loss of oil, lose oil, losing oil, lost oil, oil loss""",  # the light shows the pressure's drop
    "oil_temp": """oil, oil temp, oil temperature, engine oil, hot did the engine oil, hot was the engine oil,
        hot did my engine oil""",
    "suspension": """suspension, suspension travel, shock, shocks, shock travel, damper, dampers, damper travel,
        ride height, bump stop, bump stops""",
    "coolant_temp": """coolant, coolant temp, coolant temperature, water, water temp, water temperature,
        temperature gauge, temp gauge, temperature needle, temp needle,
        engine temp, engine temperature, overheat, overheating, overheated, over heat, over heating, over heated, running hot, engine hot,
        hot did the engine, hot was the engine, engine get hot, engine got hot, engine getting hot,
        engine ran hot, engine run hot, engine heat up, engine heated up, engine heating up, engine warm up,
        engine warmed up, running warm, run warm, ran warm, cold was the engine, engine cold, cold engine, engine was cold,
        up to temp, up to temperature, cooling, cooling system, radiator, car hot, car run hot, car ran hot, car get hot, car got hot, car getting hot,
        temp light, temperature light, water temp light, coolant light, overheat light, overheating light,
        temp light come on,
        temp light came on, temp light comes on""",
    "coolant_pressure": "coolant pressure, water pressure, coolant press, water press",
    "fuel_pressure": "fuel pressure, fuel press",
    "fuel_level": "fuel, fuel level, how much fuel",
    "battery_voltage": "battery, voltage, battery voltage",
    "battery_temp": "battery temp, battery temperature, hot did the battery, hot was the battery, battery hot",
    "tyre_pressure": """tyre pressure, tpms, hot pressure, cold pressure, psi am i running, psi do i run, psi are you running,
        pressure did i go out, pressures did i go out, pressure did i start, pressures did i start, starting pressure,
        starting pressures, puncture, punctures, punctured, slow puncture, flat tyre, flat tyres, got a flat,
        have a flat, had a flat, get a flat, valve stem""",
    "tyre_temp": "tyre temp, tyre temperature, tyre, pyrometer, pyrometers, pyro, rubber",  # "how hot were the tyres"; pressure only when said
    "coasting": """coast, coasting, coasted, coasts, neither pedal, off both pedals, off the pedals, flat line,
        flat lines, flatline, flatlines, flats, dead time, between the pedals, between pedals, freewheel,
        freewheeling, freewheeled, dead zone, dead zones, either pedal, neither pedal, gap in the pedal, gaps in
        the pedal, gaps in the pedals, off throttle time, time off throttle, throttle to brake, throttle to
        the brake, lift before braking, lift off before braking, lifting before braking, lifting before the
        brake, lift before the brake, lift before the brakes, lifting before the brakes, roll into, rolling into,
        lift and coast, lifting and coasting""",  # a flat line in the traces: neither pedal
    "lambda": """lambda, afr, air fuel, mixture, lean, rich, running lean, running rich, jetting, jetted,
        leaning out, leaned out, lean out, went lean, goes lean""",
    "gearbox_temp": """gearbox temp, gearbox temperature, gearbox oil temp, trans temp, transmission temp,
        transmission temperature, difference temp, differential temp, differential temperature,
        difference oil temp, gearbox, transmission, gearbox hot, gearbox get hot, gearbox overheat,
        gearbox overheating, gearbox overheated, transmission overheat, transmission overheating,
        transmission overheated, box overheat, trans""",
    "egt": """egt, egts, exhaust, exhaust gas, exhaust gases, exhaust temp, exhaust temperature, exhaust gas temp,
        exhaust gas temperature""",
    "head_temp": """cht, head temp, head temperature, cylinder head, cylinder head temp, cylinder head
        temperature, plug temp, spark plug temp, spark plug temperature""",
    "intake_temp": "iat, intake temp, intake temperature, intake air, inlet temp, inlet air, air intake",
    "handbrake": "handbrake, hand brake, e brake, ebrake, emergency brake, parking brake",
    "knock": """knock, knocking, detonation, pinging, pre ignition, engine knock, knock sensor, knock correction,
        knock corrections, knock retard, knock count""",
    "cabin_temp": """cabin temp, cabin temperature, cabin temperatures, cockpit temp, cockpit temperature,
        cockpit temperatures, interior temperature, in car temperature, inside the car""",
    "conditions": """track temp, track temperature, ambient, ambient temp, ambient temperature, air temp, air
        temperature, humidity, surface temp, surface temperature, track surface temp""",
    "boost": "boost, boost pressure, turbo, turbo pressure, manifold pressure",
    "chassis": """chassis, tweaked, twisted, chassis twist, bent, bent axle, axle, frame, alignment, camber,
        toe, toe in, toe out, caster, corner weight, corner weights""",
    "weight": "car weight, kart weight, weigh, weighs, how heavy, too heavy, kerb weight, curb weight, ballast",  # not "weight transfer"
    "power": """horsepower, hp, bhp, whp, power output, dyno, torque, down on power, lack of power, lacking power,
        power loss, losing power, lost power""",
    "battery_charge": """soc, state of charge, battery soc, battery charge, battery current, current draw,
        amps, amperage""",
    "brake_bias": """brake bias, brake balance, brake proportioning, proportioning valve, bias valve,
        front to rear brake, front rear brake, brake split""",
    "noise": """sound level, sound levels, noise, noise level, noise limit, sound limit, decibel, decibels, db,
        dba, db limit, too loud, how loud, loud, sound test, sound check, sound meter, noise meter""",
    "brake_wear": """brake pads, brake pad, pads, pad, pad wear, pad life, brake wear, worn pads, pads worn,
        rotor, rotors, rotor wear, disc wear, discs worn, pad material, pad compound""",
    "tyre_wear": "tyre wear, tread, tread depth, worn tyre, tyre worn, tyre life",  # "worn" alone is the driver's too ("worn out by lap 9")
    "oil_level": """oil level, oil consumption, oil quantity, burning oil, use oil, used oil, oil top up, top up oil,
        quarts of oil, quart of oil, litres of oil, liters of oil, oil added, add oil, added oil""",
    "coolant_level": "coolant level, water level, coolant loss, lost coolant, losing coolant, coolant top up",
    "clutch": "clutch, clutch slip, clutch position, clutch pedal",
    "heart_rate": """heart rate, heartrate, pulse, bpm, heart beat, heartbeat, sweat, sweating, sweated, sweaty,
        body temperature, dehydrated, dehydration""",
    "motor_temp": """motor temp, motor temps, motor temperature, motor temperatures, inverter temp, inverter
        temps, inverter temperature, inverter temperatures, motor overheat, motor overheating, inverter""",
    "wind": """wind, windy, wind speed, wind direction, wind blowing, wind blew, headwind, head wind, tailwind,
        tail wind, crosswind, cross wind, gust, gusts, gusty""",
    "slip_angle": "slip angle, slip angles, slip ratio, slip ratios",
    "ignition": "ignition timing, ignition advance, timing advance, spark advance, ignition, timing map",
    "recorded": """what channels, which channels, channels recorded, channel list, list of channels, list the
        channels, what sensors, which sensors, sensors fitted, what data do you have, what data is there, what
        data did, what data does, which data, what was logged, what got logged, what did the logger record,
        what does the file have, what is in the file, whats in the file, what was recorded, what got
        recorded, what is recorded, what does it record, what did it record""",
    "gearing": """gearing, gear ratio, gear ratios, ratio, ratios, last drive ratio, sprocket, sprockets, final drive,
        diff ratio, over geared, overgeared, under geared, undergeared""",
    "altitude": "altitude, elevation",
    "abs": "abs, anti lock",
    "dsc": "dsc, tc, traction control, stability control",
    "engine_light": """engine light, check engine, mil, cel, engine light come on, engine light came on,
        engine light comes on""",
    "lockup": """lock, locked, locking, lockup, lockups, lock up, lock ups, lock the brakes, flat spot,
        flat spots, flat spotted, flatspot, flatspotted, skid, skids, skidded, skidding, skid mark,
        skid marks""",
    "wheelspin": "wheelspin, wheel spin, spin the wheels, spinning the wheels, spin the rears, traction",
    "off": """an off, any offs, offs, off track, off the track, ran off, run off,
        running off, spin, spun, spun out, spin out, spinning out, spins, half spin, a spin, stopped on track,
        went straight on, into the gravel, gravel trap, beached, went agricultural, on the grass, crash, crashed,
        crashes, a shunt, shunted, wreck, wrecked, binned it, stuffed it""",
    "alarm": """alarm, alarms, warning, warnings, alert, alerts, warning light, warning lamp, fault, faults,
        fault code, fault codes, error code, error codes, dash light, dash lights, dash flash, dash flashed,
        tpms go off, tpms went off, tpms going off, tpms alarm, tpms alarms, tpms warning, tpms warnings,
        dash lit up, dashboard lit up, dashboard light, dashboard lights, indicator, indicators, symbol,
        idiot light, idiot lights, lit up, warning lights, light come on, light came on, lights come on,
        lights came on, light comes on, dash light, tpms light, tpms lights, tpms symbol, tpms indicator,
        tyre pressure light, tyre pressure warning, tyre pressure indicator, tyre pressure alert,
        tyre pressure alarm, tyre light, tyre warning, pressure warning, pressure light, error light, error
        lights, error message, error messages, malfunction, malfunctions, malfunction light, message on the
        dash, message on the dashboard, messages on the dash, message come up, message came up, dash message,
        dash messages, dash warning, dashboard warning, dashboard message, check light, service light""",
}
MEASURE_WORDS: dict[str, str] = {
    " ".join(p.split()): m for m, ps in _MEASURE_PHRASES.items() for p in ps.split(",") if p.strip()
}

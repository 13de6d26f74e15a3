"""Synthetic logs of cars with full data systems, with the channel names, units and AiM channel functions
real teams' files carry: a TCR-like XRK (~80 channels: the team's camel-case ECU names, the logger's own
channels, GPS-derived ones) and an Audi TT Cup-like AiM CSV (~105 channels: words with spaces).

The car obeys physics: speed from integrated accelerations, yaw rate and lateral g from speed and a
curvature, the GPS track integrated from speed and yaw; the truth is returned beside the log, so tests
check what was mapped against it, never against the mapping code.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from shared.importers.base import RawChannel, RawLog

G = 9.80665
RATE = 20.0
SECONDS = 300.0
LAT0, LON0 = 47.2, 14.8
CORNER_S, BRAKE_S, DRIVE_S, STRAIGHT_S = 5.0, 2.2, 6.5, 1.3
V_HI, V_LO = 50.0, 18.0  # m/s: top of the straights, corner speed
PEAK_G = 1.5
ABS_SETS = 26  # the ABS flag comes on this many times (twice in each of the first 13 braking zones)
TC_SETS = 5
ALARM_FROM_S, ALARM_S = 120.0, 90.0  # the water temperature alarm: on for 90 s


def drive() -> dict[str, np.ndarray]:
    """12 s pulling away through the gears, then corners every 15 s, alternately right and left."""
    t = np.arange(0.0, SECONDS, 1 / RATE)
    seg = BRAKE_S + CORNER_S + DRIVE_S + STRAIGHT_S
    pull = 12.0
    ph = (t - pull) % seg
    k = np.floor((t - pull) / seg).astype(int)
    acc = np.where(t < pull, V_HI / pull, 0.0)
    on = t >= pull
    braking = on & (ph < BRAKE_S)
    corner = on & (ph >= BRAKE_S) & (ph < BRAKE_S + CORNER_S)
    driving = on & (ph >= BRAKE_S + CORNER_S) & (ph < BRAKE_S + CORNER_S + DRIVE_S)
    acc = np.where(braking, -(V_HI - V_LO) / BRAKE_S, acc)
    acc = np.where(driving, (V_HI - V_LO) / DRIVE_S, acc)
    v = np.clip(np.cumsum(acc) / RATE, 0.0, V_HI)
    side = np.where(k % 2 == 0, 1.0, -1.0)  # right, then left
    tau = np.clip(ph - BRAKE_S, 0, CORNER_S)
    lat_ms2 = np.where(corner, side * PEAK_G * G * np.sin(math.pi * tau / CORNER_S), 0.0)
    yaw = np.where(v > 1, lat_ms2 / np.maximum(v, 1), 0.0)  # rad/s, positive right
    psi = np.cumsum(yaw) / RATE
    x, y = np.cumsum(v * np.sin(psi)) / RATE, np.cumsum(v * np.cos(psi)) / RATE
    gear = np.clip(np.ceil(v / 9.0), 1, 6)
    rpm = np.where(v > 0.5, 6800.0 * v / (9.0 * gear), 900.0)
    pedal = np.where(braking, 0.0, np.where(corner, 25.0, np.where(driving | (t < pull), 100.0, 70.0)))
    pedal = np.where(on & (ph >= seg - 0.8), 0.0, pedal)  # a lift before each braking zone: coasting
    brake = np.where(braking, 85.0 * np.sin(math.pi * np.clip(ph / BRAKE_S, 0, 1)), 0.0)
    abs_flag = np.zeros(len(t))
    for zone in range(ABS_SETS // 2):
        a = pull + zone * seg
        for s0 in (0.4, 1.2):
            abs_flag[(t >= a + s0) & (t < a + s0 + 0.4)] = 1.0
    tc = np.zeros(len(t))
    for zone in range(TC_SETS):
        a = pull + zone * seg + BRAKE_S + CORNER_S
        tc[(t >= a) & (t < a + 0.6)] = 1.0
    alarm = ((t >= ALARM_FROM_S) & (t < ALARM_FROM_S + ALARM_S)).astype(float)
    return {
        "t": t,
        "v": v,
        "lat": LAT0 + y / 111_195.0,
        "lon": LON0 + x / (111_195.0 * math.cos(math.radians(LAT0))),
        "g_lat": lat_ms2 / G,
        "g_long": np.gradient(v, t) / G,
        "yaw_dps": np.degrees(yaw),
        "steer_deg": 130.0 * lat_ms2 / G,
        "gear": gear,
        "rpm": rpm,
        "pedal": pedal,
        "body": 12.0 + 0.75 * pedal,  # the throttle body: 12-87 %, never closed
        "brake": brake,
        "abs": abs_flag,
        "tc": tc,
        "alarm": alarm,
        "water_c": 88.0 + 22.0 * alarm + 0.01 * t,
    }


def _noisy(rng: np.random.Generator, x: np.ndarray, sd: float) -> np.ndarray:
    return x + rng.normal(0.0, sd, len(x))


def _gps_derived(rng: np.random.Generator, d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A logger's GPS-derived g and yaw: the truth plus heading noise, which spikes at low speed."""
    n = len(d["t"])
    spikes = np.zeros(n)
    idx = 2 * rng.choice(n // 2, 40, replace=False)  # even samples: kept by the 10 Hz GPS channels too
    spikes[idx] = rng.uniform(-1, 1, 40)
    lat = d["g_lat"] + 0.08 * rng.normal(size=n) + 0.5 * spikes
    lat[idx[:2]] = (2.25, -2.25)
    yaw = d["yaw_dps"] + 3.0 * rng.normal(size=n) + 250.0 * spikes
    yaw[idx[:2]] = (340.0, -340.0)
    return {"lat": lat, "long": d["g_long"] + 0.06 * rng.normal(size=n), "yaw": yaw}


def tcr_channels(d: dict[str, np.ndarray], seed: int = 7) -> list[tuple[str, str, str, np.ndarray]]:
    """(name, unit, AiM function, values): the logger's channels, then the team's ECU channels."""
    rng = np.random.default_rng(seed)
    n = len(d["t"])
    gps = _gps_derived(rng, d)
    const = np.ones(n)
    out: list[tuple[str, str, str, np.ndarray]] = [
        ("GPS Speed", "m/s", "", d["v"]),
        ("GPS Latitude", "deg", "", d["lat"]),
        ("GPS Longitude", "deg", "", d["lon"]),
        ("GPS Altitude", "m", "", 420.0 + 0.01 * d["t"]),
        ("GPS_Satellites", "", "", 14 * const),
        ("GPS_Fix", "", "", 3 * const),
        ("GPS_pDOP", "", "", 0.9 * const),
        ("GPS_Position_Accuracy", "m", "", 0.4 * const),
        ("GPS_Velocity_Accuracy", "m/s", "", 0.2 * const),
        ("GPS_InlineAcc", "g", "", gps["long"]),
        ("GPS_LateralAcc", "g", "", gps["lat"]),
        ("GPS_Yaw_Rate", "deg/s", "", gps["yaw"]),
        ("LoggerTemp", "C", "Device Temperature", 35 + 0.01 * d["t"]),
        ("External Voltage", "V", "Battery Voltage", _noisy(rng, 13.8 * const, 0.05)),
        ("Luminosity", "%", "Device Brightness", 60 * const),
        *[(f"Channel{i:02d}", "mV", "Voltage", _noisy(rng, 500 * const, 5)) for i in range(1, 9)],
        # the team's ECU and ABS module: camel-case quantity prefixes, German abbreviations
        ("nMot", "rpm", "Engine RPM", d["rpm"]),
        ("rPedal", "%", "Percentage Throttle Load", d["pedal"]),
        ("Gang", "gear", "Gear", d["gear"]),
        ("LW", "deg", "Steering Angle", _noisy(rng, d["steer_deg"], 0.3)),
        ("ay_ABS", "g", "Lateral Acceleration", _noisy(rng, d["g_lat"], 0.03)),
        ("ax_ABS", "g", "Inline Acceleration", _noisy(rng, d["g_long"], 0.03)),
        ("dPsi_ABS", "deg/s", "Yaw Rate", _noisy(rng, d["yaw_dps"], 0.4)),
        ("pFuel", "bar", "Fuel Pressure", _noisy(rng, 5.0 * const, 0.05)),
        ("pBrakeF", "bar", "Brake Pressure", d["brake"]),
        ("pBrakeR", "bar", "Brake Pressure", 0.6 * d["brake"]),
        ("B_ABS", "", "Number", d["abs"]),
        ("B_TC", "", "Number", d["tc"]),
        ("TWater", "C", "Water Temperature", d["water_c"]),
        ("B_WarnTWater", "", "Number", d["alarm"]),
        ("TOil", "C", "Oil Temperature", 105 + 0.02 * d["t"]),
        ("pOil", "bar", "Oil Pressure", 2.0 + d["rpm"] / 1700.0),
        *[(f"vWheel{w}", "km/h", "Wheel Speed", d["v"] * 3.6) for w in ("FL", "FR", "RL", "RR")],
        # channels a coach does not read: they stay in the long table by name
        ("TAir", "C", "Temperature", 31 * const + 0.001 * d["t"]),
        ("pBoost", "bar", "Pressure", 1.0 + d["pedal"] / 100.0),
        ("Lambda1", "", "Lambda", _noisy(rng, const, 0.01)),
        ("TExhaust", "C", "Temperature", 600 + 3 * d["pedal"]),
        ("nTurbo", "rpm", "Engine RPM", 20000 + 800 * d["pedal"]),  # libxrk: any CAN rpm channel
        ("TGearbox", "C", "Temperature", 80 + 0.02 * d["t"]),
        ("pManifold", "mbar", "Pressure", 1000 + 10 * d["pedal"]),
        ("FuelUsed", "l", "", 0.002 * d["t"]),
        *[(f"TBrakeDisc{w}", "C", "Temperature", 300 + 2 * d["brake"]) for w in ("FL", "FR", "RL", "RR")],
        *[(f"TTyreSurf{w}", "C", "Temperature", 80 + 0.01 * d["t"]) for w in ("FL", "FR", "RL", "RR")],
        *[(f"xDamper{w}", "mm", "Distance", _noisy(rng, 20 * const, 1)) for w in ("FL", "FR", "RL", "RR")],
        ("MapPos", "", "Number", 2 * const),
        ("TCSwitchPos", "", "Number", 4 * const),
        ("BiasPos", "%", "Percent", 57 * const),
        ("Odometer", "km", "", 1000 + d["t"] * 0.05),
        ("LapCount", "", "Number", np.floor(d["t"] / 60)),
        ("IgnAdv", "deg", "Angle", 20 + 0.1 * d["pedal"]),
        ("InjTime", "ms", "", 2 + 0.1 * d["pedal"]),
        ("uBatt_ECU", "V", "Voltage", _noisy(rng, 13.9 * const, 0.05)),
        ("TFuel", "C", "Temperature", 35 * const + 0.001 * d["t"]),
        ("pAmb", "mbar", "Pressure", 965 * const),
        ("ECU_Status", "", "Number", 0 * const),
        ("LaunchActive", "", "Number", (d["t"] < 2).astype(float)),
        ("PitLimiter", "", "Number", 0 * const),
        ("ShiftCut", "", "Number", 0 * const),
        ("rClutch", "%", "Percent", np.where(d["t"] < 1, 100.0, 0.0)),
        ("FanDuty", "%", "Percent", 40 * const),
        ("TCoolantOut", "C", "Temperature", d["water_c"] - 5),
    ]
    return out


def tcr_xrk_log(seed: int = 7, functions: bool = True) -> tuple[RawLog, dict[str, np.ndarray]]:
    """The TCR-like XRK as libxrk gives it: GPS channels at 10 Hz, the rest at 20 Hz, each with its unit
    and (``functions``) its AiM channel function."""
    d = drive()
    chans: dict[str, RawChannel] = {}
    for name, unit, func, vals in tcr_channels(d, seed):
        gps = name.startswith("GPS")
        t = d["t"][::2] if gps else d["t"]
        v = vals[::2] if gps else vals
        dname = name.replace("_", " ")  # as shared.importers.aim_xrk names them
        chans[dname] = RawChannel(
            dname, unit, t, v.astype(np.float64), 10.0 if gps else RATE, "aim_xrk", func if functions else ""
        )
    meta: dict[str, Any] = {"vehicle": "TCR", "racer": "Test Driver", "venue": ""}
    return RawLog("aim_xrk", Path("tcr.xrk"), "0" * 64, meta, chans), d


def audi_columns(d: dict[str, np.ndarray], seed: int = 11) -> list[tuple[str, str, np.ndarray]]:
    """(name, unit, values) as a Race Studio CSV export of an Audi TT Cup car: words with spaces."""
    rng = np.random.default_rng(seed)
    n = len(d["t"])
    gps = _gps_derived(rng, d)
    const = np.ones(n)
    cols: list[tuple[str, str, np.ndarray]] = [
        ("GPS Speed", "km/h", d["v"] * 3.6),
        ("GPS Nsat", "", 13 * const),
        ("GPS LatAcc", "g", gps["lat"]),
        ("GPS LonAcc", "g", gps["long"]),
        ("GPS Slope", "deg", 0 * const),
        ("GPS Heading", "deg", np.degrees(np.cumsum(np.radians(d["yaw_dps"])) / RATE) % 360),
        ("GPS Gyro", "deg/s", gps["yaw"]),
        ("GPS Altitude", "m", 300 * const + 0.01 * d["t"]),
        ("GPS PosAccuracy", "mm", 400 * const),
        ("GPS SpdAccuracy", "km/h", 0.5 * const),
        ("GPS Radius", "m", 10000 * const),
        ("GPS Latitude", "deg", d["lat"]),
        ("GPS Longitude", "deg", d["lon"]),
        ("Logger Temperature", "°C", 33 * const + 0.01 * d["t"]),
        ("External Voltage", "V", _noisy(rng, 13.7 * const, 0.05)),
        ("Engine RPM", "rpm", d["rpm"]),
        ("Accelerator Pedal", "%", d["pedal"]),
        ("Percentage Throttle Load", "%", d["body"]),
        ("Gear", "gear", d["gear"]),
        ("Steering Angle", "deg", _noisy(rng, d["steer_deg"], 0.3)),
        ("Yaw Rate", "deg/s", _noisy(rng, d["yaw_dps"], 0.4)),
        ("Lateral Acceleration", "g", _noisy(rng, d["g_lat"], 0.03)),
        ("Longitudinal Acceleration", "g", _noisy(rng, d["g_long"], 0.03)),
        ("Vertical Acceleration", "g", _noisy(rng, const, 0.05)),
        ("Fuel Pressure", "bar", _noisy(rng, 4.8 * const, 0.05)),
        ("Brake Pressure Front", "bar", d["brake"]),
        ("Brake Pressure Rear", "bar", 0.55 * d["brake"]),
        ("ABS Active", "", d["abs"]),
        ("ESP Intervention", "", d["tc"]),
        ("Water Temp Warning", "", d["alarm"]),
        ("Oil Press Warning", "", 0 * const),
        ("Water Temp", "°C", d["water_c"]),
        ("Oil Temp", "°C", 100 + 0.02 * d["t"]),
        ("Oil Pressure", "bar", 2.0 + d["rpm"] / 1700.0),
        *[(f"Wheel Speed {w}", "km/h", d["v"] * 3.6) for w in ("FL", "FR", "RL", "RR")],
        *[(f"Tyre Press {w}", "bar", 2.1 * const + 0.001 * d["t"]) for w in ("FL", "FR", "RL", "RR")],
        *[(f"Tyre Temp {w}", "°C", 40 * const + 0.05 * d["t"]) for w in ("FL", "FR", "RL", "RR")],
        ("Battery Voltage", "V", _noisy(rng, 13.9 * const, 0.05)),
        ("Fuel Level", "l", 50 - 0.005 * d["t"]),
    ]
    filler = [
        ("Intake Air Temp", "°C"),
        ("Boost Pressure", "bar"),
        ("Lambda", ""),
        ("Exhaust Gas Temp", "°C"),
        ("Ignition Angle", "deg"),
        ("Injection Time", "ms"),
        ("Gearbox Temp", "°C"),
        ("Clutch Temp", "°C"),
        ("Ambient Pressure", "mbar"),
        ("Manifold Pressure", "mbar"),
        ("Turbo Speed", "rpm"),
        ("Fan Duty", "%"),
        ("Map Position", ""),
        ("Brake Bias", "%"),
        ("Odometer", "km"),
        ("Lap Count", ""),
        ("Fuel Used", "l"),
        ("Fuel Temp", "°C"),
        ("ECU Status", ""),
        ("Pit Limiter", ""),
        ("Launch Active", ""),
        ("Shift Cut", ""),
        ("Knock Retard", "deg"),
        ("Cam Inlet", "deg"),
        ("Cam Exhaust", "deg"),
    ]
    filler += [(f"Brake Disc Temp {w}", "°C") for w in ("FL", "FR", "RL", "RR")]
    filler += [(f"Damper {w}", "mm") for w in ("FL", "FR", "RL", "RR")]
    filler += [(f"Ride Height {w}", "mm") for w in ("FL", "FR", "RL", "RR")]
    filler += [(f"Channel{i:02d}", "mV") for i in range(1, 17)]
    filler += [(f"Aux Input {i}", "") for i in range(1, 6)]
    for i, (name, unit) in enumerate(filler):
        cols.append((name, unit, _noisy(rng, (50 + i) * const, 0.5)))
    return cols


def write_aim_csv(path: Path, cols: list[tuple[str, str, np.ndarray]], t: np.ndarray) -> None:
    """An "AiM CSV File" as Race Studio exports it: header facts, names row, units row, data."""
    head = [
        "Format,AiM CSV File",
        "Venue,Test Ring",
        "Vehicle,Audi TT Cup",
        "Racer,Test Driver",
        "Sample Rate,20",
        f"Duration,{t[-1]:.2f}",
        "",
        ",".join(["Time"] + [c[0] for c in cols]),
        ",".join(["s"] + [c[1] for c in cols]),
        "",
    ]
    body = np.column_stack([t] + [c[2] for c in cols])
    rows = [",".join(f"{x:.6f}" for x in r) for r in body]
    path.write_text("\n".join(head + rows) + "\n", encoding="utf-8")

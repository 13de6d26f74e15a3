"""Write a simulated session as a Race Studio style AiM CSV, a candump log, and ground-truth JSON."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from shared.signals import WHEELS
from shared.simulator.session import SimSession

# canonical -> (AiM display name, unit) as Race Studio writes them; the generic car profile maps them back
AIM_NAMES: dict[str, tuple[str, str]] = {
    "speed_kmh": ("GPS Speed", "km/h"),
    "lat": ("GPS Latitude", "deg"),
    "lon": ("GPS Longitude", "deg"),
    "alt_m": ("GPS Altitude", "m"),
    "heading_deg": ("GPS Heading", "deg"),
    "rpm": ("RPM", "rpm"),
    "gear": ("Gear", " "),
    "throttle_pct": ("Throttle Pos", "%"),
    "brake_bar": ("Brake Press", "bar"),
    "steer_deg": ("Steering Angle", "deg"),
    "g_lat": ("LateralAcc", "g"),
    "g_long": ("InlineAcc", "g"),
    "g_vert": ("VerticalAcc", "g"),
    "yaw_rate_dps": ("Yaw Rate", "deg/s"),
    "wheel_speed_fl_kmh": ("Speed FL", "km/h"),
    "wheel_speed_fr_kmh": ("Speed FR", "km/h"),
    "wheel_speed_rl_kmh": ("Speed RL", "km/h"),
    "wheel_speed_rr_kmh": ("Speed RR", "km/h"),
    "oil_press_bar": ("Oil Press", "bar"),
    "water_press_bar": ("Water Press", "bar"),
    "fuel_press_bar": ("Fuel Press", "bar"),
    "oil_temp_c": ("Oil Temp", "°C"),
    "water_temp_c": ("Water Temp", "°C"),
    "fuel_level_l": ("Fuel Level L", "l"),
    "battery_v": ("Battery", "V"),
    "abs_active": ("ABS Active", " "),
    "dsc_active": ("DSC Active", " "),
    "mil": ("MIL", " "),
    "brake_switch": ("Brake Switch", " "),
    **{f"tpms_press_{w}_bar": (f"TPMS Press {w.upper()}", "bar") for w in WHEELS},
    **{f"tpms_temp_{w}_c": (f"TPMS Temp {w.upper()}", "°C") for w in WHEELS},
    **{f"tpms_alarm_{w}": (f"TPMS Alarm {w.upper()}", " ") for w in WHEELS},
}


def _fmt_lap(sec: float) -> str:
    m = int(sec // 60)
    return f"{m}:{sec - 60 * m:06.3f}"


def write_aim_csv(
    sim: SimSession, path: Path | str, extra: Mapping[str, tuple[str, np.ndarray]] | None = None
) -> Path:
    """Race Studio 3 layout: quoted cells, LF, header block, names row, units row, data grid. ``extra``:
    channels of the logger's own that are not canonical signals, by name: (unit, values per sample)."""
    path = Path(path)
    w = sim.wide
    t = w["t_s"]
    cols = [c for c in AIM_NAMES if c in w]
    ends = [lp["t_end_s"] for lp in sim.truth.laps]
    seg = [ends[0]] + [b - a for a, b in zip(ends[:-1], ends[1:], strict=True)]
    # Race Studio rounds segment times to the millisecond; keep the cumulative sum exact to 1 ms
    seg_ms = np.diff(np.round(np.concatenate([[0.0], np.cumsum(seg)]) * 1000)) / 1000
    rate = sim.meta.get("rate_hz", 50.0)

    def q(x: str) -> str:
        return '"' + x.replace('"', '""') + '"'

    lines = [
        f"{q('Format')},{q('AiM CSV File')}",
        f"{q('Session')},{q(sim.track.name if sim.track else 'Simulated')}",
        f"{q('Vehicle')},{q(sim.car.name if sim.car else 'Simulated car')}",
        f"{q('Racer')},{q('Pitwall Simulator')}",
        f"{q('Championship')},{q('')}",
        f"{q('Comment')},{q('seed ' + str(sim.meta.get('seed')))}",
        f"{q('Date')},{q('Saturday, November 21, 2026')}",
        f"{q('Time')},{q('10:00 AM')}",
        f"{q('Sample Rate')},{q(str(int(rate)))}",
        f"{q('Duration')},{q(f'{t[-1]:.2f}')}",
        f"{q('Segment')},{q('Session')}",
        ",".join([q("Beacon Markers")] + [q(f"{x:.6g}") for x in np.cumsum(seg_ms)]),
        ",".join([q("Segment Times")] + [q(_fmt_lap(float(x))) for x in seg_ms]),
        "",
        ",".join([q("Time")] + [q(AIM_NAMES[c][0]) for c in cols] + [q(n) for n in extra or {}]),
        ",".join([q("s")] + [q(AIM_NAMES[c][1]) for c in cols] + [q(u) for u, _ in (extra or {}).values()]),
        "",
    ]
    more = [np.asarray(v, dtype=np.float64) for _, v in (extra or {}).values()]
    mat = np.column_stack([t] + [w[c] for c in cols] + more)
    decimals = ["%.3f"] + ["%.8f" if c in ("lat", "lon") else "%.4f" for c in cols] + ["%.4f"] * len(more)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")
        fmt = ",".join('"' + d + '"' for d in decimals)
        np.savetxt(fh, mat, fmt=fmt, delimiter=",")
    return path


def write_candump(sim: SimSession, path: Path | str, car_id: str = "bmw_e46_m3_aim_mxp") -> Path:
    """Encode the session as AiM MXP CAN frames at their broadcast rates (candump -L style lines)."""
    from shared.can_codec import FRAME_RATES_HZ, AimMxpCodec, format_candump_line
    from shared.profiles.car import load_car

    path = Path(path)
    codec = AimMxpCodec(load_car(car_id))
    w = sim.wide
    t = w["t_s"]
    keys = [k for k in w if k != "t_s"]
    epoch = 1_763_719_200.0  # fixed wall-clock origin, so the file is reproducible
    next_due = {fid: 0.0 for fid in codec.frame_ids}
    with path.open("w", encoding="ascii") as fh:
        for i in range(len(t)):
            due = [fid for fid, at in next_due.items() if t[i] + 1e-9 >= at]
            if not due:
                continue
            row = {k: float(w[k][i]) for k in keys}
            for fid, data in codec.encode_wide_row(row, ids=due):
                fh.write(format_candump_line(epoch + float(t[i]), fid, data) + "\n")
            for fid in due:
                next_due[fid] += 1.0 / FRAME_RATES_HZ.get(fid, 10.0)
                if next_due[fid] < t[i]:
                    next_due[fid] = math.floor(t[i] * FRAME_RATES_HZ.get(fid, 10.0) + 1) / FRAME_RATES_HZ.get(
                        fid, 10.0
                    )
    return path


def write_ground_truth(sim: SimSession, path: Path | str) -> Path:
    path = Path(path)
    path.write_text(sim.truth.to_json(), encoding="utf-8")
    return path

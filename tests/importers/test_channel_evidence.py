"""Single channels through the mapping: what the file's function, the name and the values decide for
engine speed, throttle pedal and body, intervention flags and alarms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared.channel_map import resolve
from shared.importers.base import RawChannel, RawLog
from shared.profiles.car import load_car
from tests.support.team_logs import RATE, drive


@pytest.mark.parametrize(
    ("name", "function", "canonical"),
    [
        ("nMot", "Engine RPM", "rpm"),
        ("nTurbo", "Engine RPM", None),  # AiM calls every CAN channel in rpm "Engine RPM"
        ("Wheel RPM RL", "Engine RPM", None),
        ("RPM Limit", "", None),
        ("Motordrehzahl", "Engine RPM", "rpm"),
    ],
)
def test_engine_rpm_function_is_no_engine_when_the_name_says_another_shaft(
    name: str, function: str, canonical: str | None
) -> None:
    t = np.arange(50.0)
    ch = RawChannel(name, "rpm", t, 3000 + 10 * t, 1.0, "aim_xrk", function)
    (dec,) = resolve({name: ch}, "aim_xrk")
    assert dec.canonical == canonical, dec.why


def test_a_throttle_channel_beside_the_pedal_is_the_throttle_body() -> None:
    """A cable-less car logs both, each 0-100 %: the one named the pedal is the driver's."""
    t = np.arange(100.0)
    pedal = np.clip(np.sin(t / 5) * 120, 0, 100)
    chans = {
        "TPS": RawChannel("TPS", "%", t, pedal * 0.98, 1.0, "aim_csv"),
        "Pedal Pos": RawChannel("Pedal Pos", "%", t, pedal, 1.0, "aim_csv"),
    }
    by = {d.name: d for d in resolve(chans, "aim_csv")}
    assert by["Pedal Pos"].canonical == "throttle_pct" and by["TPS"].canonical == "throttle_body_pct"
    assert "beside a channel named the pedal" in by["TPS"].why


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("WT Alarm", "alarm: water temperature"),  # a kart's water-temperature alarm
        ("AlarmWaterTemp", "alarm: water temperature"),
        ("B_WarnTWater", "alarm: water temperature"),
        ("Oil Press Warning", "alarm: oil pressure"),
        ("Alarm_OP", "alarm: oil pressure"),
        ("Warn_Rev", "alarm: engine speed"),
        ("Alarm 3", "alarm: number 3"),
    ],
)
def test_alarm_channels_are_named_and_feed_no_column(name: str, why: str) -> None:
    t = np.arange(50.0)
    ch = RawChannel(name, "", t, (t > 20).astype(float), 1.0, "aim_csv", "Number")
    (dec,) = resolve({name: ch}, "aim_csv")
    assert dec.canonical is None and dec.why.startswith(why + " "), dec.why


def test_a_traction_control_knob_is_no_intervention_flag() -> None:
    """'TC' holding the knob's position (1-9) is a setting: only a 0/1 channel is an intervention flag."""
    t = np.arange(200.0)
    knob = np.where(t < 100, 4.0, 1.0)
    flag = ((t % 40) < 2).astype(float)
    (knob_d,) = resolve({"TC": RawChannel("TC", "", t, knob, 1.0, "aim_xrk", "Number")}, "aim_xrk")
    assert knob_d.canonical is None and "values other than 0 and 1 (4..4)" in knob_d.why
    (flag_d,) = resolve({"TC": RawChannel("TC", "", t, flag, 1.0, "aim_xrk", "Number")}, "aim_xrk")
    assert flag_d.canonical == "dsc_active"


def test_a_roll_angle_following_the_corners_is_not_taken_for_steering() -> None:
    """With no steering channel, a body roll angle (a few degrees) follows the track's curvature as well
    as a steering wheel would; only a channel that turns like a steering wheel (tens of degrees) is one."""
    d = drive()

    def ch(name: str, unit: str, v: np.ndarray) -> RawChannel:
        return RawChannel(name, unit, d["t"], v.astype(np.float64), RATE, "aim_csv")

    base = [
        ch("GPS Speed", "km/h", d["v"] * 3.6),
        ch("GPS Latitude", "deg", d["lat"]),
        ch("GPS Longitude", "deg", d["lon"]),
    ]
    roll = RawLog(
        "aim_csv",
        Path("a.csv"),
        "0" * 64,
        {},
        {c.name: c for c in [*base, ch("CAN 3", "deg", 2.5 * d["g_lat"])]},
    )
    _, reg = load_car("generic").to_wide(roll)
    assert {r["name"]: r["canonical"] for r in reg}["CAN 3"] is None
    wheel = RawLog(
        "aim_csv",
        Path("b.csv"),
        "0" * 64,
        {},
        {c.name: c for c in [*base, ch("CAN 3", "deg", d["steer_deg"])]},
    )
    _, reg = load_car("generic").to_wide(wheel)
    assert {r["name"]: r["canonical"] for r in reg}["CAN 3"] == "steer_deg"

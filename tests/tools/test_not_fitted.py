"""What the debrief says is not recorded names only what this kind of vehicle has, and a measure the file
holds in a channel Pitwall does not read is named with that channel. Real files: the MyChron kart CSV (a
kart: no ABS, DSC, warning light, TPMS, oil or fuel pressure), the SCUT XRK (brake channels Pitwall does
not read), the Sonoma VBOX (a car without ABS channels). The expected words come from the raw files'
own headers and values, read here with the csv module."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.digest import build_digest
from services.paddock.agents.narrative import template_narrative
from services.paddock.tools.registry import run_tool
from services.paddock.tools.vehicle import direct_drive_kart, vehicle_kind
from tests.support.asking import ask_planned
from tests.support.debrief import debrief_state

KART_LACKS = ("ABS", "DSC", "warning light", "TPMS", "oil pressure", "fuel pressure")


def _sid(env: dict[str, Any], key: str) -> str:
    if env.get(key) is None:
        pytest.fail(f"../shared/data is missing: {key} needs it")
    return str(env[key])


def _debrief(sid: str) -> tuple[str, str]:
    """(the digest, the template narrative) of the session, as the debrief builds them with no model."""
    state = debrief_state(sid)
    return build_digest("debrief", state), template_narrative("debrief", state)[0]


def _columns(path: Path) -> dict[str, np.ndarray]:
    """A Race Studio CSV export's channels by header name (the first row starting "Time" with more than
    two cells: the metadata's "Time" row has one value), values as floats."""
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        got = list(csv.reader(fh))
    head = next(i for i, r in enumerate(got) if r and r[0] == "Time" and sum(bool(x) for x in r) > 2)
    names = got[head]
    body = [r for r in got[head + 2 :] if len(r) == len(names) and r[0].strip()]
    return {n: np.array([float(r[i]) if r[i].strip() else np.nan for r in body]) for i, n in enumerate(names)}


def test_the_kart_debrief_names_no_system_a_kart_lacks(lake_env: dict[str, Any]) -> None:
    cols = _columns(lake_env["data_dir"] / "aim" / "mychron_kart_sskc_2022-06-19.csv")
    # the file says nothing of a kart in its header; its data do: one fixed ratio of rpm to speed, 11,000 rpm
    moving = (cols["GPS Speed"] > 30) & (cols["RPM"] > 1000)
    ratio = cols["RPM"][moving] / cols["GPS Speed"][moving]
    assert np.percentile(ratio, 90) / np.percentile(ratio, 10) < 1.1
    assert np.percentile(cols["RPM"][moving], 99) > 10_000
    assert direct_drive_kart(cols["RPM"], cols["GPS Speed"])
    digest, text = _debrief(_sid(lake_env, "kart_sid"))
    for word in KART_LACKS:
        assert word not in digest and word not in text, (word, digest, text)
    # what a kart has and this file holds no channel for, in the header's order of nothing: no pedal,
    # brake or oil channel at all
    lower = [n.lower() for n in cols]
    lacking = [
        w
        for w, keys in (("throttle position", ("throttle", "pedal", "tps")), ("oil temperature", ("oil",)))
        + (("brake pressure", ("brake",)),)
        if not any(k in n for n in lower for k in keys)
    ]
    assert lacking == ["throttle position", "oil temperature", "brake pressure"]
    assert f"Not recorded: {', '.join(lacking)}." in text
    water = float(np.nanmax(cols["Water Temp"]))
    assert f"Engine: coolant max {water:g} C." in digest.splitlines()  # no "oil pressure under load"
    assert "Tyres:" not in digest
    flags = run_tool("get_flags_and_alarms", {"session_id": _sid(lake_env, "kart_sid")})
    assert flags["sources"] == [] and flags["sources_missing"] == []  # no flag a kart could have set


def test_the_xrk_debrief_names_its_unread_brake_channels(lake_env: dict[str, Any]) -> None:
    cols = _columns(lake_env["data_dir"] / "aim" / "scut_fsev_agx.csv")  # the same session's CSV export
    brake = sorted(
        n
        for n, v in cols.items()
        if "brake" in re.findall(r"[a-z]+", n.lower()) and np.nanmin(v) < np.nanmax(v)
    )
    assert brake == ["Ave Brake", "Brake Gas", "Brake Pst", "Brake Sense"]  # "AGX Brake Flag" stays 0
    said = ", ".join(f"a channel named {n}" for n in brake[:-1]) + f" and a channel named {brake[-1]}"
    sentence = f"For brake pressure, the file has {said}, which Pitwall does not read yet."
    digest, text = _debrief(_sid(lake_env, "xrk_sid"))
    assert sentence in text and sentence.lower() in digest.lower()
    listed = re.search(r"Not recorded: ([^.]*)\.", text)
    assert listed and "brake pressure" not in listed.group(1), text
    assert "brake pressure not recorded" not in digest.lower()
    # the answer names them in the same words (the answer lists three at most)
    got = ask_planned(_sid(lake_env, "xrk_sid"), "what was my brake pressure?")
    three = [f"a channel named {n}" for n in brake[:3]]
    head = f"The file has {', '.join(three[:-1])} and {three[-1]}, which Pitwall does not read yet"
    assert got.text.startswith(head), got.text
    assert "not recorded" not in got.text, got.text
    # an electric car (its battery's charge is a live channel): no engine oil, fuel or engine warning light
    assert np.nanmin(cols["Battery Soc"]) < np.nanmax(cols["Battery Soc"])
    words = [set(re.findall(r"[a-z]+", n.lower())) for n in cols]
    assert not [w for w in words if w & {"oil", "fuel", "mil"}]
    for gone in ("oil pressure", "oil temperature", "fuel pressure", "warning light"):
        assert gone not in digest and gone not in text, (gone, digest, text)

    def moving(keys: set[str]) -> list[str]:  # the file's channels named by those words that hold a reading
        return [
            n
            for n, w in zip(cols, words, strict=True)
            if w & keys and np.nanmin(cols[n]) < np.nanmax(cols[n])
        ]

    # the accelerator pedal's channels (Acc-1, Acc-2) never move, so no throttle is recorded; "EBS Gas" (the
    # emergency brake system's tank pressure) is not a throttle channel
    assert [n for n, w in zip(cols, words, strict=True) if "acc" in w] and not moving(
        {"acc", "throttle", "tps", "pedal"}
    )
    lacking = [
        said
        for said, keys in (
            ("ABS activity", {"abs"}),
            ("DSC activity", {"dsc"}),
            ("TPMS alarms", {"tpms"}),
            ("throttle position", {"acc", "throttle", "tps", "pedal"}),
            ("coolant temperature", {"coolant", "water"}),
        )
        if not moving(keys)
    ]
    assert f"Not recorded: {', '.join(lacking)}." in text
    assert (
        "Engine: coolant temperature not recorded." in digest.splitlines()
    )  # nothing checked: no "no warnings"


@pytest.mark.parametrize("key", ["vbox_sid", "bare_sid"])
def test_a_car_without_abs_channels_still_says_abs_is_not_recorded(
    lake_env: dict[str, Any], key: str
) -> None:
    if key == "vbox_sid":  # the VBOX header has no ABS or DSC channel
        with (lake_env["data_dir"] / "vbox" / "sonoma_vbox0240.csv").open(encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh))
        assert not [h for h in header if re.search(r"\b(abs|dsc)\b", h.lower())]
    digest, text = _debrief(_sid(lake_env, key))
    assert "not recorded: ABS activity, DSC activity" in digest
    assert re.search(r"Not recorded: ABS activity, DSC activity\b", text), text


def test_a_car_with_a_gearbox_is_no_kart(lake_env: dict[str, Any]) -> None:
    """The simulated car changes gear: its rpm-to-speed ratio spreads, whatever its revs."""
    w = lake_env["sim"].wide
    assert not direct_drive_kart(w["rpm"], w["speed_kmh"])
    assert direct_drive_kart(w["speed_kmh"] * 120.0, w["speed_kmh"])  # one ratio, past 9,000 rpm
    assert not direct_drive_kart(w["speed_kmh"] * 40.0, w["speed_kmh"])  # one gear, car revs


def test_the_car_profile_and_the_files_vehicle_name_say_what_the_vehicle_is(lake_env: dict[str, Any]) -> None:
    """The profile's ``vehicle.kind`` outranks the data both ways; a vehicle name saying kart is a kart."""
    cars = Path(lake_env["settings"].data_dir) / "profiles" / "cars"
    cars.mkdir(parents=True, exist_ok=True)
    for kind in ("kart", "car"):
        (cars / f"said_{kind}.yaml").write_text(
            f"id: said_{kind}\nname: Said {kind}\nvehicle:\n  kind: {kind}\nchannels: []\nthresholds: {{}}\n",
            encoding="utf-8",
        )
    kart, vbox = _sid(lake_env, "kart_sid"), _sid(lake_env, "vbox_sid")
    assert vehicle_kind({"session_id": kart, "car_id": None}) == "kart"  # the data: direct drive
    assert vehicle_kind({"session_id": kart, "car_id": "said_car"}) == "car"
    assert vehicle_kind({"session_id": vbox, "car_id": None}) == "car"
    assert vehicle_kind({"session_id": vbox, "car_id": "said_kart"}) == "kart"
    assert vehicle_kind({"session_id": vbox, "car_id": None, "car_name": "Rotax Kart 143"}) == "kart"
    assert vehicle_kind({"session_id": vbox, "car_id": None, "car_name": "Kartoffel GT"}) == "car"
    assert vehicle_kind({"session_id": kart, "car_id": None}, electric=True) == "electric"
    assert vehicle_kind({"session_id": kart, "car_id": "said_car"}, electric=True) == "car"


def test_an_electric_cars_motor_and_inverter_temperatures_are_named(lake_env: dict[str, Any]) -> None:
    """The SCUT XRK's motor and inverter temperature channels (which Pitwall does not read) are named when
    the driver asks about them; never "not recorded", never read as the engine's coolant."""
    cols = _columns(lake_env["data_dir"] / "aim" / "scut_fsev_agx.csv")
    hot = sorted(
        n
        for n, v in cols.items()
        if {"motor", "inverter"} & set(re.findall(r"[a-z]+", n.lower()))
        and "temp" in n.lower()
        and np.nanmin(v) < np.nanmax(v)
    )
    assert hot  # the file records them
    got = ask_planned(_sid(lake_env, "xrk_sid"), "did the inverter get hot?")
    three = [f"a channel named {n}" for n in hot[:3]]
    head = f"The file has {', '.join(three[:-1])} and {three[-1]}, which Pitwall does not read yet"
    assert got.text.startswith(head), got.text
    assert "coolant" not in got.text.split(". ")[0].lower(), got.text

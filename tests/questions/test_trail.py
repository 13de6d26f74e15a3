"""Trail braking: the brake pressure still on at each corner's turn-in and where the brake came off, against
our own reading of the raw VBOX file (the pressure channel by GPS lap distance) and the simulator's
samples; a file without brake pressure says so, never the brake points read from the speed instead."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from services.paddock.questions import resolve
from services.paddock.questions.parse import parse
from shared.analysis.measures import Marks, trail
from shared.analysis.trace import LapTrace
from tests.support.asking import ask_planned
from tests.support.truth import vbox_truth
from tests.support.truth_corners import odometer

SONOMA = Path(__file__).resolve().parents[2] / "shared" / "profiles" / "tracks" / "sonoma.yaml"
NEAR_M = 10.0  # GPS lap distance against Pitwall's (a few metres apart; 10 Hz is 3-4 m a sample here)
TRAIL_BAR = 3.0  # the threshold table's trail_brake_bar: the brake is off below this above its rest


def _corner(cid: str) -> dict[str, Any]:
    track = yaml.safe_load(SONOMA.read_text(encoding="utf-8"))
    return next(x for x in track["corners"] if x["id"] == cid) | {"length_m": float(track["length_m"])}


def _raw(path: Path, cid: str) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per racing lap: (lap distance by GPS odometer scaled to the track's length, brake pressure) from the
    raw file, over the last 300 m before the corner's apex to its exit."""
    st = vbox_truth(path)
    c = _corner(cid)
    bar = st.channels["Brake Pressure (bar)"]
    out = {}
    for lp in st.racing:
        idx = np.flatnonzero(st.in_lap(lp))
        d = odometer(st.channels["Latitude"][idx], st.channels["Longitude"][idx])
        d *= c["length_m"] / d[-1]
        sel = (d >= c["apex_m"] - 300) & (d <= c["end_m"])
        out[lp.lap] = (d[sel], bar[idx[sel]])
    return out


def _own_release(d: np.ndarray, p: np.ndarray) -> float:
    """Where the brake came off: after the peak, the first sample at most TRAIL_BAR above the resting
    reading (the 10th percentile over the window)."""
    rest = float(np.percentile(p, 10))
    k = int(np.argmax(p))
    off = np.flatnonzero(p[k:] <= rest + TRAIL_BAR)
    return float(d[k + off[0]])


@pytest.mark.parametrize("cid", ["t4", "t7", "t11"])
def test_real_file_turn_in_pressure_and_release_match_the_raw_pressure(q_lake, cid: str) -> None:
    c = _corner(cid)
    raw = _raw(q_lake["vbox_path"], cid)
    got = ask_planned(q_lake["vbox"], f"was I trail braking into {cid.upper()}?")
    laps = {x["lap"]: x for x in got.result["corners"][0]["laps"]}
    both = sorted(set(raw) & set(laps))
    assert len(both) >= 6, both
    offs = []
    for n in both:
        d, p = raw[n]
        x = laps[n]
        near = p[np.abs(d - c["start_m"]) <= NEAR_M]
        if x["trailed"]:  # the pressure said at turn-in is one the raw channel read there
            assert near.min() - 1.0 <= x["turn_in_bar"] <= near.max() + 1.0, (n, x, near)
            assert (
                f"lap {n} braked {x['before_apex_m']:.0f} m before the apex, {x['turn_in_bar']:.0f} bar"
                in (got.text)
            )
        offs.append(c["apex_m"] - x["off_before_apex_m"] - _own_release(d, p))
    diff = np.abs(np.array(offs))
    assert diff.max() < 12 and float(np.median(diff)) < 5, offs


def test_trailed_means_the_brake_came_off_after_turn_in(q_lake) -> None:
    got = ask_planned(q_lake["vbox"], "was I trail braking into turn 10?")
    c = _corner("t10")
    laps = got.result["corners"][0]["laps"]
    assert {x["trailed"] for x in laps} == {True, False}  # this file has both at T10
    for x in laps:
        off_at = c["apex_m"] - x["off_before_apex_m"]
        assert x["trailed"] == (x["brake_m"] <= c["start_m"] < off_at), x
        said = re.search(rf"lap {x['lap']} braked [^;.]*", got.text)
        assert said is not None
        assert ("(before turn-in)" in said.group(0)) == (not x["trailed"])
    n = sum(x["trailed"] for x in laps)
    assert f"You trailed the brake past turn-in on {n} of {len(laps)} laps." in got.text


def test_every_corner_on_the_best_lap_against_the_simulators_samples(q_lake) -> None:
    """No corner named: each braked corner on the best lap, the pressure at turn-in the simulator's own
    pressure where the lap (by its speed integrated from the lap's start, scaled to the track's length) reached the corner's entry."""
    sim = q_lake["sim_obj"]
    got = ask_planned(q_lake["sim"], "how much trail braking did I do?")
    best = min((lp for lp in sim.truth.laps if lp["kind"] == "full"), key=lambda lp: lp["time_s"])
    assert got.text.startswith(
        f"On your best lap (lap {best['lap']}) you trailed the brake past turn-in into "
    )
    w = sim.wide
    sel = (w["t_s"] >= best["t_start_s"]) & (w["t_s"] < best["t_end_s"])
    t, v, p = w["t_s"][sel], w["speed_kmh"][sel] / 3.6, w["brake_bar"][sel]
    d = np.concatenate([[0.0], np.cumsum((v[1:] + v[:-1]) / 2 * np.diff(t))])
    d *= _corner("t1")["length_m"] / d[-1]  # the distance the speed gives, scaled to the track's length
    checked = 0
    for c in got.result["corners"]:
        x = next((y for y in c["laps"] if y["lap"] == best["lap"]), None)
        if x is None or not x["trailed"] or c["entry_m"] < 50:
            continue
        near = p[np.abs(d - c["entry_m"]) <= NEAR_M]
        assert near.min() - 1.0 <= x["turn_in_bar"] <= near.max() + 1.0, (c["corner"], x, near)
        checked += 1
    assert checked >= 5


def test_without_brake_pressure_trail_braking_is_not_recorded(q_lake) -> None:
    got = ask_planned(q_lake["no_brake"], "what % of the time was I trail braking?")
    assert got.text.startswith(
        "Trail braking is read from the brake pressure, but brake pressure is not recorded in this session's file."
    )
    assert " m before" not in got.text and got.result["recorded"] is False


@pytest.mark.parametrize(
    "text",
    [
        "was I trail braking into turn 3?",
        "am I trail-braking enough?",
        "do I trail the brakes into T4?",
        "how well did I trail off the brakes on lap 3?",
    ],
)
def test_trail_braking_is_its_own_reading(q_lake, text: str) -> None:
    q = parse(text, resolve.corner_names(q_lake["sim"]) or {})
    assert q.measure == "trail_brake", q


def test_a_brake_point_stays_the_brake_markers(q_lake) -> None:
    q = parse("where did I brake for turn 3?", resolve.corner_names(q_lake["sim"]) or {})
    assert q.measure == "brake_point"


def test_a_slow_logger_still_reads_the_pressure_at_turn_in() -> None:
    """At 1 Hz and 180 km/h the samples are 50 m apart: a turn-in with no sample within 20 m is read
    between the samples either side of it (it was NaN, and the answer's sentence could not be written)."""
    x = np.arange(-200.0, 2200.0, 50.0)
    brake = np.where((x >= 600) & (x < 800), 60.0, 0.0)  # on from 600 m to 750 m, off at 800 m
    tr = LapTrace(1, x, x / 50.0, {"brake_bar": brake, "speed_kmh": np.full(x.size, 180.0)}, x[0], x[-1])
    mk = Marks(start_m=725.0, apex_m=790.0, end_m=900.0, min_x=790.0, min_kmh=80.0, brake_m=600.0)
    at, off = trail(tr, mk, 3.0)
    assert at == 60.0 and off == 800.0
    late = replace(mk, start_m=780.0)  # between 750 m (60 bar) and 800 m (0 bar)
    assert trail(tr, late, 3.0)[0] == 24.0

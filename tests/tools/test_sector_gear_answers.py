"""Sector and gear questions, answered from the data and checked against our own calculation from the raw
file: sector times from our own crossings of the sector lines (the real VBOX at Sonoma, read by
``tests/support/truth.py``), the gear from the simulator's own trace at the corner's slowest point; and a
file without the channel (the VBOX's gear column is all 255, the kart has none) is said not to record it."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from services.paddock.tools.sectors import sector_times
from services.paddock.tools.sessions import get_session_highlights
from shared.profiles.track import load_track
from tests.support.asking import answer_of, plan_of
from tests.support.truth import gate_crossings, vbox_truth
from tests.support.truth_corners import sector_table

ORD = {1: "1st", 2: "2nd", 3: "3rd"}


def _text(q: str, sid: str) -> str:
    got = answer_of(q, sid)
    assert got is not None, q
    return got.text


@pytest.fixture(scope="module")
def vbox(lake_env: dict[str, Any]) -> Any:
    if lake_env["vbox_sid"] is None:
        pytest.fail("../shared/data/vbox/sonoma_vbox0240.csv is part of the workspace and missing")
    return vbox_truth(lake_env["data_dir"] / "vbox" / "sonoma_vbox0240.csv")


def test_sector_times_are_the_raw_files_crossings_of_the_sector_lines(lake_env, vbox) -> None:
    """Each sector between two corner entries, timed by our own crossing of the same two lines."""
    d = sector_times(lake_env["vbox_sid"])
    assert d["available"] and len(d["sectors"]) == len(d["gates"]) + 1 >= 10
    la, lo = vbox.channels["Latitude"], vbox.channels["Longitude"]
    checked = 0
    for lp in vbox.racing:
        if lp.lap not in d["laps"]:
            continue
        idx = np.flatnonzero(vbox.in_lap(lp))
        at = [
            gate_crossings(vbox.t[idx], la[idx], lo[idx], (g["lat"], g["lon"], g["heading_deg"]))
            for g in d["gates"]
        ]
        for k in range(1, len(d["gates"])):  # sector k + 1: from gate k - 1 to gate k
            if len(at[k - 1]) == 1 and len(at[k]) == 1:
                ours = at[k][0][0] - at[k - 1][0][0]
                assert abs(d["sectors"][k]["times_s"][lp.lap] - ours) < 0.03, (lp.lap, k + 1, ours)
                checked += 1
    assert checked >= 50
    # the best sectors added up are the session's theoretical best, one figure everywhere
    hl = get_session_highlights(lake_env["vbox_sid"])
    assert abs(sum(x["best_s"] for x in d["sectors"]) - hl["theoretical_best_s"]) < 0.005


def test_best_sector_lost_time_and_theoretical_best_answer_from_our_own_split(lake_env, vbox) -> None:
    """Our own sector lines (each corner's entry on the best lap's path, our own odometer) give the same
    best sector, the same lap and the same sector a lap lost the most in."""
    sid = lake_env["vbox_sid"]
    laps, tab = sector_table(vbox)
    col = tab[:, 1]
    text = _text("what was my best sector 2?", sid)
    m = re.search(r"best sector 2 \(.*?\) was ([\d.]+) s, on lap (\d+)", text)
    assert m and abs(float(m.group(1)) - col.min()) < 0.15, (text, col.min())
    second = np.sort(col)[1]
    if second - col.min() > 0.1:
        assert int(m.group(2)) == laps[int(np.argmin(col))], text
    lap = laps[len(laps) // 2]
    lost = tab[laps.index(lap)] - tab.min(axis=0)
    text = _text(f"which sector did I lose time in on lap {lap}?", sid)
    named = int(re.search(r"in sector (\d+)", text).group(1))
    if np.sort(lost)[-1] - np.sort(lost)[-2] > 0.1:
        assert named == int(np.argmax(lost)) + 1, (text, lost)
    text = _text("theoretical best from sectors", sid)
    mm, ss = re.search(
        r"theoretical best(?:, every piece's best time added up,)? (?:of|is) (\d+):(\d+\.\d+)", text
    ).groups()
    assert abs(int(mm) * 60 + float(ss) - tab.min(axis=0).sum()) < 0.3, text


def test_a_sector_or_a_lap_the_session_lacks_and_a_file_without_laps(lake_env) -> None:
    sid = lake_env["vbox_sid"]
    n = len(load_track("sonoma").corners) + 1
    text = _text("sector 40 time?", sid)
    assert text.startswith("There is no sector 40") and f"{n} sectors" in text, text
    assert _text("my sector times on lap 77", sid).startswith("There is no lap 77"), sid
    if lake_env["xrk_sid"]:  # one out lap: nothing to split
        text = _text("what was my best sector?", lake_env["xrk_sid"])
        assert text.startswith("There are no sector times") and not re.search(r"\d", text), text


def _slowest_gear(sim: Any, lap: dict[str, Any], corner: str) -> tuple[int, float]:
    """(gear, speed) at the corner's slowest point: our own distance (the simulator's speed integrated)."""
    c = next(x for x in load_track("sonoma").corners if x.short == corner)
    t, v = sim.wide["t_s"], sim.wide["speed_kmh"]
    m = np.flatnonzero((t >= lap["t_start_s"]) & (t <= lap["t_end_s"]))
    d = np.concatenate([[0.0], np.cumsum(np.diff(t[m]) * (v[m][1:] + v[m][:-1]) / 2 / 3.6)])
    inside = m[(d >= c.start_m) & (d <= c.end_m)]
    k = inside[int(np.argmin(v[inside]))]
    return int(round(sim.wide["gear"][k])), float(v[k])


def test_the_gear_at_a_corner_is_the_gear_at_its_slowest_point(lake_env) -> None:
    sim, sid = lake_env["sim"], lake_env["sid"]
    full = [x for x in sim.truth.laps if x["kind"] == "full"]
    for corner in ("T3", "T7", "T11"):
        lap = full[len(full) // 2]
        g, _ = _slowest_gear(sim, lap, corner)
        text = _text(f"which gear through {corner} on lap {lap['lap']}?", sid)
        assert re.search(rf"\b{ORD.get(g, f'{g}th')} gear\b", text), (text, g)
        gears = [_slowest_gear(sim, x, corner)[0] for x in full]
        typical = max(set(gears), key=gears.count)
        text = _text(f"what gear was I in at turn {corner[1:]}?", sid)
        assert re.search(rf"in {ORD.get(typical, f'{typical}th')} gear at the slowest point", text), (
            text,
            gears,
        )


@pytest.mark.parametrize(
    ("key", "q"),
    [("vbox_sid", "what gear was I in at turn 7?"), ("kart_sid", "which gear through T3 on lap 5?")],
)
def test_a_file_without_a_gear_channel_says_so(lake_env, key: str, q: str) -> None:
    if lake_env[key] is None:
        pytest.fail(f"{key}: the real file is part of the workspace and missing")
    plan = plan_of(q, lake_env[key], None)
    assert plan is not None and "Gear is not recorded" in plan["text"], plan
    assert not re.search(r"\b\d+(?:st|nd|rd|th)? gear\b|\bgear \d", plan["text"]), plan["text"]


def test_the_gears_used_are_the_simulators_own(lake_env) -> None:
    sim = lake_env["sim"]
    g, v = sim.wide["gear"], sim.wide["speed_kmh"]
    moving = np.round(g[(g > 0) & (v > 5)]).astype(int)
    most = int(np.bincount(moving).argmax())
    text = _text("which gear did I use most?", lake_env["sid"])
    assert f"top gear {ORD.get(moving.max(), f'{moving.max()}th')}" in text, text
    assert f"most of the time in {ORD.get(most, f'{most}th')}" in text, (text, np.bincount(moving))

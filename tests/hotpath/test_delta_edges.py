"""The drive screen's delta at a session's edges, on the real 10 Hz VBOX log replayed through the hot
path's frame path against a gold lap saved from its own import.

The log starts in the paddock and leaves the pit lane 24 m beside the racing line's crossing point, so it
holds a stub to the first crossing and an out-lap. The truth is independent of the lap code: the line
crossings of ``tests/support/own_delta.py`` and each one's offset across the line, measured here; a lap
is timed from the line only when it began at a crossing within 12 m of the racing line's (the median).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from shared.profiles.track import load_track
from tests.support.delta_replay import VBOX, gold_for, replay, source
from tests.support.own_delta import OwnLaps, own_laps


def _own(raw: dict[str, np.ndarray]) -> tuple[OwnLaps, list[bool]]:
    """Own crossings and, for each, whether it lies on the racing line (within 12 m of the median)."""
    sf = load_track("sonoma").start_finish
    mine = own_laps(raw["t_s"], raw["lat"], raw["lon"], (sf.lat, sf.lon, sf.heading_deg))
    h = math.radians(sf.heading_deg)
    across = []
    for c in mine.crossings:
        x, y = float(np.interp(c, mine.t, mine.x)), float(np.interp(c, mine.t, mine.y))
        across.append(-x * math.cos(h) + y * math.sin(h))
    mid = float(np.median(across))
    return mine, [abs(a - mid) <= 12.0 for a in across]


def test_no_delta_on_the_out_lap_and_last_lap_only_from_full_laps(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    if not VBOX.is_file():
        pytest.fail(f"{VBOX} is missing: the real VBOX log is part of the test data")
    tmp = str(tmp_path_factory.getbasetemp())
    wide, raw, _ = source("vbox-real", tmp)
    mine, on_line = _own(raw)
    assert on_line.count(False) == 1 and not on_line[0]  # the log's pit exit crosses the line beside it
    gold, _ = gold_for("vbox-real", tmp)
    _, events = replay(wide, gold)

    out_lap = (mine.crossings[0], mine.crossings[1])
    on_out = [ev for t, ev in events if out_lap[0] + 0.5 <= t < out_lap[1]]
    assert len(on_out) > 20  # the out-lap was followed (its lap time runs) ...
    assert all(ev["lap_kind"] == "out" for ev in on_out)
    # ... but never compared: the gold lap is there, the out-lap is no lap to compare with it
    assert all(ev["delta_s"] is None and ev["predicted_s"] is None for ev in on_out)
    assert all(ev["reference"]["source"] == "gold" for ev in on_out)

    full = [k for k in range(len(mine.crossings) - 1) if on_line[k] and on_line[k + 1]]
    assert len(full) == 8
    for k in full:
        on_lap = [ev for t, ev in events if mine.crossings[k] + 0.5 <= t < mine.crossings[k + 1] - 0.5]
        assert on_lap and all(ev["lap_kind"] == "full" and ev["delta_s"] is not None for ev in on_lap)

    # LAST LAP: exactly the full laps' times, each flashed once at its line; never the stub or the out-lap
    shown = sorted({ev["last_lap"]["time_s"] for _, ev in events if ev["last_lap"] is not None})
    assert shown == pytest.approx(sorted(mine.time(k) for k in full), abs=0.01)
    flashed = [(ev["last_lap"] or {}).get("time_s") for _, ev in events if ev["crossed"]]
    assert flashed == pytest.approx([mine.time(k) for k in full], abs=0.01)
    before_first_full = [ev for t, ev in events if t < mine.crossings[full[0] + 1]]
    assert before_first_full and all(ev["last_lap"] is None for ev in before_first_full)


def test_no_delta_once_the_in_lap_leaves_the_track_for_the_pit_lane(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The log's last lap cools down and turns into the pit lane. Independently of the lap code: the
    moment its fixes are over 20 m from every fix of the full laps (their driven path) at under 90 km/h.
    Until then it is a lap on the track, compared like any; from then on "in", never a number."""
    if not VBOX.is_file():
        pytest.fail(f"{VBOX} is missing: the real VBOX log is part of the test data")
    tmp = str(tmp_path_factory.getbasetemp())
    wide, raw, _ = source("vbox-real", tmp)
    mine, on_line = _own(raw)
    gold, _ = gold_for("vbox-real", tmp)
    _, events = replay(wide, gold)
    last = mine.crossings[-1]
    path = np.flatnonzero((mine.t > mine.crossings[1]) & (mine.t < last))  # the full laps' fixes
    px, py = mine.x[path][::3], mine.y[path][::3]
    speed = np.interp(mine.t, raw["t_s"], raw["speed_kmh"])
    pit_t = None
    for i in np.flatnonzero(mine.t > last + 5.0):
        if np.min(np.hypot(px - mine.x[i], py - mine.y[i])) > 20.0 and speed[i] < 90.0:
            pit_t = float(mine.t[i])
            break
    assert pit_t is not None and pit_t < float(raw["t_s"][-1]) - 10.0
    in_lap = [(t, ev) for t, ev in events if t > last + 0.5]
    # the hot path measures from the track's centreline, a few metres beside this driver's path: the car
    # drifts into the pit lane at about 1.5 m/s sideways, so 6 s of drift is the measures' difference
    before = [ev for t, ev in in_lap if t < pit_t - 6.0]
    after = [ev for t, ev in in_lap if t > pit_t + 1.0]
    assert len(before) > 40 and len(after) > 5
    assert all(ev["lap_kind"] == "full" and ev["delta_s"] is not None for ev in before)
    assert all(ev["lap_kind"] == "in" and ev["delta_s"] is None and ev["predicted_s"] is None for ev in after)

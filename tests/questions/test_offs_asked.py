"""Spins, offs and stops asked ("did I go off anywhere?", "did I spin?"): the real MyChron kart session,
where the raw file's GPS speed falls to walking pace inside one racing lap (truth: the Race Studio CSV
read by ``tests/support/truth.py``, the laps by the file's own beacons), and the simulator's, with none."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from services.paddock.questions.parse import parse
from shared.ingest import import_file
from shared.settings import settings_for
from shared.thresholds import DEFAULT_THRESHOLDS
from tests.support.asking import ask_planned
from tests.support.truth import aim_truth

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"


def test_the_kart_lap_that_stopped_is_the_one_named(shared_dir: Path, paddock_lake, tmp_path: Path) -> None:
    raw = aim_truth(shared_dir / KART, "kart")
    speed = raw.channels["GPS Speed"]
    stopped = [
        lp.lap for lp in raw.racing if float(np.min(speed[raw.in_lap(lp)])) < DEFAULT_THRESHOLDS["off_kmh"]
    ]
    assert len(stopped) == 1
    settings = settings_for(tmp_path / "data")
    sid = import_file(shared_dir / KART, settings, driver_id="kart").session_id
    with paddock_lake(settings):
        for text in ("did I go off anywhere?", "did I spin?", "any offs today?"):
            got = ask_planned(sid, text)
            assert [x["lap"] for x in got.result["offs"]] == stopped, text
            assert re.search(rf"^A spin, an off or a stop: lap {stopped[0]} at C\d+ ", got.text), got.text
    assert (
        parse("did I spin the rears out of T11?", ("t11",)).measure == "wheelspin"
    )  # the wheels, not the car


def test_no_off_is_said_as_none(q_lake) -> None:
    got = ask_planned(q_lake["sim"], "did I have an off?")
    assert got.result["offs"] == [] and got.text.startswith("No spin, off or stop at any corner on your ")

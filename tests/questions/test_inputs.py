"""Input smoothness asked ("was I smooth on the throttle?", "am I sawing at the wheel?"): the simulator's
steady session against the same session with the wheel sawn at 2 Hz (±8°, a correction every quarter
second), and the kart, whose file records none of the inputs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from services.paddock.questions.families.channels import not_recorded
from services.paddock.tools.base import session_row
from shared.ingest import import_file, import_sim
from shared.settings import settings_for
from tests.support.asking import ask_planned

KART = Path(__file__).resolve().parents[3] / "shared" / "data" / "aim" / "mychron_kart_sskc_2022-06-19.csv"


def _corrections(text: str) -> float:
    head = text.split("steering ", 1)[1]
    return float(head.split(" corrections a km", 1)[0])


def test_a_sawn_wheel_reads_as_many_more_corrections_and_not_smooth(
    q_lake, paddock_lake, tmp_path: Path
) -> None:
    sim: Any = q_lake["sim_obj"]
    steady = ask_planned(q_lake["sim"], "was I smooth on the throttle?")
    assert steady.tool == "get_input_smoothness" and steady.text.startswith(
        "Your inputs this session read as smooth:"
    )
    t = sim.wide["t_s"]
    sawn = replace(
        sim, wide={**sim.wide, "steer_deg": sim.wide["steer_deg"] + 8.0 * np.sin(2 * np.pi * 2.0 * t)}
    )
    settings = settings_for(tmp_path / "data")
    sid = import_sim(sawn, settings, driver_id="saw").session_id
    kart = import_file(KART, settings, driver_id="kart").session_id
    with paddock_lake(settings):
        got = ask_planned(sid, "am I sawing at the wheel?")
        assert got.tool == "get_input_smoothness"
        assert "read as smooth:" not in got.text
        # four changes of direction a second over the session's distance, far above the steady wheel's
        assert _corrections(got.text) > 10 * max(_corrections(steady.text), 1.0)
        header = next(x for x in KART.read_text(encoding="utf-8").splitlines() if x.startswith("Time,GPS"))
        assert not any(w in header.lower() for w in ("steer", "throttle", "brake", "tps"))  # the raw file
        none = ask_planned(kart, "are my inputs smooth?")
        assert none.text.startswith("No input smoothness for this session. Not recorded in this session:")
        for what in ("steering angle", "throttle position", "brake pressure"):
            assert what in none.text
        assert not_recorded(session_row(kart), "throttle").text.startswith("Throttle is not recorded")

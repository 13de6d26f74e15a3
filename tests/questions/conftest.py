"""A lake for the question families: the simulated session (ground truth known) as the driver's newest,
the real Sonoma VBOX session as their other one, another driver's copy of the simulated session, and
simulated sessions altered in a known way (understeer at T3, oversteer at T7; no steering channel)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from services.paddock.lake import configure_lake
from shared.ingest import import_file, import_sim
from shared.profiles.track import load_track
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.sim_dist import lap_distance

#: the yaw-rate scale put into the simulated session's corners: measured / kinematic yaw rate
BALANCE_SCALE = {"t3": 0.6, "t7": 1.5}


def _balance_sim(sim: Any) -> Any:
    """The simulated session (neutral by construction: its yaw rate is v times the path curvature and its
    steering the kinematic angle for it) with its yaw rate scaled inside two corners on every full lap."""
    lap, dist = lap_distance(sim)
    yaw = sim.wide["yaw_rate_dps"].copy()
    for c in load_track("sonoma").corners:
        if c.id in BALANCE_SCALE:
            inside = (lap >= 0) & (dist >= c.start_m - 15) & (dist <= c.end_m + 15)
            yaw[inside] *= BALANCE_SCALE[c.id]
    return replace(sim, wide={**sim.wide, "yaw_rate_dps": yaw})


@pytest.fixture(scope="session")
def q_lake(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("qlake") / "data"
    settings = settings_for(d)
    sim = cached_sim()
    vbox = shared_dir / "data" / "vbox" / "sonoma_vbox0240.csv"
    env: dict[str, Any] = {"sim": sim, "vbox_path": vbox}
    env["vbox"] = import_file(vbox, settings, driver_id="ana").session_id  # older: imported first
    env["sim"] = import_sim(sim, settings, driver_id="ana").session_id
    env["sim_obj"] = sim
    env["friend"] = import_sim(sim, settings, driver_id="bo").session_id
    env["balance"] = import_sim(_balance_sim(sim), settings, driver_id="bal").session_id
    no_steer = {k: v for k, v in sim.wide.items() if k != "steer_deg"}
    env["no_steer"] = import_sim(replace(sim, wide=no_steer), settings, driver_id="ns").session_id
    configure_lake(settings)
    return env

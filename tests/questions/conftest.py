"""A lake for the question families: the simulated session (ground truth known) as the driver's newest,
the real Sonoma VBOX session as their other one, another driver's copy of the simulated session and a friend's under the same name (from a bundle), and
simulated sessions altered in a known way (understeer at T3, oversteer at T7; no steering channel)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from services.paddock.lake import configure_lake
from shared.bundle_read import PROVENANCE
from shared.ingest import import_file, import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.sim_altered import balance_sim


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
    env["other_driver"] = import_sim(sim, settings, driver_id="bo").session_id
    # a friend's session imported from a bundle under the same driver name: never "mine"
    shared = replace(sim, meta={**sim.meta, PROVENANCE: {"from": "a friend"}})
    env["friend"] = import_sim(shared, settings, driver_id="ana").session_id
    env["balance"] = import_sim(balance_sim(sim), settings, driver_id="bal").session_id
    no_steer = {k: v for k, v in sim.wide.items() if k != "steer_deg"}
    env["no_steer"] = import_sim(replace(sim, wide=no_steer), settings, driver_id="ns").session_id
    configure_lake(settings)
    return env

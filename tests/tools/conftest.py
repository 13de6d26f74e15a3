from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from services.paddock.lake import configure_lake
from shared.ingest import import_file, import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim


@pytest.fixture(scope="session")
def lake_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A lake with a simulated session (ground truth known) and, when ../shared exists, the real VBOX session."""
    d = tmp_path_factory.mktemp("lake") / "data"
    settings = settings_for(d)
    sim = cached_sim()
    res = import_sim(sim, settings, driver_id="ana")
    env: dict[str, Any] = {"settings": settings, "sim": sim, "sid": res.session_id, "vbox_sid": None}
    # the simulated session as a logger without wheel speeds, ABS or DSC would record it (no quality
    # report, like a live session): what it lacks is known from the stored telemetry alone
    lacking = ("abs_active", "dsc_active", *(f"wheel_speed_{w}_kmh" for w in ("fl", "fr", "rl", "rr")))
    bare = replace(sim, wide={k: v for k, v in sim.wide.items() if k not in lacking})
    env["bare_sid"] = import_sim(bare, settings, driver_id="bare").session_id
    data = Path(__file__).resolve().parents[3] / "shared" / "data"
    for key, f in (
        ("vbox_sid", "vbox/sonoma_vbox0240.csv"),
        ("kart_sid", "aim/mychron_kart_sskc_2022-06-19.csv"),
        ("xrk_sid", "aim/scut_fsev_agx.xrk"),
    ):
        env.setdefault(key, None)
        if (data / f).is_file():
            env[key] = import_file(data / f, settings, driver_id=key.removesuffix("_sid")).session_id
    env["data_dir"] = data
    configure_lake(settings)
    return env

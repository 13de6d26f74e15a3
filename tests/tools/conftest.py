from __future__ import annotations

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
    vbox = Path(__file__).resolve().parents[3] / "shared" / "data" / "vbox" / "sonoma_vbox0240.csv"
    if vbox.is_file():
        env["vbox_sid"] = import_file(vbox, settings, driver_id="vbox").session_id
    configure_lake(settings)
    return env

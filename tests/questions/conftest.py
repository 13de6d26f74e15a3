"""A lake for the question families: the simulated session (ground truth known) as the driver's newest,
the real Sonoma VBOX session as their other one, another driver's copy of the simulated session and a friend's under the same name (from a bundle), and
simulated sessions altered in a known way (understeer at T3, oversteer at T7; no steering channel)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from services.paddock.lake import configure_lake
from shared.bundle_read import PROVENANCE
from shared.ingest import import_file, import_sim
from shared.netutil import free_port
from shared.profiles.car import load_car, user_cars_dir
from shared.settings import Settings, settings_for
from shared.simulator import simulate, write_aim_csv, write_ground_truth
from shared.simulator.fixtures import cached_sim
from tests.support.answer_run import missing_inputs, prepare
from tests.support.procs import REPO
from tests.support.qeval_run import EvalPaddock, serve
from tests.support.sim_altered import balance_sim
from tests.support.truth import SessionTruth, aim_truth, sim_truth, vbox_truth

PSI_BAR = 0.0689476


@pytest.fixture(scope="session")
def q_lake_built(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> dict[str, Any]:
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
    no_brake = {k: v for k, v in sim.wide.items() if k not in ("brake_bar", "g_long")}
    env["no_brake"] = import_sim(replace(sim, wide=no_brake), settings, driver_id="nb").session_id
    # the driver's own car profile (in the data directory) with a coolant limit of 90 °C
    mine = load_car(sim.meta["car_id"]).model_copy(
        update={"id": "my_m3", "thresholds": {"coolant_max_c": 90.0}}
    )
    cars = user_cars_dir(d)
    cars.mkdir(parents=True)
    (cars / "my_m3.yaml").write_text(
        yaml.safe_dump(mine.model_dump(exclude={"source_path"})), encoding="utf-8"
    )
    env["own_car"] = import_sim(replace(sim, car=mine), settings, driver_id="mc").session_id
    env["settings"] = settings
    return env


@pytest.fixture
def q_lake(q_lake_built: dict[str, Any]) -> dict[str, Any]:
    """The lake above, made the paddock's lake for each test (other modules point it at their own)."""
    configure_lake(q_lake_built["settings"])
    return q_lake_built


@contextmanager
def _lake_of(settings: Settings) -> Iterator[None]:
    """The paddock's lake is ``settings``' meanwhile; the one before (the other question tests') after."""
    from services.paddock import lake as lake_mod

    before = lake_mod._LAKE
    configure_lake(settings)
    try:
        yield
    finally:
        if lake_mod._LAKE is not None and lake_mod._LAKE is not before:
            lake_mod._LAKE.con.close()
        lake_mod._LAKE = before


@pytest.fixture(scope="session")
def paddock_lake() -> Callable[[Settings], AbstractContextManager[None]]:
    """``with paddock_lake(settings):`` a module's own lake is the paddock's, the one before given back."""
    return _lake_of


@pytest.fixture
def no_full_lap(tmp_path: Path) -> Iterator[str]:
    """The AiM XRK session with no complete lap (its one out lap), in a lake of its own."""
    xrk = REPO.parent / "shared" / "data" / "aim" / "scut_fsev_agx.xrk"
    if not xrk.is_file():
        pytest.fail(f"{xrk} is part of the workspace and missing")
    settings = settings_for(tmp_path / "data")
    sid = import_file(xrk, settings, driver_id="fs").session_id
    with _lake_of(settings):
        yield sid


DATA = REPO.parent / "shared" / "data"
FILES = {
    "vbox": DATA / "vbox" / "sonoma_vbox0240.csv",
    "kart": DATA / "aim" / "mychron_kart_sskc_2022-06-19.csv",
    "agx": DATA / "aim" / "scut_fsev_agx.xrk",
}


@pytest.fixture(scope="module")
def files_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The simulated session and the real VBOX, MyChron and AiM XRK files in a lake of their own, with our
    own truth of each file (``tests/support/truth.py``), made the paddock's lake for one test module."""
    settings = settings_for(tmp_path_factory.mktemp("channels") / "data")
    missing = [str(p) for p in FILES.values() if not p.is_file()]
    if missing:
        pytest.fail(f"{missing} are part of the workspace and missing")
    sim = cached_sim()
    env: dict[str, Any] = {"sim_obj": sim, "sim": import_sim(sim, settings, driver_id="ana").session_id}
    for name, path in FILES.items():
        env[name] = import_file(path, settings, driver_id="ana").session_id
    env["truth"] = {
        "vbox": vbox_truth(FILES["vbox"]),
        "kart": aim_truth(FILES["kart"], "kart"),
        "agx": aim_truth(FILES["agx"].with_suffix(".csv"), "agx"),
    }
    with _lake_of(settings):  # the other question tests' lake, given back after this module
        yield env


def _raw(env: dict[str, Any], sess: str, channel: str, lap: int | None, fn: str) -> float:
    """Our own figure of a raw channel: the simulator's samples, or the file's column (psi / °F converted)."""
    if sess == "sim":
        sim = env["sim_obj"]
        v = sim.wide[channel]
        if lap is not None:
            x = next(y for y in sim.truth.laps if y["lap"] == lap)
            v = v[(sim.wide["t_s"] >= x["t_start_s"]) & (sim.wide["t_s"] <= x["t_end_s"])]
    else:
        st: SessionTruth = env["truth"][sess]
        v = st.channels[channel] if lap is None else st.channels[channel][st.in_lap(st.lap(lap))]
    got = float({"max": np.nanmax, "min": np.nanmin, "avg": np.nanmean}[fn](v))
    return got * PSI_BAR if "psi" in channel else (got - 32.0) / 1.8 if "(F)" in channel else got


@pytest.fixture
def raw(files_lake: dict[str, Any]) -> Callable[[str, str, int | None, str], float]:
    """``raw(session, channel, lap or None, "max" | "min" | "avg")``: our own figure of a raw channel."""
    return partial(_raw, files_lake)


@pytest.fixture(scope="session")
def eval_paddock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EvalPaddock]:
    why = missing_inputs()
    if why:
        pytest.fail(why)  # ../shared/data is part of the workspace: its absence is an error, not a skip
    root = tmp_path_factory.mktemp("eval-sessions")
    prep = prepare(root)
    with serve(prep, f"http://127.0.0.1:{free_port()}/v1", root) as url:
        yield EvalPaddock(prep, url)


# the driver's sessions at Sonoma on four days (the simulator's AiM CSV with the file's own date and time
# changed): the last is the session asked about, so "today" is Sunday 22 November 2026 (never the clock's)
DATED = {
    "nov14": (21, "Saturday, November 14, 2026", "10:00 AM"),
    "nov21_am": (22, "Saturday, November 21, 2026", "9:00 AM"),
    "nov21_pm": (23, "Saturday, November 21, 2026", "2:00 PM"),
    "today": (24, "Sunday, November 22, 2026", "11:00 AM"),
}


@pytest.fixture(scope="module")
def dated_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Four sessions of one driver at Sonoma, each a real AiM CSV file dated by its header, imported with
    ``import_file``; each with the simulator's ground truth of its laps (``sim_truth``)."""
    root = tmp_path_factory.mktemp("dated")
    settings = settings_for(root / "data")
    env: dict[str, Any] = {"truth": {}}
    for name, (seed, day, clock) in DATED.items():
        sim = simulate(laps=4, seed=seed, rate_hz=20.0)
        csv, truth = write_aim_csv(sim, root / f"{name}.csv"), write_ground_truth(sim, root / f"{name}.json")
        text = csv.read_text(encoding="utf-8")
        text = text.replace('"Saturday, November 21, 2026"', f'"{day}"', 1).replace(
            '"10:00 AM"', f'"{clock}"', 1
        )
        csv.write_text(text, encoding="utf-8")
        env[name] = import_file(csv, settings, driver_id="dd").session_id
        env["truth"][name] = sim_truth(csv, truth)
    with _lake_of(settings):
        yield env

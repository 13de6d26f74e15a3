"""Replaying a source through the hot path's frame path and measuring its predictive delta against the
independent one in ``own_delta`` (tests/hotpath/test_delta_accuracy.py and bench/delta.py)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from services.hotpath import frame_path
from services.hotpath.frame_path import LiveSession
from services.hotpath.replay import frames_of, wide_from_file
from shared.ingest import import_file, import_sim
from shared.profiles.car import load_car
from shared.profiles.track import load_track
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from shared.simulator.writers import write_aim_csv, write_candump
from shared.store.gold import load_gold_lap, save_gold_lap
from shared.store.lake_layout import table_path
from tests.support.own_delta import OwnLaps, errors, own_laps

VBOX = Path(__file__).resolve().parents[3] / "shared" / "data" / "vbox" / "sonoma_vbox0240.csv"
SOURCES = ("sim-live", "sim-gps-held", "sim-aim-csv", "sim-candump", "vbox-real")
CAR = "bmw_e46_m3_aim_mxp"


class _Clock:
    """time.time() for the frame path during a replay: session time at 20x."""

    t_s = 0.0

    def time(self) -> float:
        return 1_800_000_000.0 + self.t_s / 20.0

    def perf_counter(self) -> float:
        return self.time()


def replay(
    wide: dict[str, np.ndarray], gold: tuple[Any, ...] | None = None, last_lap: bool = False
) -> tuple[Any, list[Any]]:
    clock = _Clock()
    saved = frame_path.time
    frame_path.time = clock  # type: ignore[assignment]
    try:
        sess = LiveSession("s", load_car(CAR), load_track("sonoma"), lambda t, r: None)
        events: list[tuple[float, dict[str, Any]]] = []
        sess.on_delta = lambda ev: events.append((float(sess.last_t or 0.0), ev))
        if gold is not None:
            sess.set_gold_reference(*gold)
        sess.last_lap_reference = last_lap
        for f in frames_of(wide):
            clock.t_s = f["t_s"]
            sess.process(f)
    finally:
        frame_path.time = saved  # type: ignore[assignment]
    return sess, events


@cache
def source(name: str, tmp: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], Path | None]:
    """(the wide the hot path is fed, the raw samples the own delta uses, the file it came from)."""
    sim = cached_sim(laps=4, seed=7)
    if name == "sim-live":
        return sim.wide, sim.wide, None
    if name == "sim-gps-held":  # as the CAN reader emits them: 50 Hz frames, the 20 Hz GPS fix held between
        w = dict(sim.wide)
        fix = np.floor(w["t_s"] * 20.0 + 1e-6)
        first = np.concatenate([[True], np.diff(fix) > 0])
        idx = np.maximum.accumulate(np.where(first, np.arange(len(fix)), 0))
        w["lat"], w["lon"] = w["lat"][idx], w["lon"][idx]
        return w, sim.wide, None
    if name == "vbox-real":
        w = wide_from_file(VBOX)
        return w, w, VBOX
    if name == "vbox-from-lap-3":  # the same log joined in lap 3: later laps improve on the best so far
        w = wide_from_file(VBOX)
        late = {k: v[w["t_s"] >= 300.0] for k, v in w.items()}
        return late, late, None
    path = Path(tmp) / ("sim.csv" if name == "sim-aim-csv" else "sim.log")
    (write_aim_csv if name == "sim-aim-csv" else write_candump)(sim, path)
    return wide_from_file(path, CAR if name == "sim-candump" else None), sim.wide, path


def _line() -> tuple[float, float, float]:
    sf = load_track("sonoma").start_finish
    return sf.lat, sf.lon, sf.heading_deg


def _own_lap(mine: OwnLaps, t_start: float) -> int | None:
    for k, c in enumerate(mine.crossings[:-1]):
        if abs(c - t_start) < 0.5:
            return k
    return None


@cache
def gold_for(name: str, tmp: str) -> tuple[tuple[Any, ...], float]:
    """The gold lap saved from this source's own import (its best lap): (set_gold_reference args, start)."""
    settings = settings_for(Path(tmp) / f"data-{name}")
    _, _, path = source(name, tmp)
    if path is None:
        res = import_sim(cached_sim(laps=4, seed=7), settings, driver_id="ana")  # the simulator's own samples
    else:
        car = CAR if name == "sim-candump" else None  # a CSV names its own channels
        res = import_file(path, settings, driver_id="ana", car_id=car, track_id="sonoma")
    laps = pq.read_table(table_path(settings.lake_dir, res.session_id, "laps")).to_pylist()
    assert sum(lp["is_best"] for lp in laps) == 1  # one best lap in the lake
    best = min((lp for lp in laps if lp["kind"] == "full" and lp["valid"]), key=lambda lp: lp["time_s"])
    assert best["is_best"]
    save_gold_lap(settings, "sonoma", "ana", res.session_id, int(best["lap"]))
    got = load_gold_lap(settings, "sonoma", "ana")
    assert got is not None
    trace, meta = got
    args = (meta["lap"], float(meta["time_s"]), trace["dist_m"].tolist(), trace["time_s"].tolist())
    return args, float(best["t_start_s"])


def measure(name: str, ref: str, tmp: str) -> tuple[list[float], list[float], Any]:
    wide, raw, _ = source(name, tmp)
    mine = own_laps(raw["t_s"], raw["lat"], raw["lon"], _line())
    gold = gold_for(name, tmp) if ref == "gold" else None
    sess, events = replay(wide, gold[0] if gold else None, ref == "last_lap")
    full = {
        k: lp
        for lp in sess.laps
        if lp.kind == "full" and lp.valid and (k := _own_lap(mine, lp.t_start_s)) is not None
    }
    gold_k = _own_lap(mine, gold[1]) if gold else None

    def ref_for(k: int) -> tuple[OwnLaps, int] | None:
        if k not in full and not any(abs(lp.t_start_s - mine.crossings[k]) < 0.5 for lp in sess.laps[1:]):
            return None  # not a lap the hot path timed from the line
        if gold_k is not None:
            return mine, gold_k
        before = [j for j in full if j < k]
        if ref == "last_lap":  # the previous completed valid lap
            return (mine, max(before)) if before else None
        return (mine, min(before, key=mine.time)) if before else None  # own best so far

    along, line = errors(events, mine, ref_for)
    sess.events = events  # type: ignore[attr-defined]
    return along, line, sess

"""The achievable lap on the real shared sessions and a simulated one, imported like any file: never
faster than the theoretical best nor slower than the best lap, and every join checked from the raw frames
with our own lap split, own gate crossing, own speed, heading and lateral offset (tests/support/truth.py
reads the files; nothing of Pitwall's resampling is used)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shared import achievable as ac
from shared.achievable import achievable_lap
from shared.achievable_trace import lake_session, stitched_trace
from shared.ingest import import_file
from shared.settings import Settings, settings_for
from shared.simulator.fixtures import cached_sim
from shared.simulator.writers import write_aim_csv, write_ground_truth
from tests.support.truth import SessionTruth, aim_truth, sim_truth, vbox_truth

FILES = {
    "vbox": "vbox/sonoma_vbox0240.csv",
    "kart": "aim/mychron_kart_sskc_2022-06-19.csv",
    "agx_xrk": "aim/scut_fsev_agx.xrk",
    "du_xrk": "aim/scut_fsev_du.xrk",
    "agx_csv": "aim/scut_fsev_agx.csv",
    "du_csv": "aim/scut_fsev_du.csv",
}
# the same quantity, our own code: speed and offset read at the same crossing agree to rounding; the
# heading chord is ours too (the path +-5 m of travel) but drawn through the raw fixes
SLACK = {"speed": 0.05, "heading": 0.3, "offset": 0.05}


@pytest.fixture(scope="module")
def sessions(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("achievable")
    settings = settings_for(root / "data")
    sim = cached_sim()
    sim_csv = write_aim_csv(sim, root / "sim.csv")
    truth_json = write_ground_truth(sim, root / "sim_truth.json")
    out: dict[str, Any] = {"settings": settings, "sid": {}}
    for name, rel in {**FILES, "sim": str(sim_csv)}.items():
        path = Path(rel) if name == "sim" else shared_dir / "data" / rel
        out["sid"][name] = import_file(path, settings, driver_id=name).session_id
    d = shared_dir / "data"
    out["truth"] = {
        "vbox": (vbox_truth(d / FILES["vbox"]), ("Latitude", "Longitude", "Speed (km/h)")),
        "kart": (aim_truth(d / FILES["kart"], "kart"), ("GPS Latitude", "GPS Longitude", "GPS Speed")),
        "sim": (sim_truth(sim_csv, truth_json), ("GPS Latitude", "GPS Longitude", "GPS Speed")),
    }
    return out


def _achievable(settings: Settings, sid: str) -> tuple[Any, dict[str, np.ndarray], list[dict[str, Any]]]:
    try:
        wide, laps, corners = lake_session(settings, sid, ("speed_kmh", "lat", "lon"))
    except FileNotFoundError:
        return None, {}, []
    return achievable_lap(wide, laps, corners), wide, laps


@pytest.mark.parametrize("name", [*FILES, "sim"])
def test_never_faster_than_the_theoretical_best_nor_slower_than_the_best_lap(sessions, name) -> None:
    a, wide, laps = _achievable(sessions["settings"], sessions["sid"][name])
    if name.endswith(("_xrk", "_csv")):  # these recordings hold no full lap (no beacon, no line crossed)
        assert a is None
        return
    assert a is not None
    valid = [lp for lp in laps if lp["kind"] == "full" and lp["valid"]]
    assert a.best_lap_s == min(lp["time_s"] for lp in valid)
    assert a.theoretical_s <= a.time_s <= a.best_lap_s
    assert {p.lap for p in a.pieces} <= {lp["lap"] for lp in valid}  # never an out, in or invalid lap
    assert a.gates_checked == len(a.stations_m) - 2  # GPS and speed at every gate
    tr = stitched_trace(wide, laps, a)
    assert tr["time_s"][0] == 0.0 and tr["time_s"][-1] == pytest.approx(a.time_s)
    assert (np.diff(tr["time_s"]) > 0).all()


def _own_state(st: SessionTruth, cols: tuple[str, str, str], lap: int, gate: tuple[float, float, float],
               frac: float) -> tuple[float, float, float, float]:  # fmt: skip
    """(time from our own line crossing, speed km/h, heading deg, offset m right of the gate's travel) of
    one lap where it crosses the gate line (the forward crossing nearest ``frac`` of the lap)."""
    lp = st.lap(lap)
    sel = np.flatnonzero(st.in_lap(lp))
    la, lo = st.channels[cols[0]][sel], st.channels[cols[1]][sel]
    v, t = st.channels[cols[2]][sel], st.t[sel]
    fresh = np.concatenate([[True], (np.diff(la) != 0) | (np.diff(lo) != 0)]) & np.isfinite(la)
    la, lo, tf = la[fresh], lo[fresh], t[fresh]
    glat, glon, hdg = gate
    k = 111_320.0
    x, y = (lo - glon) * k * math.cos(math.radians(glat)), (la - glat) * k
    ux, uy = math.sin(math.radians(hdg)), math.cos(math.radians(hdg))
    along, across = x * ux + y * uy, x * uy - y * ux
    path = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))])
    # metres driven by the speed at each fix: the fixes within 1.5 s of the crossing, moved back along
    # it by the speed, say where the line was crossed (their noise averages out)
    vm = np.nan_to_num(v) / 3.6
    odo = np.interp(tf, t, np.concatenate([[0.0], np.cumsum((vm[1:] + vm[:-1]) / 2 * np.diff(t))]))
    found = []
    for i in range(len(tf) - 1):
        if along[i] < 0 <= along[i + 1]:
            f = -along[i] / (along[i + 1] - along[i])
            off = across[i] + f * (across[i + 1] - across[i])
            tc = tf[i] + f * (tf[i + 1] - tf[i])
            w = np.abs(tf - tc) <= 1.5
            tc = min(
                tf[i + 1] + 0.1, max(tf[i] - 0.1, float(np.interp(np.mean(odo[w] - along[w]), odo[w], tf[w])))
            )
            if abs(off) <= 20:
                found.append(
                    (abs((tc - lp.t_start) / lp.time_s - frac), tc, off, float(np.interp(tc, tf, path)))
                )
    _, tc, off, s = min(found)
    dx = np.interp(s + 5, path, x) - np.interp(s - 5, path, x)
    dy = np.interp(s + 5, path, y) - np.interp(s - 5, path, y)
    return tc - lp.t_start, float(np.interp(tc, t, v)), math.degrees(math.atan2(dx, dy)), off


@pytest.mark.parametrize("name", ["vbox", "kart", "sim"])
def test_every_join_agrees_within_the_tolerances_in_the_raw_frames(sessions, name) -> None:
    a, _, _ = _achievable(sessions["settings"], sessions["sid"][name])
    st, cols = sessions["truth"][name]
    assert a is not None and a.joins, "a session of many laps joins somewhere"
    length = a.stations_m[-1]
    own_total, cut = 0.0, {}
    for j in a.joins:
        x = _own_state(st, cols, j.from_lap, j.gate, j.at_m / length)
        y = _own_state(st, cols, j.to_lap, j.gate, j.at_m / length)
        dv, dh, do = x[1] - y[1], (x[2] - y[2] + 180) % 360 - 180, x[3] - y[3]
        assert abs(dv) <= ac.SPEED_TOL_KMH + SLACK["speed"], (j, dv)
        assert abs(dh) <= ac.HEADING_TOL_DEG + SLACK["heading"], (j, dh)
        assert abs(do) <= ac.OFFSET_TOL_M + SLACK["offset"], (j, do)
        assert abs(dv - j.d_speed_kmh) <= SLACK["speed"] and abs(do - j.d_offset_m) <= SLACK["offset"]
        assert abs(dh - j.d_heading_deg) <= SLACK["heading"], (j, dh)
        cut[(j.from_lap, j.at_m)], cut[(j.to_lap, j.at_m)] = x[0], y[0]
    for p in a.pieces:  # the achievable time from our own crossings: each piece from its lap's
        t0 = cut[(p.lap, p.from_m)] if p.from_m > 0 else 0.0
        t1 = cut[(p.lap, p.to_m)] if p.to_m < length else st.lap(p.lap).time_s
        own_total += t1 - t0
    assert abs(own_total - a.time_s) < 0.05
    assert min(lp.time_s for lp in st.racing) >= a.time_s

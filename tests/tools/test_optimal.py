"""get_achievable_lap and get_corner_consistency on the real Sonoma VBOX session, the kart, an XRK file
without laps and the simulated session; figures checked against our own reading of the raw files."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

from services.paddock.tools.registry import run_tool
from shared import achievable as ac
from tests.support import require
from tests.support.require import missing
from tests.support.truth import SessionTruth, aim_truth, vbox_truth

LAP_TIME = re.compile(r"^\d+:\d{2}\.\d{3}$")


def _sid(env: dict[str, Any], key: str) -> str:
    if env.get(key) is None:
        missing(require.SHARED, f"../shared is not present ({key})")
    return str(env[key])


def _truth(env: dict[str, Any], key: str) -> tuple[SessionTruth, tuple[str, str, str]]:
    d = env["data_dir"]
    if key == "vbox_sid":
        return vbox_truth(d / "vbox/sonoma_vbox0240.csv"), ("Latitude", "Longitude", "Speed (km/h)")
    return (
        aim_truth(d / "aim/mychron_kart_sskc_2022-06-19.csv", "kart"),
        ("GPS Latitude", "GPS Longitude", "GPS Speed"),
    )


@pytest.mark.parametrize("key", ["vbox_sid", "kart_sid", "sid"])
def test_achievable_lap_between_the_theoretical_best_and_the_best_lap(lake_env, key) -> None:
    sid = _sid(lake_env, key)
    out = run_tool("get_achievable_lap", {"session_id": sid})
    assert out["available"] is True
    assert out["theoretical_best_s"] <= out["achievable_s"] <= out["best_lap_s"]
    for k in ("achievable", "best_lap_time", "theoretical_best"):
        assert LAP_TIME.match(out[k]), out[k]
    # the best lap against our own lap split of the raw file (the simulator's own truth for the sim)
    if key == "sid":
        own_best = min(
            lp["t_end_s"] - lp["t_start_s"] for lp in lake_env["sim"].truth.laps if lp["kind"] == "full"
        )
    else:
        own_best = min(lp.time_s for lp in _truth(lake_env, key)[0].racing)
    assert abs(out["best_lap_s"] - own_best) < 0.02
    seg = out["segments"]
    assert seg[0]["from_m"] == 0 and all(a["to_m"] == b["from_m"] for a, b in zip(seg, seg[1:], strict=False))
    assert abs(sum(s["time_s"] for s in seg) - out["achievable_s"]) < 0.002
    assert [j["at_m"] for j in out["joins"]] == [s["from_m"] for s in seg[1:]]
    for j in out["joins"]:
        assert abs(j["d_speed_kmh"]) <= ac.SPEED_TOL_KMH and abs(j["d_heading_deg"]) <= ac.HEADING_TOL_DEG
        assert abs(j["d_offset_m"]) <= ac.OFFSET_TOL_M and j["where"]
    assert out["tolerances"] == {"speed_kmh": 2.0, "heading_deg": 3.0, "lateral_offset_m": 1.0}
    # one theoretical best: the highlights say the same figures
    hl = run_tool("get_session_highlights", {"session_id": sid})
    assert (
        hl["theoretical_best_s"] == out["theoretical_best_s"]
        and hl["achievable_lap_s"] == out["achievable_s"]
    )
    assert hl["best_lap_s"] == out["best_lap_s"]


def test_a_recording_without_a_full_lap_has_no_achievable_lap(lake_env) -> None:
    sid = _sid(lake_env, "xrk_sid")
    out = run_tool("get_achievable_lap", {"session_id": sid})
    assert out["available"] is False and "no valid full lap" in out["reason"]
    assert "achievable_s" not in out
    cons = run_tool("get_corner_consistency", {"session_id": sid})
    assert cons["available"] is False and cons["corners"] == []
    assert run_tool("get_achievable_lap", {"session_id": "nope"})["error"]["code"] == "unknown_session"


def _own_min_speeds(
    st: SessionTruth, cols: tuple[str, str, str], start: float, end: float
) -> list[float] | None:
    """Each racing lap's slowest raw speed between ``start`` and ``end`` of our own haversine distance
    from our own line crossing; None when a lap's slowest point is at the zone's edge (distance drift
    between our odometer and Pitwall's would decide it there)."""
    out = []
    for lp in st.racing:
        sel = np.flatnonzero(st.in_lap(lp))
        la, lo = np.radians(st.channels[cols[0]][sel]), np.radians(st.channels[cols[1]][sel])
        h = np.sin(np.diff(la) / 2) ** 2 + np.cos(la[:-1]) * np.cos(la[1:]) * np.sin(np.diff(lo) / 2) ** 2
        d = np.concatenate([[0.0], np.cumsum(2 * 6_371_000 * np.arcsin(np.sqrt(h)))])
        inside = np.flatnonzero((d >= start) & (d <= end))
        v = st.channels[cols[2]][sel][inside]
        k = int(np.argmin(v))
        if k in (0, len(v) - 1) or k < 3 or k > len(v) - 4:
            return None
        out.append(float(v[k]))
    return out


@pytest.mark.parametrize("key", ["vbox_sid", "kart_sid"])
def test_corner_consistency_minimum_speed_spread_matches_the_raw_file(lake_env, key) -> None:
    sid = _sid(lake_env, key)
    st, cols = _truth(lake_env, key)
    out = run_tool("get_corner_consistency", {"session_id": sid})
    assert out["available"] and out["corners"]
    zones = run_tool(
        "query_pitwall_db",
        {"sql": f"SELECT corner_id, any_value(start_m) AS s, any_value(end_m) AS e FROM corner_results "
         f"WHERE session_id = '{sid}' GROUP BY 1"},
    )["rows"]  # fmt: skip
    zone = {z["corner_id"].upper(): (z["s"], z["e"]) for z in zones}
    checked = 0
    for c in out["corners"]:
        own = _own_min_speeds(st, cols, *zone[c["corner"]])
        if own is None:
            continue
        q1, q3 = np.percentile(own, [25, 75])
        got = c["min_speed"]
        assert c["laps"] == len(own)
        assert abs(got["median_kmh"] - float(np.median(own))) <= 0.3, (c["corner"], own)
        assert abs(got["iqr_kmh"] - float(q3 - q1)) <= 0.3, (c["corner"], own)
        assert abs(got["sd_kmh"] - float(np.std(own, ddof=1))) <= 0.3, (c["corner"], own)
        checked += 1
    assert checked >= len(out["corners"]) / 3  # the corners whose slowest point is inside the zone


def test_brake_point_source_is_named_and_spreads_are_of_the_stored_brake_points(lake_env) -> None:
    vbox = run_tool("get_corner_consistency", {"session_id": _sid(lake_env, "vbox_sid")})
    kart = run_tool("get_corner_consistency", {"session_id": _sid(lake_env, "kart_sid")})
    assert vbox["brake_point_source"].startswith("brake pressure") and vbox["not_recorded"] is None
    assert kart["brake_point_source"].startswith("longitudinal deceleration")  # a kart logs no pressure
    sid = lake_env["vbox_sid"]
    per = run_tool(
        "query_pitwall_db",
        {"sql": "SELECT c.corner_id, c.brake_point_m AS b FROM corner_results c JOIN laps l ON "
         f"l.session_id = c.session_id AND l.lap = c.lap WHERE c.session_id = '{sid}' AND l.kind = 'full' "
         "AND l.valid"},
    )["rows"]  # fmt: skip
    stored: dict[str, list[float]] = {}
    for p in per:
        stored.setdefault(p["corner_id"].upper(), []).extend([] if p["b"] is None else [float(p["b"])])
    for c in vbox["corners"]:
        b = stored[c["corner"]]
        if len(b) >= 3:
            q1, q3 = np.percentile(b, [25, 75])
            assert c["brake_point"]["iqr_m"] == pytest.approx(q3 - q1, abs=0.06)
            assert c["brake_point"]["sd_m"] == pytest.approx(float(np.std(b, ddof=1)), abs=0.06)
        elif not b:
            assert isinstance(c["brake_point"], str) and "no braking zone" in c["brake_point"]
        else:
            assert c["brake_point"]["iqr_m"] is None and "only" in c["brake_point"]["note"]


def test_one_corner_by_any_name_and_an_unknown_corner(lake_env) -> None:
    sid = _sid(lake_env, "vbox_sid")
    got = run_tool("get_corner_consistency", {"session_id": sid, "corner": "turn 7"})
    assert [c["corner"] for c in got["corners"]] == ["T7"]
    assert (
        run_tool("get_corner_consistency", {"session_id": sid, "corner": "T99"})["error"]["code"]
        == "unknown_corner"
    )
    assert math.isfinite(got["corners"][0]["min_speed"]["median_kmh"])


def test_the_tablet_overlay_draws_the_achievable_lap(lake_env) -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from services.paddock.routers.sessions import router

    app = FastAPI()
    app.include_router(router)
    c = TestClient(app)
    sid = _sid(lake_env, "vbox_sid")
    ach = run_tool("get_achievable_lap", {"session_id": sid})
    r = c.get(f"/sessions/{sid}/achievable/trace", params={"channels": "speed_kmh,lat,lon", "step_m": 10})
    assert r.status_code == 200, r.text
    tr = r.json()
    assert tr["time_s"][0] == 0.0 and abs(tr["time_s"][-1] - ach["achievable_s"]) < 0.002
    assert len(tr["dist_m"]) == len(tr["speed_kmh"]) == len(tr["lat"]) == len(tr["from_lap"])
    assert set(tr["from_lap"]) == {s["lap"] for s in ach["segments"]}
    assert all(a < b for a, b in zip(tr["time_s"], tr["time_s"][1:], strict=False))
    # each piece's speeds are its own lap's: the trace at a piece's middle against that lap's own trace
    for s in ach["segments"]:
        mid = (s["from_m"] + s["to_m"]) / 2
        i = min(range(len(tr["dist_m"])), key=lambda k: abs(tr["dist_m"][k] - mid))
        own = c.get(
            f"/sessions/{sid}/laps/{s['lap']}/trace", params={"channels": "speed_kmh", "step_m": 1}
        ).json()
        j = min(range(len(own["dist_m"])), key=lambda k: abs(own["dist_m"][k] - tr["dist_m"][i]))
        assert abs(tr["speed_kmh"][i] - own["speed_kmh"][j]) < 1.5, s
    assert c.get(f"/sessions/{sid}/achievable/trace", params={"channels": "nope"}).status_code == 422
    assert c.get("/sessions/nope/achievable/trace").status_code == 404
    xrk = c.get(f"/sessions/{_sid(lake_env, 'xrk_sid')}/achievable/trace")
    assert xrk.status_code == 404 and xrk.json()["detail"]["code"] == "no_valid_lap"

"""Missing is not zero: a tool says "not recorded" for a channel the session lacks, and a count of 0 only
when the channel was recorded and nothing happened. Real files: the Sonoma VBOX (no wheel speeds, ABS,
DSC, TPMS or yaw rate), the MyChron kart (no pedals, steering or oil pressure), a SCUT XRK (GPS and g
only); and the simulated session stored without wheel speeds, ABS and DSC (no quality report, like a
live session)."""

from __future__ import annotations

import csv
import json
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.digest import build_digest
from services.paddock.agents.narrative import template_narrative
from services.paddock.tools.base import rows
from services.paddock.tools.recorded import recorded
from services.paddock.tools.registry import run_tool
from shared.profiles.track import load_track
from tests.support.debrief import debrief_state

WHEEL_SPEEDS = [f"wheel_speed_{w}_kmh" for w in ("fl", "fr", "rl", "rr")]


def _sid(env: dict[str, Any], key: str) -> str:
    if env.get(key) is None:
        pytest.fail(f"../shared/data is missing: {key} needs it")
    return str(env[key])


def test_vbox_without_wheel_speeds_says_traction_not_recorded(lake_env) -> None:
    sid = _sid(lake_env, "vbox_sid")
    out = run_tool("get_traction_events", {"session_id": sid})
    assert out["recorded"] is False and out["count"] is None and out["events"] is None
    assert out["counts"] == {"lockup": None, "wheelspin": None}
    assert set(WHEEL_SPEEDS) <= set(out["missing"]) and "wheel speeds" in out["not_recorded"]
    saf = run_tool("get_safety_events", {"session_id": sid})
    assert "abs" not in saf["counts"] and "dsc" not in saf["counts"]
    assert {"abs_active", "dsc_active"} <= set(saf["missing"]) and "ABS activity" in saf["not_recorded"]
    # its brake-light switch reads off throughout while the pressure reaches 80 bar: unknown, not 0 presses
    assert saf["brake_presses"] is None
    hl = run_tool("get_session_highlights", {"session_id": sid})
    assert {"lockup", "wheelspin", "abs", "dsc"} <= set(hl["events_not_recorded"])
    assert not {"lockup", "abs"} & set(hl["events"])


def test_the_debrief_of_the_vbox_session_says_not_recorded(lake_env) -> None:
    state = debrief_state(_sid(lake_env, "vbox_sid"))
    digest = build_digest("debrief", state)
    assert "Traction: lockups and wheelspin not recorded" in digest
    assert "no lockups" not in digest and "no ABS" not in digest
    assert "Safety: not recorded: ABS activity, DSC activity" in digest
    assert "Tyres: pressures not recorded" in digest
    text, _ = template_narrative("debrief", state)
    assert "Lockups and wheelspin were not recorded" in text and "ABS activity" in text


def test_a_live_like_session_without_wheel_speeds_says_not_recorded(lake_env) -> None:
    sid = lake_env["bare_sid"]
    assert not rows("SELECT 1 FROM session_quality WHERE session_id = ?", [sid])  # no report to read
    out = run_tool("get_traction_events", {"session_id": sid})
    assert out["count"] is None and set(out["missing"]) == set(WHEEL_SPEEDS)
    saf = run_tool("get_safety_events", {"session_id": sid})
    assert "abs" not in saf["counts"] and saf["counts"]["mil"] == 0  # MIL was recorded and stayed off
    # the same simulated session with its channels: recorded, with the lockups the simulator put in
    full = run_tool("get_traction_events", {"session_id": lake_env["sid"]})
    truth = [e for e in lake_env["sim"].truth.events if e["kind"] == "lockup"]
    assert full["recorded"] is True and full["counts"]["lockup"] >= len(truth) > 0
    assert full["counts"]["wheelspin"] is not None


def test_the_quality_report_rules_out_what_it_says_is_missing(lake_env) -> None:
    """A measure the import's report says cannot be stated is not recorded, whatever the arrays hold."""
    sid = _sid(lake_env, "vbox_sid")
    fake = {c: np.ones(10) for c in (*WHEEL_SPEEDS, "brake_bar")}
    rec = recorded(sid, fake, ("wheel_speeds", "brake_pressure"))
    assert (
        not rec.has("wheel_speeds")
        and "lockups and wheelspin cannot be stated" in rec.lacking["wheel_speeds"]
    )
    assert rec.has("brake_pressure")


def test_kart_without_pedals_or_oil_pressure(lake_env) -> None:
    sid = _sid(lake_env, "kart_sid")
    eng = run_tool("get_engine_health_timeline", {"session_id": sid})
    assert eng["oil_pressure_low_laps"] is None and eng["oil_pressure_under_load_recorded"] is False
    assert eng["coolant_hot_laps"] == [] and eng["coolant_recorded"] is True  # recorded, never hot
    # a kart has no oil pressure: never named as not recorded (test_kart_debrief_names_no_system_a_kart_lacks)
    assert "oil_pressure" in eng["not_fitted"] and "oil pressure" not in eng["not_recorded"]
    inp = run_tool("get_input_smoothness", {"session_id": sid})
    assert inp["score"] is None and inp["verdict"] == "not recorded"  # not a perfect 100
    assert {"steer_deg", "throttle_pct", "brake_bar"} <= set(inp["missing"])
    laps = [x["lap"] for x in rows("SELECT lap FROM laps WHERE session_id = ? AND valid ORDER BY lap", [sid])]
    d = run_tool("get_lap_delta", {"session_id": sid, "lap_a": laps[0], "lap_b": laps[1]})
    assert d["coast_pct_a"] is None and d["coast_pct_b"] is None  # no pedals: coasting is unknown
    assert "throttle position" in d["not_recorded"]
    digest = build_digest("debrief", debrief_state(sid))
    assert "Engine: coolant max 81.3 C." in digest  # recorded, never hot; no oil pressure on a kart
    assert "Inputs: steering, throttle and brake not recorded." in digest


def test_xrk_with_gps_and_g_only(lake_env) -> None:
    sid = _sid(lake_env, "xrk_sid")
    bal = run_tool("get_handling_balance", {"session_id": sid})
    # the file has steering ("Ave Steer") and a yaw gyro ("GYRO Z"), mapped by name: recorded, too few corners
    assert bal["recorded"] is True and bal["missing"] == [] and bal["available"] is False
    setup = run_tool("get_setup_indicators", {"session_id": sid})
    assert not setup["balance_verdict"].startswith("not recorded")
    # the file says 'L MOTOR SPEED' is its "Engine RPM" (rpm): the motor's speed, 1,973 rpm at most in the file
    assert setup["max_rpm"] is not None and 1900 <= setup["max_rpm"] <= 1973
    inc = run_tool("get_incident_moments", {"session_id": sid})
    assert {"lockup", "abs"} <= set(inc["kinds_not_recorded"]) and "steer_spike" not in inc[
        "kinds_not_recorded"
    ]
    assert "combo_g" not in inc["kinds_not_recorded"]  # both g axes recorded: a combined-g count stands
    tyres = run_tool("get_tire_thermal_window", {"session_id": sid})
    assert tyres["available"] is False and tyres["recorded"] is False
    digest = build_digest("debrief", debrief_state(sid))
    assert "Engine: coolant temperature not recorded." in digest  # electric: no engine oil (test_not_fitted)
    assert "no warnings" not in digest


def test_every_tool_runs_on_the_sparse_files_without_a_zero_for_a_missing_channel(lake_env) -> None:
    for key in ("vbox_sid", "kart_sid", "xrk_sid", "bare_sid"):
        sid = _sid(lake_env, key)
        for name in (
            "get_traction_events",
            "get_safety_events",
            "get_engine_health_timeline",
            "get_tire_thermal_window",
            "get_handling_balance",
            "get_input_smoothness",
            "get_setup_indicators",
            "get_incident_moments",
        ):
            out = run_tool(name, {"session_id": sid})
            assert "error" not in out, (key, name, out)
            # whatever it lacks is named, and nothing it lacks is reported as recorded
            if out["missing"]:
                assert out["not_recorded"] or out["recorded"] or out["not_fitted"], (key, name, out)
            json.dumps(out)


def _trace_min(d: np.ndarray, v: np.ndarray, lo: float, hi: float) -> float:
    """The minimum of the linearly interpolated trace ``v(d)`` over ``[lo, hi]``, its ends included."""
    inside = v[(d >= lo) & (d <= hi)]
    ends = np.interp([lo, hi], d, v)
    return float(min(inside.min(initial=np.inf), ends.min()))


def test_corner_min_speed_is_the_best_laps_and_never_above_entry_or_exit(lake_env) -> None:
    sid = _sid(lake_env, "vbox_sid")
    bad = rows(
        """SELECT corner_id, lap, entry_kmh, min_kmh, exit_kmh FROM corner_results WHERE session_id = ?
           AND (min_kmh > entry_kmh + 1e-9 OR min_kmh > exit_kmh + 1e-9)""",
        [sid],
    )
    assert bad == []
    best = rows(
        "SELECT lap FROM laps WHERE session_id = ? AND kind = 'full' AND valid ORDER BY time_s LIMIT 1", [sid]
    )[0]["lap"]
    tel = rows(
        "SELECT dist_m, speed_kmh FROM telemetry WHERE session_id = ? AND lap = ? ORDER BY t_s", [sid, best]
    )
    d = np.array([x["dist_m"] for x in tel], dtype=float)
    v = np.array([x["speed_kmh"] for x in tel], dtype=float)
    ok = np.isfinite(v)
    d = d[ok] + np.arange(int(ok.sum())) * 1e-6
    v = v[ok]
    differs = 0
    for c in load_track("sonoma").corners:
        h = run_tool("get_corner_history", {"session_id": sid, "corner_name": c.short})
        this = next(x for x in h["sessions"] if x["session_id"] == sid)
        want = _trace_min(d, v, c.start_m, c.end_m)
        assert this["best_lap"] == best
        assert this["min_speed_kmh"] == this["best_lap_min_speed_kmh"]
        assert abs(this["best_lap_min_speed_kmh"] - want) < 0.06, (c.id, this, want)
        differs += abs(this["min_speed_median_kmh"] - want) > 0.5
    assert differs  # the session's median is a different figure: the best lap's is the one given


@pytest.mark.parametrize("name", ["T3a", "T3A", "t3a", "turn 3a", "Turn 3A"])
def test_corner_names_in_any_case(lake_env, name: str) -> None:
    h = run_tool("get_corner_history", {"session_id": lake_env["sid"], "corner_name": name})
    assert "error" not in h and h["corner"].lower() == "t3a" and h["sessions"]


def test_vbox_smoothness_says_its_steering_is_half_the_session(lake_env, shared_dir) -> None:
    """The VBOX steering channel is -1024 ("no reading") in about half its samples: the smoothness score
    says it is built on part of the session, with the share counted here from the file itself."""

    with (shared_dir / "data/vbox/sonoma_vbox0240.csv").open(encoding="utf-8-sig") as fh:
        rows_ = list(csv.reader(fh))
    col = rows_[0].index("Steering Angle (Degrees)")
    vals = [float(r[col]) for r in rows_[1:] if len(r) > col and r[col].strip()]
    own = 100.0 * sum(v != -1024.0 for v in vals) / len(vals)
    sid = _sid(lake_env, "vbox_sid")
    inp = run_tool("get_input_smoothness", {"session_id": sid})
    sentence = f"Recorded on only part of this session: steering angle ({own:.0f} %)."
    assert inp["score"] is not None and inp["partly_recorded"] == sentence
    assert sentence in build_digest("debrief", debrief_state(sid))
    kart = run_tool("get_input_smoothness", {"session_id": _sid(lake_env, "kart_sid")})
    assert kart["partly_recorded"] is None  # no steering at all: not recorded, not partial

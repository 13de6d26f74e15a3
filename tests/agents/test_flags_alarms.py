"""Flags and alarms are timed events (shared/event_detect.py, shared/alarms.py): a simulated session written
as an AiM CSV with an ABS flag, a traction-control flag and a water-temperature alarm channel injected at
known samples, imported through the real pipeline. Each event's start, end, lap and corner is checked
against windows computed here from the injected arrays and the simulator's own laps and corners; a
lockup while the ABS regulates is no lockup; "did I get any warnings or alarms?" is answered through the
paddock's no-model answer path (``plan_for``). The real MyChron kart CSV and the two XRK files have no
alarm channel: the answer says so instead of "none"."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from services.paddock.agents.coaching_lines import threads_text
from services.paddock.agents.digest import build_digest
from services.paddock.lake import configure_lake
from services.paddock.tools.registry import run_tool
from shared.alarms import alarm_signals, is_alarm_channel
from shared.importers import read_log
from shared.ingest import import_file
from shared.settings import settings_for
from shared.simulator import simulate
from shared.simulator.writers import write_aim_csv
from tests.support.asking import plan_of

KART = Path(__file__).resolve().parents[3] / "shared" / "data" / "aim" / "mychron_kart_sskc_2022-06-19.csv"
RATE = 20.0
ASK = "did I get any warnings or alarms?"


def _lap_of(sim: Any, t: float) -> int:
    """The simulator's own lap at time ``t`` (its truth lap table)."""
    return next(int(lp["lap"]) for lp in sim.truth.laps if lp["t_start_s"] <= t < lp["t_end_s"])


def _mid_corner(sim: Any, lap: int, k: int) -> tuple[int, str]:
    """The sample at the middle of the ``k``-th corner of ``lap``: lap distance here is the simulator's
    speed integrated from the start of its truth lap."""
    c = sim.track.corners[k]
    lp = next(x for x in sim.truth.laps if x["lap"] == lap)
    t, v = sim.wide["t_s"], sim.wide["speed_kmh"] / 3.6
    on = np.where((t >= lp["t_start_s"]) & (t < lp["t_end_s"]))[0]
    d = np.concatenate([[0.0], np.cumsum((v[on][1:] + v[on][:-1]) / 2 * np.diff(t[on]))])
    i = int(on[np.argmin(np.abs(d - (c.start_m + c.end_m) / 2))])
    return i, c.id


def _window(t: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    on = np.where(mask)[0]
    assert len(on) and np.all(np.diff(on) == 1)  # one contiguous window
    return round(float(t[on[0]]), 2), round(float(t[on[-1]]), 2)


@pytest.fixture(scope="module")
def flagged_built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("flags")
    sim = simulate(laps=6, seed=11, rate_hz=RATE, kinds=("lockup",))
    w, t = sim.wide, sim.wide["t_s"]
    locks = [e for e in sim.truth.events if e["kind"] == "lockup"]
    assert len(locks) >= 2
    n = len(t)
    abs_on, dsc_on, alarm, warn = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    # ABS over the first lockup (0.5 s either side): the wheel the ABS holds is its work, not a lockup
    held = locks[0]
    abs_on[(t >= held["t_start_s"] - 0.5) & (t <= held["t_end_s"] + 0.5)] = 1.0
    # DSC for 1.5 s from the middle of the 5th corner on lap 2
    i, dsc_corner = _mid_corner(sim, 2, 4)
    dsc_on[i : i + int(1.5 * RATE)] = 1.0
    # the water-temperature alarm on for 90 s from the middle of the 8th corner on lap 3 (into lap 4)
    j, alarm_corner = _mid_corner(sim, 3, 7)
    alarm[j : j + int(90 * RATE)] = 1.0
    # the front-left TPMS alarm for 20 s (401 samples) from the middle of the last corner of lap 5, over
    # the line: a channel the car profile maps to a TPMS column is the detector's own, not a logger alarm
    tpms = np.zeros(n)
    k, tpms_corner = _mid_corner(sim, 5, len(sim.track.corners) - 1)
    tpms[k : k + 401] = 1.0
    w["abs_active"], w["dsc_active"], w["tpms_alarm_fl"] = abs_on, dsc_on, tpms
    csv = write_aim_csv(
        sim, tmp / "flags.csv", {"Water Temp Alarm": (" ", alarm), "OilPressWarn": (" ", warn)}
    )
    settings = settings_for(tmp / "data")
    sid = import_file(csv, settings, driver_id="ana", track_id="sonoma").session_id
    # the next session (same driver, track and car): the water alarm recorded but never set, the TPMS
    # alarm again for 2.0 s from the middle of the 3rd corner on lap 2
    again = np.zeros(n)
    m, _ = _mid_corner(sim, 2, 2)
    again[m : m + 41] = 1.0
    nxt = replace(
        sim, wide={**w, "tpms_alarm_fl": again, "abs_active": np.zeros(n), "dsc_active": np.zeros(n)}
    )
    csv2 = write_aim_csv(
        nxt, tmp / "next.csv", {"Water Temp Alarm": (" ", warn), "OilPressWarn": (" ", warn)}
    )
    sid2 = import_file(csv2, settings, driver_id="ana", track_id="sonoma").session_id
    kart = import_file(KART, settings, driver_id="kart").session_id if KART.is_file() else None
    yield {
        "settings": settings,
        "sim": sim,
        "sid": sid,
        "next": sid2,
        "kart": kart,
        "abs": (_window(t, abs_on > 0), _lap_of(sim, float(t[abs_on > 0][0])), held["corner_id"]),
        "dsc": (_window(t, dsc_on > 0), 2, dsc_corner),
        "alarm": (_window(t, alarm > 0), 3, _lap_of(sim, float(t[alarm > 0][-1])), alarm_corner),
        "tpms_alarm": (_window(t, tpms > 0), 5, _lap_of(sim, float(t[tpms > 0][-1])), tpms_corner),
        "held": held,
        "free": locks[1:],
    }


@pytest.fixture
def flagged(flagged_built: dict[str, Any]) -> dict[str, Any]:
    """The sessions above, their lake made the paddock's for each test (another module's test may have
    pointed it at its own in between, as a parallel run's worker does)."""
    configure_lake(flagged_built["settings"])
    return flagged_built


def test_flags_and_alarm_are_timed_events_on_their_lap_and_corner(flagged: dict[str, Any]) -> None:
    got = run_tool("get_flags_and_alarms", {"session_id": flagged["sid"]})
    by = {e["kind"]: e for e in got["events"]}
    assert sorted(e["kind"] for e in got["events"]) == ["abs", "alarm", "dsc", "tpms_alarm"]
    assert by["tpms_alarm"]["what"] == "front-left tyre pressure alarm" and by["tpms_alarm"]["wheel"] == "fl"
    (start, end), lap, end_lap, corner = flagged["tpms_alarm"]
    e = by["tpms_alarm"]
    assert end_lap == 6  # over the line, as built
    assert (e["start_s"], e["end_s"], e["lap"], e["end_lap"], e["corner"]) == (start, end, 5, 6, corner)
    for kind in ("abs", "dsc"):
        (start, end), lap, corner = flagged[kind]
        e = by[kind]
        assert (e["start_s"], e["end_s"], e["lap"], e["end_lap"], e["corner"]) == (
            start,
            end,
            lap,
            lap,
            corner,
        )
        assert e["duration_s"] == round(end - start, 2)
    (start, end), lap, end_lap, corner = flagged["alarm"]
    e = by["alarm"]
    assert end_lap == lap + 1  # the window crosses the line, as built
    assert (e["what"], e["start_s"], e["end_s"], e["lap"], e["end_lap"], e["corner"]) == (
        "water temp alarm",
        start,
        end,
        lap,
        end_lap,
        corner,
    )
    assert e["duration_s"] == pytest.approx(89.95, abs=0.01)  # 1800 samples at 20 Hz: last minus first
    # both alarm channels are recorded (the one never set too), and the car's flags
    assert got["alarm_channels"] == ["oil press warn", "water temp alarm"]
    assert got["sources_missing"] == [] and "ABS" in got["sources"]


def test_a_lockup_while_the_abs_regulates_is_not_a_lockup(flagged: dict[str, Any]) -> None:
    held, sid = flagged["held"], flagged["sid"]
    trac = run_tool("get_traction_events", {"session_id": sid})
    locks = [e for e in trac["events"] if e["kind"] == "lockup"]
    (start, end), _, _ = flagged["abs"]
    assert not [e for e in locks if start <= e["t_s"] <= end]  # the ABS window holds none
    for e in flagged["free"]:  # the lockups without ABS are still lockups, where they happened
        assert any(
            (x["wheel"], x["lap"], x["corner"]) == (e["wheel"], e["lap"], e["corner_id"]) for x in locks
        ), e
    assert trac["counts"]["lockup"] == len(locks) >= len(flagged["free"])
    stored = run_tool(
        "query_pitwall_db",
        {"sql": f"SELECT t_s FROM driver_events WHERE session_id = '{sid}' AND kind = 'lockup'"},
    )
    assert not [r for r in stored["rows"] if start <= r["t_s"] <= end]
    assert held["lap"] == flagged["abs"][1]


def test_the_warnings_question_names_the_alarm_lap_corner_and_time(flagged: dict[str, Any]) -> None:
    (start, end), lap, end_lap, corner = flagged["alarm"]
    plan = plan_of(ASK, flagged["sid"], None)
    assert plan is not None and plan["tool"] == "get_flags_and_alarms"
    dur = f"{end - start:.0f}"
    (t0, t1), tlap, tend, tcorner = flagged["tpms_alarm"]
    assert plan["text"] == (
        f"Yes, 2 warnings: the water temp alarm was on for {dur} s on laps {lap}–{end_lap}, "
        f"from {corner.upper()}; the front-left tyre pressure alarm was on for {t1 - t0:.0f} s on laps "
        f"{tlap}–{tend}, from {tcorner.upper()}."
    )
    # one lap: what was on during it (the alarm that ran into lap 4 counts there)
    on4 = plan_of(f"any alarms on lap {end_lap}?", flagged["sid"], None)
    assert on4 is not None and on4["text"].startswith(f"Yes, 1 warning on lap {end_lap}: the water temp")
    # the ABS is an intervention, answered as such (not as "warnings")
    (_, _), alap, acorner = flagged["abs"]
    on_abs = plan_of("did the ABS warn me?", flagged["sid"], None)
    assert on_abs is not None and on_abs["tool"] == "get_safety_events"
    assert on_abs["text"] == f"Yes, 1 ABS intervention: at {acorner.upper()} on lap {alap}."
    # on a lap without it: none was set, and what was recorded
    other = plan_of("any warning lights on lap 1?", flagged["sid"], None)
    assert other is not None and other["text"].startswith("No: none was set on lap 1. Recorded: ")
    assert "water temp alarm" in other["text"] and "oil press warn" in other["text"]


def test_the_debrief_digest_carries_the_alarm(flagged: dict[str, Any]) -> None:
    (start, end), lap, end_lap, corner = flagged["alarm"]
    saf = run_tool("get_safety_events", {"session_id": flagged["sid"]})
    assert saf["counts"] == {"abs": 1, "dsc": 1, "mil": 0, "tpms_alarm": 1, "alarm": 1}
    d = build_digest("debrief", {"safety_data": saf})
    (t0, t1), tlap, tend, tcorner = flagged["tpms_alarm"]
    line = (
        f"Warnings: the water temp alarm was on for {end - start:.0f} s on laps {lap}–{end_lap}, from "
        f"{corner.upper()}; the front-left tyre pressure alarm was on for {t1 - t0:.0f} s on laps {tlap}–{tend}, "
        f"from {tcorner.upper()}."
    )
    assert line in d.splitlines()


def test_a_file_without_an_alarm_channel_says_so(flagged: dict[str, Any]) -> None:
    if flagged["kart"] is None:
        pytest.fail(f"{KART} is missing: the real kart log is part of the test data")
    got = run_tool("get_flags_and_alarms", {"session_id": flagged["kart"]})
    assert got["events"] == [] and got["alarm_channels"] == [] and got["sources"] == []
    plan = plan_of(ASK, flagged["kart"], None)
    assert plan is not None and plan["text"].startswith("No alarm or warning channel was recorded")


@pytest.mark.parametrize("name", ["scut_fsev_agx.xrk", "scut_fsev_du.xrk"])
def test_the_real_xrk_files_carry_no_alarm_channel(name: str) -> None:
    """Their error and state flags (``EBS Error Flag``, ``GC Lost Flag``) are not named as alarms or
    warnings: none is read as one, and their import stores no alarm event."""
    path = KART.parent / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: the real XRK logs are part of the test data")
    raw = read_log(path)
    assert "EBS Error Flag" in raw.channels and "GC Lost Flag" in raw.channels
    assert [n for n, c in raw.channels.items() if is_alarm_channel(n, c.unit, c.values)] == []
    assert alarm_signals(raw, np.array([0.0, 1.0])) == {}


def test_the_next_session_follows_the_warnings_of_the_last(flagged: dict[str, Any]) -> None:
    """A thread per warning set last time: the water alarm recorded and never set now, the TPMS alarm set
    again (on lap 2, as injected)."""
    _, lap, end_lap, _ = flagged["alarm"]
    _, tlap, tend, _ = flagged["tpms_alarm"]
    got = run_tool("get_threads", {"session_id": flagged["next"]})
    assert got["previous_session_id"] == flagged["sid"]
    assert got["warnings"] == [
        {
            "what": "water temp alarm",
            "status": "not this time",
            "laps_before": [lap, end_lap],
            "laps_now": [],
        },
        {
            "what": "front-left tyre pressure alarm",
            "status": "again",
            "laps_before": [tlap, tend],
            "laps_now": [2],
        },
    ]
    plan = plan_of("what happened to my threads from last time?", flagged["next"], "threads")
    assert plan is not None and plan["tool"] == "get_threads"
    text = threads_text(got)
    assert plan["text"] == text
    assert (
        f"From last session: the water temp alarm (lap {lap}, lap {end_lap}) did not come on this time."
        in text
    )
    assert f"the front-left tyre pressure alarm (lap {tlap}, lap {tend}) came on again, lap 2." in text
    # the session before has no earlier one: no warning to follow
    assert run_tool("get_threads", {"session_id": flagged["sid"]})["warnings"] == []

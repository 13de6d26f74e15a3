"""The sessions family: the driver's own sessions here, and this session against their other one, with
figures from the raw files (the VBOX file's own gate crossings, the simulator's ground truth)."""

from __future__ import annotations

from typing import Any

import numpy as np

from services.paddock.questions.families import sessions
from services.paddock.questions.model import LapRef, Question
from services.paddock.tools.base import session_row
from shared.display import lap_time
from tests.support.asking import ask_planned
from tests.support.sim_altered import lap_distance
from tests.support.truth import vbox_truth

OTHER = (LapRef(session="other"),)


def _ask(sid: str, laps: tuple[LapRef, ...] = (), intent: Any = "sessions") -> Any:
    got = sessions.answer(Question(text="how did I do?", intent=intent, laps=laps), session_row(sid))
    assert got is not None
    return got


def _sim_best(sim: Any) -> dict[str, Any]:
    return min((lp for lp in sim.truth.laps if lp["kind"] == "full"), key=lambda lp: lp["time_s"])


def test_my_sessions_here_are_mine_only_newest_first(q_lake) -> None:
    got = _ask(q_lake["sim"])
    listed = [g["session_id"] for g in got.result["sessions"]]
    assert listed == [q_lake["sim"], q_lake["vbox"]]  # not bo's, not the friend's bundle under "ana"
    sim = q_lake["sim_obj"]
    full = [lp for lp in sim.truth.laps if lp["kind"] == "full"]
    best = _sim_best(sim)
    this = got.result["sessions"][0]
    assert this["valid_laps"] == len(full) and this["best_lap"] == best["lap"]
    assert abs(this["best_s"] - best["time_s"]) < 0.005
    assert got.text.startswith("You have 2 sessions of your own at Sonoma Raceway: this session: ")
    assert f"{len(full)} valid laps, best {lap_time(this['best_s'])} (lap {best['lap']})" in got.text


def test_my_other_session_best_against_best_with_the_gap(q_lake) -> None:
    vb = vbox_truth(q_lake["vbox_path"])
    sim = q_lake["sim_obj"]
    own_gap = _sim_best(sim)["time_s"] - vb.best.time_s
    got = _ask(q_lake["sim"], OTHER)
    res = got.result
    assert res["other_session_id"] == q_lake["vbox"]
    assert res["other_best_lap"] == vb.best.lap and abs(res["other_best_s"] - vb.best.time_s) < 0.02
    assert abs(res["gap_s"] - own_gap) < 0.02 and res["gap_s"] < 0
    assert got.text.startswith(
        f"Your best lap here, {lap_time(res['best_s'])} (lap {res['best_lap']}), was {abs(res['gap_s']):.3f} s "
        f"faster than your best in your other session"
    )
    assert lap_time(res["other_best_s"]) in got.text and "Faster at T" in got.text


def test_the_gap_per_corner_is_each_best_laps_own_time_over_the_stretch(q_lake) -> None:
    sim = q_lake["sim_obj"]
    lap, dist = lap_distance(sim)
    best = _sim_best(sim)["lap"]
    t = sim.wide["t_s"]
    on = lap == best
    res = _ask(q_lake["sim"], OTHER).result
    for c in res["corners"]:
        own = float(np.interp(c["to_m"], dist[on], t[on]) - np.interp(c["from_m"], dist[on], t[on]))
        assert abs(c["time_s"] - own) < 0.05, c
    gaps = [abs(c["gap_s"]) for c in res["corners"]]
    assert gaps == sorted(gaps, reverse=True)
    # the corners tile the lap from the first corner's stretch on: their gaps add up to nearly the lap's
    assert abs(sum(c["gap_s"] for c in res["corners"]) - res["gap_s"]) < 0.5


def test_from_the_older_session_the_other_is_the_newer_one(q_lake) -> None:
    got = _ask(q_lake["vbox"], intent="compare")
    assert got.result["other_session_id"] == q_lake["sim"] and got.result["gap_s"] > 0
    assert " slower than your best in your other session " in got.text


def test_a_friends_session_is_not_one_to_compare_with(q_lake) -> None:
    got = _ask(q_lake["sim"], (LapRef(session=q_lake["friend"]),))
    assert (
        got.text == "That session is not another of your own at Sonoma Raceway, so I can't compare with it."
    )
    assert got.result["error"]["code"] == "not_comparable"
    # and from the friend's session, only that session is theirs here
    listed = [g["session_id"] for g in _ask(q_lake["friend"]).result["sessions"]]
    assert listed == [q_lake["friend"]]


def test_no_other_session_is_said(q_lake) -> None:
    got = _ask(q_lake["other_driver"], OTHER)
    assert got.text == "You have no other session of your own at Sonoma Raceway."


def test_a_reading_asked_of_the_other_session_is_that_sessions_own(q_lake) -> None:
    """ "what tyre pressures did I run last time?" from the VBOX file (no tyre pressures): the simulated
    session's pressures on its best lap, from its raw channels; asked the other way round, the pressures
    are not recorded in the VBOX's file, said of that file."""
    sim = q_lake["sim_obj"]
    best = _sim_best(sim)
    t = sim.wide["t_s"]
    on = (t >= best["t_start_s"]) & (t < best["t_end_s"])
    wheels = [sim.wide[f"tpms_press_{w}_bar"][on] for w in ("fl", "fr", "rl", "rr")]
    hi, lo = max(float(np.nanmax(x)) for x in wheels), min(float(np.nanmin(x)) for x in wheels)
    got = ask_planned(q_lake["vbox"], "what tire pressures did I use last time?")
    assert got.text.startswith(
        f"In your other session on {session_row(q_lake['sim'])['started_at']:%Y-%m-%d}"
    )
    assert f"tyre pressures on lap {best['lap']}: highest {hi:.1f} bar, lowest {lo:.1f} bar." in got.text
    got = ask_planned(q_lake["sim"], "what tire pressures did I use last time?")
    assert (
        got.text.startswith("In your other session")
        and "tyre pressures are not recorded in its file" in got.text
    )

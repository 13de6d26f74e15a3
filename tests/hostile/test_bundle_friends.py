"""Friends stay friends: a friend's faster session, exported under the same driver name and imported with
the same ``--driver``, keeps its own identity (the bundle's) and never becomes your personal best, goal
targets or progress. Real CLI processes; your best is checked against the simulator's own lap times."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.simulator import simulate, write_aim_csv
from tests.support import bundles
from tests.support.procs import REPO

MINE, FRIEND = 8, 4  # simulator seeds: the friend's best lap is faster than yours (checked below)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shared.cli", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "300"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _tool(data: Path, name: str, sid: str) -> dict[str, Any]:
    r = _cli("tool", name, "--args", json.dumps({"session_id": sid}), "--data-dir", str(data))
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(json.loads(r.stdout))


def _best(seed: int) -> float:
    sim = simulate(laps=3, seed=seed, rate_hz=10)
    return min(float(lp["time_s"]) for lp in sim.truth.laps if lp["kind"] == "full")


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("friends")
    ids = {}
    for who, seed in (("mine", MINE), ("friend", FRIEND)):
        write_aim_csv(simulate(laps=3, seed=seed, rate_hz=10), root / f"{who}.csv")
        r = _cli(
            "import", str(root / f"{who}.csv"), "--data-dir", str(root / who), "--driver", "me", "--json"
        )
        assert r.returncode == 0, r.stderr
        ids[who] = json.loads(r.stdout)["session_id"]
    r = _cli("export", ids["friend"], "-o", str(root / "friend.pitwall"), "--data-dir", str(root / "friend"))
    assert r.returncode == 0, r.stderr
    mine = root / "mine"
    before = {t: _tool(mine, t, ids["mine"]) for t in ("get_goal_targets", "get_progress_report")}
    r = _cli("import", str(root / "friend.pitwall"), "--data-dir", str(mine), "--driver", "me", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["session_id"] == ids["friend"]
    return {"root": root, "mine": mine, "ids": ids, "before": before}


def test_the_friend_is_faster_so_a_merge_would_show() -> None:
    assert _best(FRIEND) < _best(MINE) - 0.1


def test_a_friends_bundle_under_your_driver_id_is_not_your_personal_best(two) -> None:  # type: ignore[no-untyped-def]
    mine, sid = two["mine"], two["ids"]["mine"]
    goals = _tool(mine, "get_goal_targets", sid)
    assert goals["personal_best_session"] == sid and goals["sessions_compared"] == 1
    assert goals["personal_best_s"] == pytest.approx(_best(MINE), abs=0.05)
    assert goals["next_target_s"] == two["before"]["get_goal_targets"]["next_target_s"]
    plan = _tool(mine, "get_session_plan_context", sid)
    assert plan["personal_best"]["session_id"] == sid


def test_a_friends_bundle_is_not_in_your_progress(two) -> None:  # type: ignore[no-untyped-def]
    mine, sid = two["mine"], two["ids"]["mine"]
    prog = _tool(mine, "get_progress_report", sid)
    assert [s["session_id"] for s in prog["sessions"]] == [sid]
    assert prog["best_at_track_s"] == pytest.approx(_best(MINE), abs=0.05)
    assert prog == two["before"]["get_progress_report"]
    assert _tool(mine, "get_threads", sid).get("previous_session_id") is None


def test_the_friends_session_keeps_its_own_identity_and_best(two) -> None:  # type: ignore[no-untyped-def]
    mine, friend = two["mine"], two["ids"]["friend"]
    goals = _tool(mine, "get_goal_targets", friend)
    assert goals["personal_best_session"] == friend and goals["sessions_compared"] == 1
    assert goals["personal_best_s"] == pytest.approx(_best(FRIEND), abs=0.05)
    threads = _tool(mine, "get_threads", friend)
    assert threads.get("previous_session_id") is None, threads


def _driver_of(data: Path, sid: str) -> str:
    r = _cli("sessions", "--json", "--data-dir", str(data))
    assert r.returncode == 0, r.stderr
    return str(next(s["driver_id"] for s in json.loads(r.stdout) if s["session_id"] == sid))


def test_a_bundle_keeps_its_driver_under_another_driver_flag(two, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ana = bundles.with_session_column(
        two["root"] / "friend.pitwall", tmp_path / "ana.pitwall", driver_id="ana"
    )
    data = tmp_path / "d"
    r = _cli("import", str(ana), "--data-dir", str(data), "--driver", "me", "--json")
    assert r.returncode == 0, r.stderr
    assert _driver_of(data, two["ids"]["friend"]) == "ana"


def test_only_mine_makes_a_bundle_yours(two, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The one explicit way: ``--mine --driver me`` (your own session from another Pitwall) counts."""
    data, root = tmp_path / "d", two["root"]
    r = _cli("import", str(root / "mine.csv"), "--data-dir", str(data), "--driver", "me", "--json")
    assert r.returncode == 0, r.stderr
    own = json.loads(r.stdout)["session_id"]
    ana = bundles.with_session_column(root / "friend.pitwall", tmp_path / "ana.pitwall", driver_id="ana")
    r = _cli("import", str(ana), "--data-dir", str(data), "--driver", "me", "--mine", "--json")
    assert r.returncode == 0, r.stderr
    friend = two["ids"]["friend"]
    assert _driver_of(data, friend) == "me"
    goals = _tool(data, "get_goal_targets", own)
    assert goals["personal_best_session"] == friend and goals["sessions_compared"] == 2
    assert goals["personal_best_s"] == pytest.approx(_best(FRIEND), abs=0.05)

"""A gold lap is never replaced by accident: a slower lap, an out-lap or a friend's imported lap needs
``--force``, and every gold command says what it saved and what it replaced (real lake, real CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from shared.simulator.writers import write_aim_csv
from shared.store.gold import GoldConflict, import_gold_lap, load_gold_lap, save_gold_lap

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def session(tmp_path: Path):
    settings = settings_for(tmp_path / "data")
    sim = simulate(laps=4, seed=21, rate_hz=10, scenario=Scenario.clean(4))
    res = import_sim(sim, settings, driver_id="ana")
    full = sorted(
        (lp for lp in res.laps if lp["kind"] == "full" and lp["valid"]), key=lambda lp: lp["time_s"]
    )
    assert len(full) >= 2 and full[0]["time_s"] < full[-1]["time_s"]
    other = [lp for lp in res.laps if lp["kind"] != "full"]
    return settings, res.session_id, int(full[0]["lap"]), int(full[-1]["lap"]), other, sim


def _gold_lap(settings) -> tuple[int, str]:
    got = load_gold_lap(settings, "sonoma", "ana")
    assert got is not None
    return int(got[1]["lap"]), str(got[1]["session_id"])


def test_a_slower_lap_does_not_replace_a_faster_gold_without_force(session) -> None:
    settings, sid, fast, slow, _, _ = session
    first = save_gold_lap(settings, None, "ana", sid, fast)
    assert first.replaced is None and "there was none before" in first.summary()["message"]
    with pytest.raises(GoldConflict, match="faster"):
        save_gold_lap(settings, None, "ana", sid, slow)
    assert _gold_lap(settings) == (fast, sid)
    forced = save_gold_lap(settings, None, "ana", sid, slow, force=True)
    assert forced.replaced is not None and forced.replaced["lap"] == fast
    msg = forced.summary()["message"]
    assert f"saved lap {slow} of session {sid}" in msg and f"replaced lap {fast} of session {sid}" in msg
    assert _gold_lap(settings) == (slow, sid)
    # and back: a faster lap replaces a slower gold lap without being forced, and says so
    back = save_gold_lap(settings, None, "ana", sid, fast)
    assert back.replaced is not None and back.replaced["lap"] == slow


def test_an_out_or_in_lap_is_not_a_gold_lap_without_force(session) -> None:
    settings, sid, _, _, other, _ = session
    assert other, "the simulated session has an out- or in-lap segment"
    lap = int(other[0]["lap"])
    with pytest.raises(GoldConflict, match="not a valid full lap"):
        save_gold_lap(settings, None, "ana", sid, lap)
    assert load_gold_lap(settings, "sonoma", "ana") is None
    with pytest.raises(FileNotFoundError, match="no lap 99"):
        save_gold_lap(settings, None, "ana", sid, 99)


def test_importing_a_friends_lap_never_replaces_your_own_gold(session, tmp_path: Path) -> None:
    settings, sid, fast, _, _, _ = session
    save_gold_lap(settings, None, "ana", sid, fast)
    friend = write_aim_csv(
        simulate(laps=3, seed=5, rate_hz=10, scenario=Scenario.clean(3)), tmp_path / "f.csv"
    )
    with pytest.raises(GoldConflict, match="own gold lap .* stays"):
        import_gold_lap(settings, friend, None, "ana")
    assert _gold_lap(settings) == (fast, sid)
    res = import_gold_lap(settings, friend, None, "ana", force=True)
    assert res.replaced is not None and res.replaced["session_id"] == sid
    assert res.saved["source"] == "imported from f.csv"


def test_the_cli_says_what_it_saved_and_what_it_replaced(session) -> None:
    settings, sid, fast, slow, _, _ = session
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}

    def gold(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "shared.cli", "gold", "save", *args, "--driver", "ana", "--json"]
        cmd += ["--data-dir", str(settings.data_dir)]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)

    r = gold(sid, str(slow))
    assert r.returncode == 0, r.stderr
    assert "there was none before" in json.loads(r.stdout)["message"]
    r = gold(sid, str(fast))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["replaced"]["lap"] == slow and f"replaced lap {slow}" in out["message"]
    r = gold(sid, str(slow))
    assert (
        r.returncode == 1 and "faster" in r.stderr and "--force" in r.stderr and "Traceback" not in r.stderr
    )

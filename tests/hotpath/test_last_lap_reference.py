""" "Last lap" as the live reference: the predictive delta runs against the previous completed valid lap,
replaced at every valid line crossing. Checked against the independent position-matched delta of
``tests/support/own_delta.py`` (its own lap split from the raw samples; the reference of each own lap is
the own lap before it that the hot path timed as a valid full lap), on simulated frames and on the real
VBOX log; and chosen at session start (``reference: last_lap``) on a real hot store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from services.hotpath.routers.sessions import SessionStart
from services.hotpath.state import HotpathState
from shared.settings import settings_for
from tests.support.delta_replay import VBOX, measure


@pytest.mark.parametrize("name", ["sim-live", "vbox-real"])
def test_last_lap_delta_matches_an_independent_delta_against_the_lap_before(
    name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if name == "vbox-real" and not VBOX.is_file():
        pytest.fail(f"{VBOX} is missing: the real VBOX log is part of the test data")
    along, line, sess = measure(name, "last_lap", str(tmp_path_factory.getbasetemp()))
    full = [lp for lp in sess.laps if lp.kind == "full" and lp.valid]
    assert len(full) >= 3 and len(line) >= 2, (len(full), len(line))
    err = np.abs(np.array(along))
    assert len(err) > 100 and np.percentile(err, 95) <= 0.1, (np.percentile(err, 95), err.max())
    assert max(abs(x) for x in line) <= 0.010  # at the line: the lap-time difference to the lap before
    # the line delta of each valid lap after the first is its time minus the previous valid lap's
    closed = [lp for lp in sess.laps if lp.kind == "full" and lp.valid]
    ref = sess.delta.reference
    assert ref.source == "last_lap" and ref.lap == closed[-1].lap and ref.time_s == closed[-1].time_s


def test_last_lap_is_a_reference_choice_at_session_start(tmp_path: Path) -> None:
    assert SessionStart(reference="last_lap").reference == "last_lap"  # the API's pattern takes it
    state = HotpathState(settings_for(tmp_path / "data"))
    try:
        chosen = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, "last_lap")
        plain = state.start_session("ana", "bmw_e46_m3_aim_mxp", "sonoma", None, None, "session_best")
        assert state.session(chosen).last_lap_reference and not state.session(plain).last_lap_reference
    finally:
        state.close()

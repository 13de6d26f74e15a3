"""The balance family on a simulated session altered in a known way: its yaw rate is exactly the kinematic
yaw rate of its steering everywhere (neutral) except inside T3 (x0.6: understeer) and T7 (x1.5:
oversteer), ``tests.support.sim_altered.BALANCE_SCALE``."""

from __future__ import annotations

from typing import Any

from services.paddock.questions.families import balance
from services.paddock.questions.model import Question
from services.paddock.tools.base import session_row
from tests.support.asking import ask_planned
from tests.support.sim_altered import BALANCE_SCALE


def _ask(sid: str, corner: str | None = None) -> Any:
    got = balance.answer(
        Question(text="does it understeer?", intent="balance", corner=corner), session_row(sid)
    )
    assert got is not None
    return got


def test_each_corner_gets_the_balance_put_into_it(q_lake) -> None:
    got = _ask(q_lake["balance"])
    by = {c["corner"]: c for c in got.result["corners"]}
    assert abs(by["t3"]["yaw_gain"] - BALANCE_SCALE["t3"]) < 0.05 and by["t3"]["verdict"] == "understeer"
    assert abs(by["t7"]["yaw_gain"] - BALANCE_SCALE["t7"]) < 0.08 and by["t7"]["verdict"] == "oversteer"
    judged = [c for c in by.values() if c["verdict"] is not None and c["corner"] not in BALANCE_SCALE]
    assert len(judged) >= 6
    assert all(abs(c["yaw_gain"] - 1.0) < 0.1 and c["verdict"] == "neutral" for c in judged), judged
    assert got.result["verdict"] == "neutral"
    assert "Understeer at T3 (60 %)." in got.text and "Oversteer at T7 (150 %)." in got.text
    assert got.text.startswith("Over the session the car was neutral")


def test_a_named_corner_gets_its_own_verdict(q_lake) -> None:
    got = _ask(q_lake["balance"], "t3")
    assert got.result["verdict"] == "understeer"
    assert got.text.startswith("At T3 the car understeered: it turned at 6")  # 60 % give or take the noise
    assert "oversteer" not in got.text.lower()


def test_the_unaltered_session_is_neutral_everywhere(q_lake) -> None:
    got = _ask(q_lake["sim"])
    assert got.result["verdict"] == "neutral"
    assert {c["verdict"] for c in got.result["corners"]} <= {"neutral", None}
    assert "Understeer" not in got.text and "Oversteer" not in got.text


def test_a_file_without_steering_says_so_by_name(q_lake) -> None:
    got = _ask(q_lake["no_steer"])
    assert (
        got.text
        == "I can't tell understeer from oversteer here. Not recorded in this session: steering angle."
    )
    assert got.result["recorded"] is False and got.result["missing"] == ["steer_deg"]


def test_the_real_vbox_file_has_steering_but_no_yaw_gyro(q_lake, shared_dir) -> None:
    header = (q_lake["vbox_path"]).read_text(encoding="latin-1")[:20000].lower()
    assert "steering angle" in header and "yaw" not in header  # our own reading of the file's channels
    got = _ask(q_lake["vbox"], "t7")
    assert got.text == "I can't tell understeer from oversteer here. Not recorded in this session: yaw rate."


def test_a_pedal_named_gets_the_corners_verdicts_said_as_whole(q_lake) -> None:
    """ "understeer on the throttle?": the balance is judged over each corner whole, which the answer says,
    with the same verdicts the altered session was given (T3 under, T7 over); a file with no yaw rate: not
    recorded, whatever the pedal."""
    for text in ("do I get on throttle understeer anywhere?", "is it loose under braking?"):
        got = ask_planned(q_lake["balance"], text)
        assert got.text.startswith("Judged over each corner as a whole, not on the throttle or under braking")
        assert "Understeer at T3" in got.text and "Oversteer at T7" in got.text
    got = ask_planned(q_lake["vbox"], "was I getting a bit of on throttle understeer in a couple of places?")
    assert got.text == "I can't tell understeer from oversteer here. Not recorded in this session: yaw rate."

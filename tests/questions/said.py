"""How an answer says a lap, and the simulator's own laps, for the question tests that check lap figures
against the simulator's ground truth (never against Pitwall's tools)."""

from __future__ import annotations

import re
from typing import Any

TOL_S = 0.01  # a full lap: Pitwall times it from the logged samples, the simulator from its clock
TOL_PART_S = 0.06  # an out or in lap starts or ends in the pits, a sample apart from the simulator's clock
CLOCK = re.compile(r"\b(\d+):(\d{2}\.\d{3})\b")


def sim_laps(q_lake: dict[str, Any], kind: str = "full") -> dict[int, float]:
    """The simulator's own laps of one kind: lap -> time."""
    return {x["lap"]: x["time_s"] for x in q_lake["sim_obj"].truth.laps if x["kind"] == kind}


def clock(text: str) -> float:
    """ "1:35.274" -> seconds."""
    m = CLOCK.fullmatch(text)
    assert m, text
    return int(m.group(1)) * 60 + float(m.group(2))


def lap_said(text: str, lap: int) -> float:
    """The time ``text`` gives lap ``lap`` ("lap 3 in 1:36.145")."""
    m = re.search(rf"\blap {lap} in (\d+:\d{{2}}\.\d{{3}})\b", text)
    assert m, (lap, text)
    return clock(m.group(1))

"""A lap delta adds up: its total is the two laps' lap-time difference, and the lap cut into corners
and the stretches between them gives deltas that sum to it (the real VBOX laps 2 and 5 read 4.651 s
over the distance they shared, against a lap-time difference of 4.609 s)."""

from __future__ import annotations

from typing import Any

import pytest

from services.paddock.tools.registry import run_tool


@pytest.mark.parametrize(("which", "lap_a", "lap_b"), [("vbox_sid", 2, 5), ("sid", 2, 4), ("sid", 6, 3)])
def test_lap_delta_is_the_lap_time_difference_and_its_segments_sum_to_it(
    lake_env: dict[str, Any], which: str, lap_a: int, lap_b: int
) -> None:
    sid = lake_env[which]
    if sid is None:
        pytest.fail("../shared/data is missing: the real VBOX log is part of the test data")
    out = run_tool("get_lap_delta", {"session_id": sid, "lap_a": lap_a, "lap_b": lap_b})
    diff = out["lap_b_time_s"] - out["lap_a_time_s"]
    assert out["total_delta_s"] == pytest.approx(diff, abs=0.0015)
    segs = out["segments"]
    assert segs[0]["from_m"] == 0 and all(
        a["to_m"] == b["from_m"] for a, b in zip(segs, segs[1:], strict=False)
    )
    assert sum(s["delta_s"] for s in segs) == pytest.approx(out["total_delta_s"], abs=0.0015)
    assert out["delta_trace"]["delta_s"][0] == pytest.approx(0.0, abs=0.005)  # both laps timed from the line

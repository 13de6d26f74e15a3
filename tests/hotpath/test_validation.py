"""The batch fast path gives exactly the per-frame verdicts, or steps aside for the per-frame path."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.hotpath.validation import Counters, FrameRejected, batch_matrix, clean_frame

CLEAN = {
    "speed_kmh": 120.0,
    "throttle_pct": 80,
    "brake_bar": 0.0,
    "rpm": 6000,
    "g_lat": 0.4,
    "oil_press_bar": 4.5,
}


def _per_frame(frames: list[Any], last_t: float | None) -> list[dict[str, float]] | None:
    out, counters = [], Counters()
    for f in frames:
        try:
            c = clean_frame(f, last_t, counters)
        except FrameRejected:
            return None
        last_t = c["t_s"]
        out.append(c)
    return None if sum(counters.rejected.values()) else out


values = st.one_of(
    st.floats(-1e4, 1e5),
    st.sampled_from([math.nan, math.inf, -math.inf, 4519.0, 900.0, 40.0]),
    st.integers(-100, 20_000),
    st.none(),
    st.booleans(),
    st.text(max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 20),
    bad_at=st.integers(0, 19),
    key=st.sampled_from([*CLEAN, "t_s", "warp_factor"]),
    value=values,
    last_t=st.one_of(st.none(), st.floats(-5, 5)),
)
def test_batch_matches_per_frame_verdicts(
    n: int, bad_at: int, key: str, value: Any, last_t: float | None
) -> None:
    frames: list[dict[str, Any]] = [{"t_s": 0.02 * i, **CLEAN} for i in range(n)]
    frames[bad_at % n][key] = value
    fast = batch_matrix(frames, last_t)
    slow = _per_frame(frames, last_t)
    if fast is not None:  # the fast path may only accept what the per-frame path accepts, identically
        keys, arr = fast
        assert slow is not None and [{k: float(v) for k, v in f.items()} for f in frames] == slow
        assert [dict(zip(keys, r, strict=True)) for r in arr.tolist()] == slow
    if slow is None:
        assert fast is None


def test_batch_matrix_accepts_a_clean_batch_and_declines_odd_shapes() -> None:
    frames = [{"t_s": 0.02 * i, **CLEAN} for i in range(50)]
    got = batch_matrix(frames, None)
    assert got is not None and got[1].shape[0] == 50 and got[1][3, got[0].index("rpm")] == 6000.0
    assert (
        batch_matrix([{"t_s": 1.0, "abs_active": True}, {"t_s": 2.0, "abs_active": False}], None) is not None
    )
    assert (
        batch_matrix([{"t_s": 1.0, "rpm": "6000"}], None) is None
        and batch_matrix([{"t_s": 1.0, "rpm": None}], None) is None
    )
    assert batch_matrix(frames, 10.0) is None  # older than the last accepted frame
    assert batch_matrix([*frames[:3], {"t_s": 9.0}], None) is None  # different channels
    assert batch_matrix([[1, 2]], None) is None
    assert batch_matrix([{"t_s": 1.0, "oil_press_bar": 4519.0}], None) is None  # sentinel
    assert batch_matrix([{"t_s": 1.0, "speed_kmh": math.inf}], None) is None

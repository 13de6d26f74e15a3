"""The corner watcher's window as columns (rows written into a ``corner_frames.Kept`` store a block at a
time) is exactly what one list per channel gave: NaN for a channel a frame lacks or holds as None,
booleans as 0/1."""

from __future__ import annotations

import numpy as np

from services.hotpath.corner_frames import CHANNELS as _CH
from services.hotpath.corner_frames import Kept
from services.hotpath.replay import frames_of
from shared.simulator import simulate


def _per_channel(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    nan = float("nan")
    return {k: np.asarray([r.get(k, nan) for r in rows], dtype=np.float64) for k in _CH}


def _columns(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    k = Kept(capacity=16)  # grown as the rows come
    for r in rows:
        k.add_row(r)
    return k.columns()


def _same(rows: list[dict[str, float]]) -> bool:
    want, got = _per_channel(rows), _columns(rows)
    return set(got) == set(want) and all(np.array_equal(want[k], got[k], equal_nan=True) for k in _CH)


def test_columns_match_one_list_per_channel() -> None:
    rows = list(frames_of(simulate(laps=1, seed=4, rate_hz=50.0).wide))[:300]
    for i, r in enumerate(rows):
        r["dist_m"] = float(i)
    assert _same(rows)
    cols = _columns(rows)
    assert cols["dist_m"][7] == 7.0 and cols["speed_kmh"][5] == rows[5]["speed_kmh"]
    rows[3] = {**rows[3], "brake_bar": True}  # a flag-like value
    rows[9] = {**rows[9], "g_lat": None}  # type: ignore[dict-item]
    assert _same(rows)
    del rows[11]["steer_deg"]  # a channel that had not come yet
    assert _same(rows)
    assert np.isnan(_columns(rows)["steer_deg"][11])
    no_wheels = [{k: v for k, v in r.items() if not k.startswith("wheel_speed")} for r in rows]
    assert _same(no_wheels) and np.isnan(_columns(no_wheels)["wheel_speed_fl_kmh"]).all()
    assert _same(rows[:1])

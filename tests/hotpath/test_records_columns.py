"""Frames stored from columns hold a channel's last value over its gaps (NULL before any value), exactly as
the frame path's per-frame rows do; checked against rows built here, one frame at a time."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from services.hotpath.records import held, telemetry_columns
from shared.signals import telemetry_schema

SCHEMA = telemetry_schema().remove(0)


def _rows(names: list[str], m: np.ndarray, before: dict[str, float], lap: np.ndarray, dist: np.ndarray):
    vals = dict(before)
    out = []
    for i in range(len(m)):
        for k, v in zip(names, m[i].tolist(), strict=True):
            if not np.isnan(v):
                vals[k] = v
        vals["lap"], vals["dist_m"] = int(lap[i]), float(dist[i])
        out.append(dict(vals))
    tbl = pa.Table.from_pylist(out, schema=SCHEMA)
    return tbl.add_column(0, "session_id", pa.array(["s"] * len(out), pa.string()))


@pytest.mark.parametrize("seed", range(6))
def test_columns_store_what_frame_rows_store(seed: int) -> None:
    rng = np.random.default_rng(seed)
    names = ["t_s", "speed_kmh", "oil_press_bar", "rpm", "tpms_press_fl_bar"]
    n = int(rng.integers(1, 40))
    m = rng.uniform(1, 100, size=(n, len(names)))
    m[:, 0] = np.arange(n) * 0.02
    m[:, 1:][rng.random((n, len(names) - 1)) < 0.6] = np.nan  # sparse channels, some never sampled
    before = {"rpm": 2900.0, "water_temp_c": 90.0} if seed % 2 else {}
    lap = np.repeat([3, 4], [n // 2, n - n // 2])
    dist = np.arange(n, dtype=float)
    _, got = telemetry_columns("s", names, m, before, lap, dist, SCHEMA)
    assert got.equals(_rows(names, m, before, lap, dist))


def test_a_gap_holds_the_last_value_and_nothing_before_is_null() -> None:
    col = np.array([np.nan, 4.0, np.nan, np.nan, 5.0, np.nan])
    assert np.array_equal(held(col, None), [np.nan, 4, 4, 4, 5, 5], equal_nan=True)
    assert np.array_equal(held(col, 3.5), [3.5, 4, 4, 4, 5, 5])
    assert held(np.array([1.0, 2.0]), None).tolist() == [1.0, 2.0]

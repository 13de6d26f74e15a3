"""Stored frames handed to the writer as row dicts become the telemetry batch of exactly their values
(nulls where a frame lacks a channel), converted at most ``ROWS_PER_CALL`` rows per pyarrow call: one call
holds the GIL throughout, and the frame path's thread waits for it (``bench/gil_hold.py``)."""

from __future__ import annotations

from typing import Any

from services.hotpath import records
from services.hotpath.frame_columns import ROWS_PER_CALL, telemetry_table
from services.hotpath.replay import frames_of
from shared.simulator import simulate


def _rows(n: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = list(frames_of(simulate(laps=1, seed=4, rate_hz=50.0).wide))[:n]
    for i, r in enumerate(rows):
        r["lap"], r["dist_m"] = 1 + i // 200, float(i) * 2.5
    return rows


def test_rows_become_their_values_in_calls_of_at_most_100_rows() -> None:
    rows = _rows(250)
    del rows[150]["speed_kmh"]  # a channel this frame lacks: null, not the neighbour's value
    rows[151]["g_lat"] = None
    schema = records._row_schema()
    tbl = telemetry_table("s1", rows, schema)
    assert tbl.num_rows == 250 and tbl.column_names == ["session_id", *schema.names]
    assert tbl.column("session_id").to_pylist() == ["s1"] * 250
    for name in schema.names:  # each column, against the rows' own values
        assert tbl.column(name).to_pylist() == [r.get(name) for r in rows], name
    assert tbl.column("speed_kmh")[150].as_py() is None and tbl.column("speed_kmh")[149].as_py() > 0
    assert tbl.column("lap").to_pylist()[199:201] == [1, 2]
    assert ROWS_PER_CALL == 100
    assert [len(c) for c in tbl.column("t_s").chunks] == [100, 100, 50]  # one pyarrow call each


def test_a_short_batch_is_one_call() -> None:
    rows = _rows(7)
    tbl = telemetry_table("s2", rows, records._row_schema())
    assert [len(c) for c in tbl.column("rpm").chunks] == [7]
    assert tbl.column("rpm").to_pylist() == [r["rpm"] for r in rows]

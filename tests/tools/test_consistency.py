"""Consistency per corner over sessions: two simulated sessions of one driver at Sonoma in one car (the
trend from one to the next), and a logger without brake pressure or longitudinal g (brake points are
"not recorded", never a number)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from services.paddock import lake as lake_mod
from services.paddock.lake import configure_lake
from services.paddock.tools.registry import run_tool
from shared.consistency import spread, trend
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    settings = settings_for(tmp_path_factory.mktemp("consistency") / "data")
    first = import_sim(cached_sim(laps=6, seed=7), settings, driver_id="ana").session_id
    second = import_sim(cached_sim(laps=6, seed=9), settings, driver_id="ana").session_id
    sim = cached_sim(laps=6, seed=7)
    blind = replace(sim, wide={k: v for k, v in sim.wide.items() if k not in ("brake_bar", "g_long")})
    nob = import_sim(blind, settings, driver_id="nob").session_id
    before = lake_mod._LAKE
    configure_lake(settings)
    yield {"first": first, "second": second, "nob": nob}
    if lake_mod._LAKE is not None:
        lake_mod._LAKE.con.close()
    lake_mod._LAKE = before  # the other modules' lake, as it was


def _own_iqr(sid: str, corner: str, col: str) -> float | None:
    got = run_tool(
        "query_pitwall_db",
        {"sql": f"SELECT c.{col} AS v FROM corner_results c JOIN laps l ON l.session_id = c.session_id AND "
         f"l.lap = c.lap WHERE c.session_id = '{sid}' AND lower(c.corner_id) = '{corner.lower()}' "
         "AND l.kind = 'full' AND l.valid"},
    )["rows"]  # fmt: skip
    v = [float(r["v"]) for r in got if r["v"] is not None]
    if len(v) < 3:
        return None
    q1, q3 = np.percentile(v, [25, 75])
    return float(q3 - q1)


def _own_trend(before: float | None, now: float | None, floor: float) -> str | None:
    if before is None or now is None:
        return None
    if abs(now - before) <= max(0.2 * before, floor):
        return "unchanged"
    return "tighter" if now < before else "wider"


def test_the_trend_compares_this_session_with_the_one_before(lake) -> None:
    out = run_tool("get_corner_consistency", {"session_id": lake["second"]})
    assert out["sessions_compared"] == 2 and out["trend_note"] is None
    assert out["brake_point_source"].startswith("brake pressure")
    seen: set[str | None] = set()
    for c in out["corners"]:
        assert [h["session_id"] for h in c["history"]] == [lake["first"], lake["second"]]
        for col, key, hk, floor in (
            ("brake_point_m", "brake_point", "brake_point_iqr_m", 2.0),
            ("min_kmh", "min_speed", "min_speed_iqr_kmh", 0.5),
        ):
            a, b = _own_iqr(lake["first"], c["corner"], col), _own_iqr(lake["second"], c["corner"], col)
            got = [h[hk] for h in c["history"]]
            assert got == [None if a is None else round(a, 1), None if b is None else round(b, 1)]
            assert c["trend"][key] == _own_trend(a, b, floor), (c["corner"], key, a, b)
            seen.add(c["trend"][key])
    assert seen - {None}  # the corners with a spread in both sessions have a trend
    first = run_tool("get_corner_consistency", {"session_id": lake["first"]})
    assert first["sessions_compared"] == 1 and first["trend_note"]  # nothing earlier: no trend, said so
    assert all(c["trend"] == {"brake_point": None, "min_speed": None} for c in first["corners"])


def test_brake_points_are_not_recorded_without_pressure_or_deceleration(lake) -> None:
    out = run_tool("get_corner_consistency", {"session_id": lake["nob"]})
    assert out["brake_point_source"] is None and "brake pressure and longitudinal g" in out["not_recorded"]
    assert out["corners"]
    for c in out["corners"]:
        assert isinstance(c["brake_point"], str) and c["brake_point"].startswith("not recorded")
        assert c["min_speed"]["median_kmh"] > 0 and c["history"][-1]["brake_point_iqr_m"] is None


def test_the_trend_rule_on_spreads_we_choose() -> None:
    assert trend([10.0, 12.0, 4.0], "brake_point_m") == "tighter"  # 4 m against a median of 11 m
    assert trend([4.0, 9.0], "brake_point_m") == "wider"
    assert trend([10.0, 11.5], "brake_point_m") == "unchanged"  # within 20 %
    assert trend([3.0, 4.5], "brake_point_m") == "unchanged"  # 50 % but under the 2 m floor
    assert trend([1.0, 2.0], "min_kmh") == "wider"  # 1 km/h: over 20 % and over the 0.5 km/h floor
    assert trend([None, 3.0], "min_kmh") is None and trend([3.0, None], "min_kmh") is None
    assert trend([2.0], "min_kmh") is None


def test_a_spread_needs_three_laps_and_ignores_missing_values() -> None:
    got = spread([100.0, None, 110.0, float("nan"), 104.0, 120.0])
    assert got["laps"] == 4 and got["median"] == 107.0
    assert got["iqr"] == pytest.approx(float(np.subtract(*np.percentile([100, 104, 110, 120], [75, 25]))))
    assert got["sd"] == pytest.approx(float(np.std([100, 104, 110, 120], ddof=1)))
    two = spread([100.0, 110.0])
    assert two["laps"] == 2 and two["iqr"] is None and two["sd"] is None

"""Corners on tracks without a profile, found from the driven line of real sessions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from shared.corners import auto_corners, reference_lap
from shared.importers import read_log
from shared.laps_recorded import assign_laps, detect_laps
from shared.profiles.car import load_car
from shared.profiles.track import load_track


def _auto(path: Path) -> tuple[dict[str, np.ndarray], list, list]:
    raw = read_log(path)
    wide, _ = load_car("generic").to_wide(raw)
    laps = detect_laps(wide, None, raw.beacons_s)  # no track profile: the Sonoma profile hidden
    assign_laps(wide, laps, None)
    return wide, laps, auto_corners(wide, laps)


def test_sonoma_with_its_profile_hidden_gets_its_real_corners(shared_dir: Path) -> None:
    wide, laps, corners = _auto(shared_dir / "data/vbox/sonoma_vbox0240.csv")
    assert 11 <= len(corners) <= 13, [c.short for c in corners]
    # every detected corner is one of Sonoma's, turning the same way; most of Sonoma's are found
    sonoma = load_track("sonoma")
    ref = reference_lap(laps)
    assert ref is not None
    m = wide["lap"] == ref.lap
    hits, same_dir = set(), 0

    def on_sonoma(d: float) -> float:
        k = int(np.argmin(np.abs(wide["dist_m"][m] - d)))
        s, _ = sonoma.project(wide["lat"][m][k : k + 1], wide["lon"][m][k : k + 1])
        return float(s[0])

    for c in corners:
        a, b = on_sonoma(c.start_m), on_sonoma(c.end_m)
        near = [pc for pc in sonoma.corners if pc.start_m <= b and a <= pc.end_m]  # the spans overlap
        assert near, (c.short, a, b)
        hits.update(pc.id for pc in near)
        same_dir += any(pc.direction == c.direction for pc in near)
    assert same_dir == len(corners)
    assert len(hits) >= 10, sorted(hits)
    # named C1..Cn in driving order
    assert [c.short for c in corners] == [f"C{i}" for i in range(1, len(corners) + 1)]
    assert all(a.apex_m < b.apex_m for a, b in zip(corners, corners[1:], strict=False))
    assert all(c.start_m <= c.apex_m <= c.end_m for c in corners)


def test_kart_track_gets_a_dozen_corners_both_ways(shared_dir: Path) -> None:
    _, _, corners = _auto(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv")
    assert 9 <= len(corners) <= 14, [c.short for c in corners]
    assert {c.direction for c in corners} == {"left", "right"}


def _import(path: Path, data_dir: Path) -> dict:
    from shared.ingest import import_file
    from shared.settings import settings_for

    return import_file(path, settings_for(data_dir)).as_json()


def _corners(data_dir: Path, sid: str) -> dict[str, float]:
    import duckdb

    f = data_dir / "lake" / "sessions" / sid / "corners.parquet"
    rows = duckdb.sql(f"SELECT corner_id, median(apex_m) FROM read_parquet('{f}') GROUP BY 1").fetchall()
    return {r[0]: float(r[1]) for r in rows}


def test_detected_track_is_stored_and_reused_with_stable_names(shared_dir: Path, tmp_path: Path) -> None:
    src = shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv"
    d = tmp_path / "data"
    first = _import(src, d)
    assert first["track"] and first["track"].startswith("auto-")
    stored = json.loads((d / "tracks" / f"{first['track']}.json").read_text())
    assert stored["name"] == "SSKC" and len(stored["corners"]) >= 9
    # another session at the same place (a different file): same track, same corner names and places
    other = tmp_path / "second.csv"
    lines = src.read_text(encoding="utf-8").splitlines()
    other.write_text("\n".join(line for i, line in enumerate(lines) if i < 20 or i % 2 == 0) + "\n")
    second = _import(other, d)
    assert second["session_id"] != first["session_id"] and second["track"] == first["track"]
    a, b = _corners(d, first["session_id"]), _corners(d, second["session_id"])
    assert set(a) == set(b) == {c["id"] for c in stored["corners"]}
    assert max(abs(a[k] - b[k]) for k in a) <= 15.0


@pytest.mark.parametrize("stem", ["scut_fsev_agx"])
def test_run_without_a_lap_stores_no_track(shared_dir: Path, tmp_path: Path, stem: str) -> None:
    got = _import(shared_dir / f"data/aim/{stem}.xrk", tmp_path / "d")
    assert got["track"] is None and not (tmp_path / "d" / "tracks").exists()


def _line(segments: list[tuple[float, float]], step: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """A driven line from (length m, signed curvature 1/m; + turns right) segments, every ``step`` m."""
    xs, ys, h = [0.0], [0.0], 0.0
    for length, k in segments:
        for _ in range(int(round(length / step))):
            h += k * step
            xs.append(xs[-1] + step * np.sin(h))
            ys.append(ys[-1] + step * np.cos(h))
    return np.array(xs), np.array(ys)


def _bends(segments: list[tuple[float, float]]) -> list[tuple[float, float, str]]:
    from shared.corners import bends, curvature

    x, y = _line(segments)
    return [(a * 2.0, b * 2.0, "right" if s > 0 else "left") for a, b, s in bends(curvature(x, y))]


def test_bends_merge_a_double_apex_split_an_s_bend_and_drop_a_kink() -> None:
    r40 = 1 / 40
    straight = (200.0, 0.0)
    # a double apex: two right-hand arcs 10 m or 45 m apart are one corner (at 45 m the smoothed line
    # straightens for a few metres: merged across it); 120 m apart they are two
    assert len(_bends([straight, (30, r40), (10, 0.0), (30, r40), straight])) == 1
    assert len(_bends([straight, (30, r40), (45, 0.0), (30, r40), straight])) == 1
    assert len(_bends([straight, (30, r40), (120, 0.0), (30, r40), straight])) == 2
    # an S-bend: right then left, two corners in driving order
    s_bend = _bends([straight, (40, r40), (40, -r40), straight])
    assert [d for _, _, d in s_bend] == ["right", "left"]
    assert s_bend[0][1] <= s_bend[1][0]
    # a 20 degree kink is no corner; a 30 degree bend of the same radius is
    kink = np.radians(20) / (1 / 150)
    bend = np.radians(30) / (1 / 150)
    assert _bends([straight, (kink, 1 / 150), straight]) == []
    assert len(_bends([straight, (bend, 1 / 150), straight])) == 1
    # a 400 m radius sweeper is no corner however long
    assert _bends([straight, (400, 1 / 400), straight]) == []

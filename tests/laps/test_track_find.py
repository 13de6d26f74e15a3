"""Which track a file was driven on, for import, replay and demo alike (``shared.track_find``): the
real MyChron kart file (no profile shipped) and the real VBOX session at Sonoma. Lap times are checked
against the kart file's own header (the logger's segment times), not against Pitwall's import."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from services.hotpath.state import HotpathState
from shared.importers import read_log
from shared.laps_live import LiveLapTracker
from shared.profiles.car import load_car
from shared.profiles.track import load_track, save_track, saved_tracks
from shared.settings import settings_for
from shared.track_find import find_track

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"
VBOX = "data/vbox/sonoma_vbox0240.csv"


def _open(shared_dir: Path, rel: str):  # type: ignore[no-untyped-def]
    raw = read_log(shared_dir / rel)
    wide, _ = load_car("generic").to_wide(raw)
    return raw, wide


def _header_best(path: Path) -> float:
    """The fastest lap in the logger's own ``Segment Times`` row (``m:ss.sss``)."""
    with path.open(encoding="utf-8") as fh:
        for row in csv.reader(fh):
            if row and row[0] == "Segment Times":
                times = [int(v.split(":")[0]) * 60 + float(v.split(":")[1]) for v in row[1:] if v]
                return min(t for t in times if t > 30)  # the 18 s tail is no lap
    raise AssertionError("no Segment Times row")


def _live_full_laps(track, wide) -> list[float]:  # type: ignore[no-untyped-def]
    tracker = LiveLapTracker(track)
    out = []
    for t, la, lo, v in zip(wide["t_s"], wide["lat"], wide["lon"], wide["speed_kmh"], strict=True):
        st = tracker.feed(float(t), float(la), float(lo), float(v))
        if st.crossed is not None and st.crossed.kind == "full":
            out.append(st.crossed.time_s)
    return out


def test_kart_track_is_built_from_the_file_named_stored_and_found_again(
    shared_dir: Path, tmp_path: Path
) -> None:
    raw, wide = _open(shared_dir, KART)
    before = {k: v.copy() for k, v in wide.items()}
    track = find_track(raw, wide, tmp_path)
    assert track is not None and track.id.startswith("auto-") and track.id != "sonoma"
    assert track.name == "SSKC"  # the file's Venue row
    assert set(wide) == set(before) and all(np.array_equal(wide[k], before[k], equal_nan=True) for k in wide)
    assert [t.id for t in saved_tracks(tmp_path)] == [track.id]
    assert len(track.corners) >= 8 and 900 < track.length_m < 1300
    # the next session there reuses it: same id and corners, nothing new stored
    again = find_track(raw, wide, tmp_path)
    assert again is not None and again.id == track.id and again.corners == track.corners
    assert len(saved_tracks(tmp_path)) == 1
    # live, on that track: the logger's laps (11 full laps from 58.51 s in its own header)
    live = _live_full_laps(track, wide)
    assert len(live) == 11
    assert min(live) == pytest.approx(_header_best(shared_dir / KART), abs=0.05)


def test_a_stored_track_is_found_by_a_service_with_that_data_dir_only(
    shared_dir: Path, tmp_path: Path
) -> None:
    raw, wide = _open(shared_dir, KART)
    mine = tmp_path / "mine"
    track = find_track(raw, wide, mine / "unused")  # stored under another directory
    assert track is not None
    save_track(mine, track)
    assert load_track(track.id, mine).name == "SSKC"
    with pytest.raises(KeyError, match=r"unknown track 'auto-.*'; available: sonoma"):
        load_track(track.id, tmp_path / "elsewhere")
    # a hot path whose settings point at ``mine`` (the environment's data dir is another one)
    state = HotpathState(settings_for(mine))
    try:
        sid = state.start_session("ana", "generic", track.id, None, None)
        assert state.session(sid).tracker.track is not None
        assert state.session(sid).tracker.track.name == "SSKC"
    finally:
        state.close()


def test_sonoma_file_finds_sonoma_with_the_kart_track_stored_beside_it(
    shared_dir: Path, tmp_path: Path
) -> None:
    kraw, kwide = _open(shared_dir, KART)
    assert find_track(kraw, kwide, tmp_path) is not None
    raw, wide = _open(shared_dir, VBOX)
    track = find_track(raw, wide, tmp_path)
    assert track is not None and track.id == "sonoma"
    assert len(saved_tracks(tmp_path)) == 1  # nothing new stored for Sonoma
    live = _live_full_laps(track, wide)
    assert len(live) == 8 and 106.9 < min(live) < 107.1


def test_an_explicit_track_wins_and_an_unknown_one_names_what_exists(
    shared_dir: Path, tmp_path: Path
) -> None:
    raw, wide = _open(shared_dir, KART)
    stored = find_track(raw, wide, tmp_path)
    assert stored is not None
    assert find_track(raw, wide, tmp_path, "sonoma").id == "sonoma"  # type: ignore[union-attr]
    with pytest.raises(KeyError) as exc:
        find_track(raw, wide, tmp_path, "laguna")
    assert (
        "'laguna'" in str(exc.value)
        and "sonoma" in str(exc.value)
        and f"{stored.id} (SSKC)" in str(exc.value)
    )


@pytest.mark.parametrize("bad", ["../escape", "sonoma", "A B", ""])
def test_a_stored_track_id_is_a_plain_file_name_and_never_a_shipped_one(
    shared_dir: Path, tmp_path: Path, bad: str
) -> None:
    raw, wide = _open(shared_dir, KART)
    track = find_track(raw, wide, tmp_path / "a")
    assert track is not None
    with pytest.raises(ValueError, match="cannot store"):
        save_track(tmp_path / "b", track.model_copy(update={"id": bad}))
    assert not (tmp_path / "b" / "tracks").exists() or not any((tmp_path / "b" / "tracks").iterdir())


def test_a_trace_beside_a_shipped_track_is_not_that_track() -> None:
    """A kart track or a road 35 m beside Sonoma's line is not Sonoma; the line itself is."""
    from shared.profiles.track_detect import detect_track

    tr = load_track("sonoma")
    s = np.arange(0.0, tr.line.length, 3.0)
    x, y = tr.line.point_at(s)
    hx, hy = np.gradient(x), np.gradient(y)
    n = np.hypot(hx, hy)
    found = detect_track(*tr.proj.latlon(x, y))
    assert found is not None and found.id == "sonoma"
    assert detect_track(*tr.proj.latlon(x - 35 * hy / n, y + 35 * hx / n)) is None

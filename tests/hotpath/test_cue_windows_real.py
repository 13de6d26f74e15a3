"""Cue windows on real driving: the real Sonoma VBOX laps leave few corners with no quiet stretch before
them (busy = braking or cornering over BUSY_G_LAT), so the coach can speak almost everywhere."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from services.hotpath.arbiter import SAFETY_MARGIN_S, CoachArbiter, FrameState
from services.hotpath.phrases import TEMPLATES
from shared.ingest import import_file
from shared.profiles.track import load_track
from shared.settings import settings_for
from shared.store.lake_layout import lap_path, table_path


def test_real_sonoma_laps_leave_at_most_two_corners_without_a_cue_window(
    shared_dir: Path, tmp_path: Path
) -> None:
    st = settings_for(tmp_path / "data")
    sid = import_file(shared_dir / "data/vbox/sonoma_vbox0240.csv", st).session_id
    laps = [r for r in pq.read_table(table_path(st.lake_dir, sid, "laps")).to_pylist() if r["kind"] == "full"]
    track = load_track("sonoma")
    need = (max(len(t.split()) for t in TEMPLATES.values() if "{corner}" in t) + 2) * 0.15 + SAFETY_MARGIN_S
    without = []
    for lp in laps:
        t = pq.read_table(lap_path(st.lake_dir, sid, lp["lap"])).to_pydict()
        arb = CoachArbiter(track)
        for i in range(len(t["t_s"])):
            brake, g = t["brake_bar"][i], t["g_lat"][i]
            arb.tick(
                FrameState(
                    t["t_s"][i],
                    lp["lap"],
                    t["dist_m"][i],
                    t["speed_kmh"][i],
                    brake or 0.0,
                    g or 0.0,
                    None,
                    0.0,
                )
            )
        assert arb.profile is not None
        without.append(
            [
                c.id
                for c in track.corners
                if not isinstance(arb.profile.window(arb.entry_of[arb.group_of[c.id]], need), tuple)
            ]
        )
    assert len(laps) == 8 and max(len(w) for w in without) <= 2, without  # at 0.3 g: up to 9 of 13

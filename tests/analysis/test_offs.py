"""A stop, a spin or an off at a corner is said, never ranked as time to find.

The real MyChron kart session: on one lap the kart all but stops (the raw file's GPS speed falls to walking
pace inside a racing lap). Before, that lap's 8 s at one corner made the corner the session's first thing
to fix ("carry 35 km/h more through C7"). Truth is the raw Race Studio CSV: which racing lap (by the file's
own beacon markers) falls under 10 km/h, and each lap's minimum there."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from shared.analysis.model import OFF, CornerLap
from shared.analysis.session import SessionAnalysis
from shared.analysis.stored import analyse_stored
from shared.analysis.summary import corner_summaries, where_the_time_is
from shared.ingest import import_file
from shared.settings import settings_for
from shared.thresholds import DEFAULT_THRESHOLDS
from tests.support.truth import aim_truth

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"
STOP_KMH = DEFAULT_THRESHOLDS["off_kmh"]


@pytest.fixture(scope="module")
def kart(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[CornerLap], list[int]]:
    """The analysis's rows, and the racing laps where the raw file's speed falls under ``STOP_KMH``."""
    raw = aim_truth(shared_dir / KART, "kart")
    speed = raw.channels["GPS Speed"]
    stopped = [lp.lap for lp in raw.racing if float(np.min(speed[raw.in_lap(lp)])) < STOP_KMH]
    settings = settings_for(tmp_path_factory.mktemp("kart") / "data")
    sid = import_file(shared_dir / KART, settings, driver_id="kart").session_id
    con = duckdb.connect(str(settings.hot_db_path), read_only=True)
    try:
        an = analyse_stored(con, sid, settings.data_dir)
    finally:
        con.close()
    return an.rows, stopped


def test_the_lap_that_stopped_is_an_off_at_one_corner(kart: tuple[list[CornerLap], list[int]]) -> None:
    rows, stopped = kart
    assert len(stopped) == 1  # the raw file: one racing lap falls to walking pace
    inc = [r for r in rows if r.cause == OFF]
    assert [r.lap for r in inc] == stopped
    (r,) = inc
    assert r.min_kmh < STOP_KMH
    assert r.typ_min_kmh > 2 * STOP_KMH
    assert f"minimum {r.min_kmh:.0f} km/h" in r.evidence
    # every other lap at that corner goes on at racing speed: none of them is an off
    others = [x for x in rows if x.corner_id == r.corner_id and x.lap != r.lap]
    assert others and all(x.cause != OFF and x.min_kmh > 2 * STOP_KMH for x in others)


def test_an_off_is_never_ranked_as_time_to_find(kart: tuple[list[CornerLap], list[int]]) -> None:
    rows, stopped = kart
    (r,) = [x for x in rows if x.cause == OFF]
    an = SessionAnalysis(rows=rows)
    summaries = {s.corner_id: s for s in corner_summaries(an)}
    s = summaries[r.corner_id]
    assert s.offs == stopped
    assert r.lap not in s.laps
    # its time to find comes from the laps that did not stop: the median of their own losses
    lost = [x.loss_s for x in rows if x.corner_id == r.corner_id and x.cause and x.cause != OFF]
    assert s.per_lap_s == pytest.approx(float(np.median(lost)) if lost else 0.0)
    assert s.session_s == pytest.approx(sum(lost))
    assert s.session_s < r.loss_s  # with the stop counted the corner would rank on it
    top = where_the_time_is(an)
    assert all(r.lap not in t.laps or t.corner_id != r.corner_id for t in top)


def test_the_debrief_says_an_off_and_keeps_it_out_of_the_focus() -> None:
    from services.paddock.agents.coaching_lines import offs_sentence
    from services.paddock.agents.narrative import template_narrative

    off = {
        "lap": 7,
        "corner": "C7",
        "corner_id": "C7",
        "evidence": "11.4 s through C7 where your good laps take 3.5 s, minimum 0 km/h",
    }
    said = "Left out of where the time is, as a spin, an off or a stop: lap 7 at C7 (11.4 s through C7"
    assert offs_sentence({"offs": []}) == [] and offs_sentence({}) == []
    (line,) = offs_sentence({"offs": [off]})
    assert line.startswith(said) and line.endswith("minimum 0 km/h).")
    text, focus = template_narrative("debrief", {"opportunities_data": {"opportunities": [], "offs": [off]}})
    assert said in text and focus == []

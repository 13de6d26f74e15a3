"""A driver shares a session with a coach and deletes one from the tablet (headless Debian Chromium,
real paddock and hot path processes), at a phone's and a tablet's size."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import start_hotpath, start_paddock

pytestmark = [
    pytest.mark.browser,
]


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    """Before any other module fixture: skip, or fail when PITWALL_REQUIRE_BROWSER=1."""
    needs_chromium()


@pytest.fixture()
def stack(tmp_path: Path) -> Any:
    data = tmp_path / "data"
    settings = settings_for(data)
    sids = []
    for seed in (3, 4):
        sim = simulate(laps=2, seed=seed, rate_hz=10, scenario=Scenario.clean(2))
        if seed == 4:  # a logger without pedal sensors
            for ch in ("throttle_pct", "brake_bar"):
                sim.wide[ch] = np.full_like(sim.wide[ch], np.nan)
        sids.append(import_sim(sim, settings, "ana").session_id)
    hot = start_hotpath(data, tmp_path)
    pad = start_paddock(data, tmp_path, "http://127.0.0.1:9/v1", {"PITWALL_HOTPATH_URL": hot.url})
    yield {"pad": pad, "sids": sids, "dir": tmp_path}
    pad.stop()
    hot.stop()


@pytest.mark.parametrize("size", [(390, 844), (1280, 900)])
def test_share_with_a_coach_then_delete(stack: Any, size: tuple[int, int]) -> None:
    pad, (keep, gone) = stack["pad"], stack["sids"]
    with chromium() as b:
        ctx = b.new_context(
            viewport={"width": size[0], "height": size[1]}, service_workers="block", accept_downloads=True
        )
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{pad.url}/#/session/{gone}")
        page.wait_for_selector("#export")
        with page.expect_download() as dl:
            page.click("#export")
        saved = stack["dir"] / f"got-{size[0]}.pitwall"
        dl.value.save_as(saved)
        with zipfile.ZipFile(saved) as zf:
            assert {"manifest.json", "report.html", "lake/session.parquet"} <= set(zf.namelist())
        assert (
            page.locator("#export").bounding_box()["x"] + page.locator("#export").bounding_box()["width"]
            <= size[0]
        )
        page.on("dialog", lambda d: d.accept())
        page.click("#delete")
        page.wait_for_selector("#sessions")
        listed = page.locator("#sessions tr[data-sid]").evaluate_all("rs => rs.map(r => r.dataset.sid)")
        assert listed == [keep]
        assert not errors, errors
    assert httpx.get(f"{pad.url}/sessions/{gone}", timeout=10).status_code == 404
    r = httpx.get(f"{pad.url}/sessions/{keep}/report", timeout=30)
    assert r.status_code == 200 and "<svg" in r.text and "<script" not in r.text


def test_a_channel_the_session_lacks_is_said_not_drawn_as_zero(stack: Any) -> None:
    pad, (_, no_pedals) = stack["pad"], stack["sids"]
    with chromium() as b:
        page = b.new_page(viewport={"width": 1024, "height": 800})
        page.goto(f"{pad.url}/#/session/{no_pedals}")
        page.wait_for_selector("#not-recorded")
        note = page.locator("#not-recorded").inner_text()
        labels = page.locator("#overlay-pedals polyline").evaluate_all("ps => ps.map(p => p.dataset.label)")
    assert "throttle" in note and "brake pressure" in note and labels == []


def test_compare_with_another_sessions_lap(stack: Any) -> None:
    """The overlay's reference can be another session's best lap (a friend's, another day's), by distance."""
    pad, (sid, other) = stack["pad"], stack["sids"]
    best = httpx.get(f"{pad.url}/sessions/{other}", timeout=10).json()["best_lap"]
    with chromium() as b:
        page = b.new_page(viewport={"width": 1024, "height": 800})
        page.goto(f"{pad.url}/#/session/{sid}")
        page.wait_for_selector("#corner-table tbody tr")
        page.select_option("#lapA", f"{other}:{best}")
        page.wait_for_function(
            f"(document.querySelector('#overlay-speed .legend')?.textContent || '').includes('ana') "
            f"&& document.querySelector('#corners-title').textContent.includes('lap {best}')"
        )
        head = page.locator("#corner-table thead").inner_text()
        deltas = page.locator("#corner-table tbody tr td:last-child").all_inner_texts()
        # any valid lap of that session, not only its best
        theirs = httpx.get(f"{pad.url}/sessions/{other}/laps", timeout=10).json()
        laps = [x["lap"] for x in theirs if x["kind"] == "full" and x["valid"]]
        assert page.locator("#refLap").is_visible()
        assert page.locator("#refLap option").evaluate_all("os => os.map(o => +o.value)") == laps
        pick = next(x for x in laps if x != best)
        page.select_option("#refLap", str(pick))
        page.wait_for_function(
            f"document.querySelector('#corners-title').textContent.includes('lap {pick})') "
            f"&& (document.querySelector('#overlay-speed .legend')?.textContent || '').includes('lap {pick}')"
        )
        page.select_option("#lapA", index=0)  # back to this session's own laps: no other session's lap list
        page.wait_for_function("document.getElementById('refLap').hidden")
    assert f"lap {best}" in head and "ana" in head
    assert sum(1 for d in deltas if d.strip() not in ("–", "")) >= 8  # corners matched across sessions

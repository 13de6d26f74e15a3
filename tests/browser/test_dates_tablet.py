"""The tablet says when a session's date is a guess: the real VBOX CSV (no date in the file, its
modification time set by the test) beside a simulated session (dated), on the sessions page and the
session page of a real paddock, in headless Chromium at phone width."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from shared.ingest import import_file, import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import start_paddock

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
VBOX = Path(__file__).resolve().parents[3] / "shared" / "data" / "vbox" / "sonoma_vbox0240.csv"
WHEN = datetime(2025, 6, 14, 9, 30)
GUESS = "no date in the file: guessed from the file's modification time"


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    needs_chromium()


def test_the_tablet_says_which_date_is_guessed(tmp_path: Path) -> None:
    if not VBOX.is_file():
        pytest.fail(f"{VBOX} is missing: the real VBOX log is part of the test data")
    csv = tmp_path / "sonoma.csv"
    csv.write_bytes(VBOX.read_bytes())
    os.utime(csv, (WHEN.timestamp(), WHEN.timestamp()))
    settings = settings_for(tmp_path / "data")
    undated = import_file(csv, settings, driver_id="ana", track_id="sonoma").session_id
    sim = import_sim(cached_sim(laps=3, seed=7), settings, driver_id="ana")
    pad = start_paddock(settings.data_dir, tmp_path, "http://127.0.0.1:9/v1")
    shots = Path(os.environ.get("PITWALL_SHOTS") or tmp_path)
    try:
        with chromium() as browser:
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
            page = ctx.new_page()
            page.goto(f"{pad.url}/#/")
            page.wait_for_selector("#sessions tbody tr", timeout=60_000)
            rows = {
                r.get_attribute("data-sid"): r.locator("td.name").inner_text()
                for r in page.locator("#sessions tbody tr").all()
            }
            assert "14 Jun 2025 09:30 (date guessed)" in rows[undated] and GUESS in rows[undated]
            assert "guessed" not in rows[sim.session_id]
            # the car by its name, never the generic profile's
            assert "2003 BMW M3 (E46)" in rows[sim.session_id] and "AiM MXP" not in rows[sim.session_id]
            assert "car not named in the file" in rows[undated] and "Generic" not in rows[undated]
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            page.screenshot(path=str(shots / "sessions-dates-390.png"), full_page=True)
            page.goto(f"{pad.url}/#/session/{undated}")
            page.wait_for_selector("#laps tbody tr, h1 + p", timeout=60_000)
            head = page.locator("h1").first.inner_text() + " " + page.locator("h1 + p").first.inner_text()
            assert "14 Jun 2025 09:30 (date guessed)" in head and GUESS in head
            ctx.close()
    finally:
        pad.stop()

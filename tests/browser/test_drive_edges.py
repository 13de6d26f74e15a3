"""The drive screen at a session's edges, in headless Chromium on a real hot path: the real VBOX log's
first 280 s (the stub from the paddock to the pit exit, the out-lap that leaves the pit lane beside the
line, the first full lap and a little of the next) replayed at 40x with a gold lap saved from the same
log. Every text the delta and the lap times show is recorded by an init script as it changes.

The truth comes from the raw samples (``tests/support/own_delta.py``'s own line crossings), not from
Pitwall's lap code: the out-lap shows "out lap", never a number against the gold lap; LAST LAP is only
the full lap's time; after the session the delta, lap and predicted times are cleared.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from services.hotpath.replay import replay_ws, wide_from_file
from shared.ingest import import_file
from shared.profiles.track import load_track
from shared.settings import settings_for
from shared.store.gold import save_gold_lap
from tests.support.browser import chromium, needs_chromium
from tests.support.delta_replay import VBOX
from tests.support.own_delta import own_laps
from tests.support.procs import start_hotpath

pytestmark = [pytest.mark.browser]
RECORD = """
window.__seen = {delta: [], "last-lap": [], "lap-time": [], predicted: []};
document.addEventListener("DOMContentLoaded", () => {
  for (const id of Object.keys(window.__seen)) {
    const el = document.getElementById(id);
    const keep = () => window.__seen[id].push(el.textContent);
    new MutationObserver(keep).observe(el, {childList: true, characterData: true, subtree: true});
  }
});
"""
NONE = "–:––.–"


def _secs(text: str) -> float:
    m, s = text.split(":")
    return int(m) * 60 + float(s)


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    needs_chromium()


def test_out_lap_last_lap_and_session_over_on_the_drive_screen(tmp_path: Path) -> None:
    if not VBOX.is_file():
        pytest.fail(f"{VBOX} is missing: the real VBOX log is part of the test data")
    data = tmp_path / "data"
    settings = settings_for(data)
    res = import_file(VBOX, settings, driver_id="ana", track_id="sonoma")
    save_gold_lap(settings, "sonoma", "ana", res.session_id, 3)
    wide = wide_from_file(VBOX)
    part = {k: v[wide["t_s"] <= 280.0] for k, v in wide.items()}
    sf = load_track("sonoma").start_finish
    mine = own_laps(part["t_s"], part["lat"], part["lon"], (sf.lat, sf.lon, sf.heading_deg))
    assert len(mine.crossings) == 3  # pit exit, the out-lap's end, the first full lap's end
    full_s = mine.time(1)

    hot = start_hotpath(data, tmp_path)
    shots = Path(os.environ.get("PITWALL_SHOTS") or tmp_path)
    try:
        with chromium() as browser:
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
            ctx.add_init_script(RECORD)
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{hot.url}/drive")
            page.wait_for_function("!!window.pitwallDrive")
            page.click("#unlock")
            start: dict[str, Any] = {"driver_id": "ana", "track": "sonoma", "car": res.car}
            ws = hot.url.replace("http://", "ws://") + "/ingest/ws"
            # in its own thread: Playwright's sync API owns this thread's event loop
            th = threading.Thread(target=lambda: asyncio.run(replay_ws(part, ws, speed=40, start=start)))
            th.start()
            while th.is_alive():
                th.join(0.05)
            page.wait_for_function(
                "document.getElementById('delta').textContent === 'Session over'", timeout=15000
            )
            seen: dict[str, list[str]] = page.evaluate("window.__seen")
            page.screenshot(path=str(shots / "drive-session-over-390x844.png"))
            assert not errors, errors
    finally:
        hot.stop()

    deltas = [t for t in seen["delta"] if t]
    assert "out lap" in deltas and deltas[-1] == "Session over"
    numbers = [i for i, t in enumerate(deltas) if t[0] in "+−±"]
    outs = [i for i, t in enumerate(deltas) if t == "out lap"]
    # the out-lap is never compared with the gold lap; the full lap after it is
    assert numbers and max(outs) < min(numbers), deltas
    shown = {t for t in seen["last-lap"] if t != NONE}
    assert len(shown) == 1 and _secs(shown.pop()) == pytest.approx(full_s, abs=0.01)
    # after the session nothing is being timed: no lap or predicted time left on the screen
    assert seen["lap-time"][-1] == NONE and seen["predicted"][-1] == NONE

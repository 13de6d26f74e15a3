"""The drive screen reads at a glance on a phone held upright and on its side (360x780, 390x844, 844x390):
the delta and the cue fit, the track has a name, no ids or counters, no delta on an out-lap, and a clear
end-of-session state (headless Debian Chromium, a real hot path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.browser import chromium, needs_chromium
from tests.support.procs import start_hotpath

pytestmark = [
    pytest.mark.browser,
]
SIZES = [(360, 780), (390, 844), (844, 390)]
FITS = """(id) => { const e = document.getElementById(id); const r = e.getBoundingClientRect();
  return r.left >= 0 && r.right <= innerWidth + 0.5 && e.scrollWidth <= e.clientWidth + 1; }"""


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    """Before any other module fixture: skip, or fail when PITWALL_REQUIRE_BROWSER=1."""
    needs_chromium()


@pytest.fixture(scope="module")
def hot(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d = tmp_path_factory.mktemp("drivefit")
    svc = start_hotpath(d / "data", d)
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as b:
        yield b


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_drive_screen_fits_and_ends_clearly(hot: Any, browser: Any, size: tuple[int, int]) -> None:
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, service_workers="block")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{hot.url}/drive")
        page.wait_for_function("!!window.pitwallDrive")
        page.click("#unlock")
        sid = httpx.post(f"{hot.url}/session/start", json={"driver_id": "ana", "track": "sonoma"}).json()[
            "session_id"
        ]
        page.wait_for_function(
            "document.getElementById('session').textContent === 'Sonoma Raceway'", timeout=10000
        )
        ref = {"source": "session_best", "lap": 2, "time_s": 108.2}
        page.evaluate(
            "(d) => window.pitwallDrive.handleDelta(d)",
            {"lap": 1, "lap_kind": "out", "delta_s": None, "reference": ref},
        )
        assert page.locator("#delta").inner_text() == "out lap"
        for delta in (68.56, -0.42, -128.0, 1.234):
            page.evaluate(
                "(d) => window.pitwallDrive.handleDelta(d)", {"lap": 3, "delta_s": delta, "reference": ref}
            )
            assert page.evaluate(FITS, "delta"), (size, delta, page.locator("#delta").inner_text())
        assert page.locator("#delta").inner_text() == "+1.23"
        for source, words in (("last_lap", "last lap"), ("chosen", "chosen lap"), ("gold", "gold lap")):
            d = {"lap": 3, "delta_s": 0.5, "reference": {**ref, "source": source}}
            page.evaluate("(d) => window.pitwallDrive.handleDelta(d)", d)
            assert page.locator("#ref-label").inner_text() == f"{words} 1:48.200", source
        long_cue = {"session_id": sid, "phrase_id": "x", "priority": 2, "speak_by": None, "speak_s": 2.0}
        text = "Off the throttle too early out of Turn 11, hold it to the line"
        page.evaluate("(c) => window.pitwallDrive.handleCue(c)", {**long_cue, "text": text})
        assert page.locator("#cue").inner_text() == text and page.evaluate(FITS, "cue")
        for el in ("delta", "times", "cue", "status-bar"):
            box = page.locator(f"#{el}").bounding_box()
            assert box is not None and box["y"] + box["height"] <= size[1] + 1, (el, box)
        visible = page.locator("#drive").inner_text()
        assert sid not in visible and "late" not in visible and "voices" not in visible
        httpx.post(f"{hot.url}/session/{sid}/end", timeout=30)
        page.wait_for_function(
            "document.getElementById('delta').textContent === 'Session over'", timeout=10000
        )
        assert page.locator("#delta").get_attribute("class") == "ended" and page.evaluate(FITS, "delta")
        assert "ended" in page.locator("#session").inner_text()
        page.evaluate(
            "(d) => window.pitwallDrive.handleDelta(d)", {"lap": 3, "delta_s": 68.56, "reference": ref}
        )
        assert page.locator("#delta").inner_text() == "Session over"  # no stale red number after the end
        page.screenshot(path=str(Path(hot.log).parent / f"drive-{size[0]}x{size[1]}.png"))
    finally:
        ctx.close()
    assert not errors, errors

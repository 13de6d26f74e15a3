"""Markup in every name a file or a bundle can set never runs and shows as the text it is, on every page
and view (headless Debian Chromium, real paddock and hot path processes).

A friend's session whose driver id is a payload (as a friend's bundle brings it) is the overlay's
reference; an AiM CSV whose header rows name the driver, car, track and comment with payloads, under a
file name that is one too, is listed, opened, asked about, debriefed and reported. Each payload would set
``window.__pwned`` to the field it came in; the check is that it stays unset and that the text is on the
page literally (an HTML-string sink would have turned it into an element instead)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.ingest import import_file, import_sim
from shared.profiles.track import load_track, save_track
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import start_hotpath, start_paddock

pytestmark = [pytest.mark.browser]
REPO = Path(__file__).resolve().parents[2]
FIELDS = {"Racer": "driver", "Vehicle": "car", "Session": "track", "Comment": "comment"}


def payload(field: str) -> str:
    return f"<img src=x onerror=\"window.__pwned='{field}'\">"


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    """Before any other module fixture: skip, or fail when PITWALL_REQUIRE_BROWSER=1."""
    needs_chromium()


def _crafted_csv(shared: Path, into: Path) -> Path:
    """A real AiM CSV export whose header rows name everything with payloads, saved under a payload."""
    lines = (shared / "data/aim/scut_fsev_du.csv").read_text(encoding="utf-8").splitlines(True)
    head = []
    for line in lines[:14]:
        key = line.split(",", 1)[0].strip('"')
        if key in FIELDS:
            line = f'"{key}","{payload(FIELDS[key]).replace(chr(34), chr(34) * 2)}"\n'
        head.append(line)
    path = into / f"{payload('file')}.csv"
    path.write_text("".join(head + lines[14:]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Any:
    tmp = tmp_path_factory.mktemp("inject")
    data = tmp / "data"
    settings = settings_for(data)
    mine = import_sim(simulate(laps=3, seed=3, rate_hz=10, scenario=Scenario.clean(3)), settings, "ana")
    friend = import_sim(
        simulate(laps=3, seed=4, rate_hz=10, scenario=Scenario.clean(3)), settings, payload("friend")
    )
    named = import_file(_crafted_csv(shared_dir, tmp), settings)
    # a track stored from a bundle (shared/bundle.py saves the tracks a bundle carries) named by a payload
    save_track(
        data, load_track("sonoma").model_copy(update={"id": "crafted-track", "name": payload("drive")})
    )
    hot = start_hotpath(data, tmp)
    env = {"PITWALL_HOTPATH_URL": hot.url, "PITWALL_LLM_WARMUP": "false"}
    pad = start_paddock(data, tmp, "http://127.0.0.1:9/v1", env)
    yield {
        "pad": pad,
        "hot": hot,
        "mine": mine.session_id,
        "friend": friend.session_id,
        "named": named.session_id,
    }
    pad.stop()
    hot.stop()


def _safe(page: Any, *texts: str, where: str = "body") -> None:
    """Nothing ran, no element came from a payload, and every text is on the page as text."""
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("document.querySelectorAll('img[onerror], [onerror]').length") == 0
    shown = page.locator(where).first.inner_text()
    for t in texts:
        assert t in shown, (t, shown[:500])


def test_no_name_from_a_file_or_bundle_runs_anywhere(stack: Any) -> None:
    pad, named, friend, mine = stack["pad"], stack["named"], stack["friend"], stack["mine"]
    file_name = f"{payload('file')}.csv"
    with chromium() as b:
        page = b.new_context(viewport={"width": 1280, "height": 900}, service_workers="block").new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{pad.url}/#/")  # the session list
        page.wait_for_selector("#sessions")
        _safe(page, payload("driver"), payload("track"), payload("car"), file_name, payload("friend"))

        page.goto(f"{pad.url}/#/session/{named}")  # the session page
        page.wait_for_selector("#laps")
        _safe(page, payload("driver"), payload("track"), payload("car"), file_name)
        _safe(page, f"{payload('track')} · ", where="h1")

        page.goto(f"{pad.url}/#/session/{mine}")  # the overlay, the friend's best lap as the reference
        page.wait_for_selector("#lapA optgroup[label^='Other sessions']", state="attached")
        options = page.locator("#lapA option").all_text_contents()
        assert any(o.startswith(f"{payload('friend')} · ") for o in options), options
        ref = page.locator("#lapA option", has_text=payload("friend")).first.get_attribute("value")
        page.select_option("#lapA", ref)
        page.wait_for_function(
            "document.querySelector('#overlay-speed .legend')?.innerText.includes('window.__pwned')"
        )
        legend = page.locator("#overlay-speed .legend").inner_text()
        assert legend.startswith(f"{payload('friend')} ") and "(reference)" in legend
        _safe(page, f"Δ against {payload('friend')}", where="#corners-title")
        _safe(page, f"Δ s vs {payload('friend')}", where="#corner-table")

        page.goto(f"{pad.url}/#/ask/{named}")  # ask: the session picker names the session
        page.wait_for_selector("#ask-session")
        picked = page.locator("#ask-session option").all_text_contents()
        assert f"{payload('track')} · " in "".join(picked) and payload("driver") in "".join(picked)
        _safe(page)

        page.goto(f"{pad.url}/#/debrief/{friend}")  # the debrief: its title and its cards
        page.wait_for_selector("#state[data-done='1']", timeout=120_000)
        assert page.locator("#data .data-card").count() >= 5
        _safe(page, payload("friend"), where="h1")

        page.goto(f"{pad.url}/#/cues/{named}")  # the cue log
        page.wait_for_selector("#cue-table")
        _safe(page, payload("track"), where="h1")

        page.goto(f"{pad.url}/sessions/{named}/report")  # the report a coach opens
        _safe(page, payload("driver"), payload("track"), payload("car"), file_name)

        live = httpx.post(
            f"{stack['hot'].url}/session/start",
            timeout=30,
            json={"driver_id": payload("live"), "car": "bmw_e46_m3_aim_mxp", "track": "crafted-track"},
        )
        assert live.status_code == 200, live.text
        page.goto(f"{stack['hot'].url}/drive")  # the drive screen names the live session's track
        page.wait_for_function("() => document.getElementById('session').textContent.includes('__pwned')")
        _safe(page, payload("drive"), where="#session")
        assert not errors, errors
    assert httpx.get(f"{pad.url}/sessions/{named}", timeout=10).json()["driver_name"] == payload("driver")

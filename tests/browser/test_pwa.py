"""The tablet PWA in headless Chromium (Debian's package at /usr/bin/chromium), driven by Playwright.

A real paddock process serves the app over a lake with simulated sessions; a real scripted model server
answers with slow token streams, so the tests can watch text arrive before ``done``.
"""

from __future__ import annotations

import io
import json
import re
import time
from typing import Any

import httpx
import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import ScriptedLLMProcess, Service, start_paddock


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    """Before any other module fixture: skip, or fail when PITWALL_REQUIRE_BROWSER=1."""
    needs_chromium()


NARRATIVE = "(document.getElementById('narrative')?.textContent || '')"  # null-safe while the screen loads


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d = tmp_path_factory.mktemp("pwa")
    data = d / "data"
    res = import_sim(cached_sim(laps=5, seed=7), settings_for(data), driver_id="ana")
    llm = ScriptedLLMProcess(d, token_delay_s=0.03)
    pad = start_paddock(data, d, llm.url)
    box = {"pad": pad, "llm": llm, "sid": res.session_id, "data": data, "dir": d}
    yield box
    box["pad"].stop()
    llm.stop()


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Any:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()
    assert not errors, errors  # no uncaught JavaScript errors on any screen


def _script(stack: Any, steps: list[dict[str, Any]]) -> None:
    """The scripted model's next replies, and only these: nothing left over from an earlier test."""
    llm = stack["llm"].url.removesuffix("/v1")
    httpx.delete(f"{llm}/_scripted/script")
    httpx.post(f"{llm}/_scripted/script", json=steps)


def _pixels(png: bytes) -> list[tuple[int, int, int]]:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    raw = img.tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def _near(pixels: list[tuple[int, int, int]], rgb: tuple[int, int, int], tol: int = 40) -> int:
    return sum(1 for p in pixels if abs(p[0] - rgb[0]) + abs(p[1] - rgb[1]) + abs(p[2] - rgb[2]) <= tol)


def test_session_page_draws_laps_charts_map_and_corners(stack, page) -> None:
    pad, sid = stack["pad"].url, stack["sid"]
    page.goto(f"{pad}/")
    page.wait_for_selector("#sessions tbody tr")
    page.click(f"#sessions tr[data-sid='{sid}']")
    page.wait_for_selector("#corner-table tbody tr")
    laps = page.locator("#laps tbody tr")
    assert laps.count() >= 5 and page.locator("#laps tr.best").count() == 1
    # structure, not pixels: the overlay has two speed lines with hundreds of points, the delta line exists
    speed = page.locator("#overlay-speed polyline")
    assert speed.count() == 2 and all(int(speed.nth(i).get_attribute("data-points")) > 200 for i in range(2))
    assert page.locator("#overlay-pedals polyline").count() == 4
    assert int(page.locator("#overlay-delta polyline").get_attribute("data-points")) > 200
    assert int(page.locator("#trackmap svg").get_attribute("data-segments")) > 200
    assert page.locator("#lapchart rect[data-label]").count() >= 5
    assert page.locator("#corner-table tbody tr").count() >= 10
    # the screenshot, compared structurally: the speed chart shows both series' colours on a dark panel
    px = _pixels(page.locator("#overlay-speed svg").screenshot())
    assert _near(px, (76, 194, 255)) > 300 and _near(px, (245, 165, 36)) > 300  # both laps' lines drawn
    assert sum(1 for p in px if sum(p) < 150) > 0.6 * len(px)  # on the dark panel, not a blank or error page
    # changing the compared lap redraws the overlay
    page.select_option("#lapB", "3")
    page.wait_for_function(
        "(document.querySelector('#overlay-speed .legend')?.textContent || '').includes('lap 3')"
    )


def test_debrief_streams_tokens_before_done(stack, page) -> None:
    pad, sid = stack["pad"].url, stack["sid"]
    _script(stack, [])  # the model's own reply: fact picks under the request's schema, streamed word by word
    page.goto(f"{pad}/#/debrief/{sid}")
    # narrative text is on screen while the debrief is still running
    page.wait_for_function(
        f"{NARRATIVE}.length > 0 && !document.getElementById('state')?.dataset.done", timeout=30000
    )
    page.wait_for_selector("#state[data-done='1']", timeout=60000)
    kinds = [e["type"] for e in page.evaluate("window.pitwallEvents")]
    assert kinds[0] == "phase" and kinds[-1] == "done" and kinds.index("token") < kinds.index("done")
    assert max(i for i, k in enumerate(kinds) if k == "data") < kinds.index("token")
    assert page.locator(".data-card").count() == 11 and page.locator(".data-card svg").count() >= 1
    assert page.locator("#phases li.finished").count() >= 1
    assert "on the next run" in page.locator("#narrative").inner_text()  # a note of the model's picks
    assert page.locator("#template-note").count() == 0


def test_template_and_ungrounded_states_are_labelled(stack, page) -> None:
    """A reply that names a lap and a time the session does not have is not shown: the debrief is written
    from the data, labelled, and says why; a failing model server gets the same label."""
    pad, sid = stack["pad"].url, stack["sid"]
    _script(stack, [{"text": "Lap 42 at T9 was a 99.123 s lap. [EMOTION:neutral]"}])
    page.goto(f"{pad}/#/debrief/{sid}")
    page.wait_for_selector("#state[data-done='1']", timeout=60000)
    note = page.locator("#template-note").inner_text()
    assert "not by the model" in note and "lap 42" in note
    assert "99.123" not in page.locator("#narrative").inner_text()
    _script(stack, [{"status": 500}])
    page.goto(f"{pad}/#/")
    page.goto(f"{pad}/#/debrief/{sid}")
    page.wait_for_selector("#template-note", timeout=60000)
    assert "not by the model" in page.locator("#template-note").inner_text()


def _ask_race_pace(stack: Any, page: Any, query: str = "") -> str:
    """The race-pace topic picked and a question asked on the Ask page (``query``: e.g. ``?debug=1``);
    the page's text once the answer is done."""
    _script(stack, [])
    page.goto(f"{stack['pad'].url}/{query}#/ask/{stack['sid']}")
    page.wait_for_selector("#intent option[value='race_pace']", state="attached")
    page.select_option("#intent", "race_pace")
    page.fill("#question", "how is my pace holding up?")
    page.click("#ask-btn")
    page.wait_for_selector(".msg.assistant[data-done='1']", timeout=60000)
    return page.locator("#view").inner_text()


def test_ask_a_question_with_the_intent_picker(stack, page) -> None:
    """The picked intent routes the question (here one with no lap or corner word): its specialist's tool
    runs and the model's picks of its facts answer; ``?debug=1`` shows the agent and tool behind it."""
    _ask_race_pace(stack, page, "?debug=1")
    answer = page.locator(".msg.assistant").inner_text()
    assert "RacePaceAgent" in answer and "get_race_pace_model" in answer, answer
    assert "work next" in answer, answer  # the model's picks, not a refusal
    assert "only answer questions" not in answer
    # a driver's view names no agent or tool, in the answer or the topic picker
    shown = _ask_race_pace(stack, page)
    assert "work next" in shown and not re.search(r"[A-Z][a-z]+Agent\b|\bget_[a-z_]+", shown), shown
    assert page.locator("a[href='#/traces']").is_hidden()


def test_cue_log_and_traces_screens(stack, page) -> None:
    pad, sid = stack["pad"].url, stack["sid"]
    page.goto(f"{pad}/#/cues/{sid}")
    page.wait_for_selector("#cue-table")
    shown = page.locator("#view").inner_text()
    assert sid not in shown and "Sonoma" in shown and "_" not in shown  # a track and words, no ids
    assert re.search(r"\d+ cues? spoken", shown)
    page.goto(f"{pad}/#/traces")
    page.wait_for_selector("#trace-table tbody tr")
    assert page.locator("#trace-table tbody tr").count() >= 5


def test_app_survives_the_paddock_restarting_mid_stream(stack, page) -> None:
    pad, sid = stack["pad"], stack["sid"]
    note = " ".join(["keep it smooth and patient on the throttle"] * 6)  # 4 picks x ~55 words x 30 ms: ~7 s
    picks = ", ".join(json.dumps({"fact": f"f{i}", "note": note}) for i in range(1, 5))
    _script(stack, [{"text": f'{{"emotion": "neutral", "answer": [{picks}]}}'}])
    page.goto(f"{pad.url}/#/debrief/{sid}")
    page.wait_for_function(f"{NARRATIVE}.length > 20", timeout=30000)
    pad.stop()  # the paddock goes away mid-stream
    try:
        page.wait_for_function(
            "document.getElementById('banner').textContent.includes('Lost the connection')", timeout=20000
        )
        assert page.locator("#banner.error").is_visible()
        time.sleep(1.0)
    finally:  # back up whatever happened, for the module's later tests
        stack["pad"] = start_paddock(stack["data"], stack["dir"], stack["llm"].url, port=pad.port)
    page.wait_for_selector("#state[data-done='1']", timeout=90000)
    kinds = [e["type"] for e in page.evaluate("window.pitwallEvents")]
    assert "disconnected" in kinds and "reconnected" in kinds and kinds[-1] == "done"
    assert "Reconnected" in page.locator("#banner").inner_text()


def test_shell_is_installable_and_open_without_a_token(stack) -> None:
    pad = stack["pad"].url
    m = httpx.get(f"{pad}/manifest.webmanifest")
    assert m.status_code == 200 and m.json()["start_url"] == "/" and m.json()["display"] == "standalone"
    sw = httpx.get(f"{pad}/sw.js")
    assert sw.status_code == 200 and "caches.open" in sw.text and "javascript" in sw.headers["content-type"]
    html = httpx.get(f"{pad}/").text
    assert "https://" not in html and "http://" not in html  # no CDN: works with no internet access
    for f in ("app.js", "charts.js", "sse.js", "app.css"):
        body = httpx.get(f"{pad}/static/{f}").text
        assert "https://" not in body and not re.search(r"(src|href|import|fetch)\W+http", body), f
    assert isinstance(Service, type)


OVERFLOW = """() => ({
  page: document.documentElement.scrollWidth - window.innerWidth,
  cards: [...document.querySelectorAll('.card')].filter((c) => c.scrollWidth > c.clientWidth + 1)
    .map((c) => (c.querySelector('h1,h2') || c).textContent.slice(0, 60)),
})"""


@pytest.mark.parametrize("width", [768, 1024, 1280])
def test_every_screen_fits_a_tablet_without_sideways_scrolling(stack, browser, width: int) -> None:
    pad, sid = stack["pad"].url, stack["sid"]
    ctx = browser.new_context(viewport={"width": width, "height": 900}, service_workers="block")
    pg = ctx.new_page()
    try:
        screens = [
            ("#/", "#sessions tbody tr"),
            (f"#/session/{sid}", "#corner-table tbody tr"),
            (f"#/debrief/{sid}", "#state[data-done='1']"),
            (f"#/ask/{sid}", "#intent"),
            (f"#/cues/{sid}", "#cue-table"),
        ]
        for route, ready in screens:
            pg.goto(f"{pad}/{route}")
            pg.wait_for_selector(ready, timeout=60000)
            got = pg.evaluate(OVERFLOW)
            assert got["page"] <= 0, f"{route} scrolls sideways by {got['page']} px at {width} px"
            assert got["cards"] == [], f"{route}: content spills out of {got['cards']} at {width} px"
    finally:
        ctx.close()


def test_sessions_cards_tables_and_map_are_labelled_for_people(stack, page) -> None:
    pad, sid = stack["pad"].url, stack["sid"]
    page.goto(f"{pad}/")
    page.wait_for_selector("#sessions tbody tr")
    name = page.locator(f"#sessions tr[data-sid='{sid}'] td.name").inner_text()
    assert "Sonoma" in name and re.search(r"\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d", name) and "BMW" in name
    assert page.locator(f"#sessions tr[data-sid='{sid}'] td.name a").inner_text() != sid  # named, not an id
    page.goto(f"{pad}/#/session/{sid}")
    page.wait_for_selector("#corner-table tbody tr")
    head = page.locator("#corner-table thead").inner_text()
    lap_a = page.locator("#lapA").input_value().rsplit(":", 1)[1]  # "<session>:<lap>"
    assert "km/h" in head and f"vs lap {lap_a}" in head and "Brakes at, m" in head
    assert page.locator("#corners-title").inner_text().startswith("Corners, lap ")
    labels = page.locator("#trackmap text.corner-label").all_text_contents()
    assert (
        len(labels) >= 8
        and "T11" in labels
        and page.locator("#trackmap text.sf-label").text_content() == "S/F"
    )
    # lap times: the axis spans the laps' own range (a second shows), taller is slower, and text a person reads
    bars = page.evaluate(
        "[...document.querySelectorAll('#lapchart rect[data-label]')].map((r) => [+r.getAttribute('height'), +r.dataset.value])"
    )
    lo = float(page.locator("#lapchart svg").get_attribute("data-lo"))
    assert len(bars) >= 4 and 0 < lo < min(v for _, v in bars)
    assert [h for h, _ in sorted(bars, key=lambda b: b[1])] == sorted(h for h, _ in bars)
    px = page.evaluate(
        "[...document.querySelectorAll('#lapchart text')].map((t) => t.getBoundingClientRect().height)"
    )
    assert px and min(px) >= 10, px  # was ~6 px: a 900-unit drawing squeezed into a card
    assert re.search(r"\d:\d\d\.\d{3}", page.locator("#lapchart").inner_text())  # lap-time format on the axis
    page.goto(f"{pad}/#/debrief/{sid}")
    page.wait_for_selector("#state[data-done='1']", timeout=60000)
    titles = page.locator(".data-card h2").all_inner_texts()
    assert len(titles) == 11 and "Handling balance (understeer / oversteer)" in titles
    assert not [t for t in titles if re.search(r"[a-z][A-Z]|_| ms$", t)], titles  # no class names or keys
    keys = page.locator(".data-card dt").all_inner_texts()
    assert keys and not [k for k in keys if "_" in k], keys
    per_card = page.evaluate(
        """[...document.querySelectorAll('.data-card')].map((c) => [...c.querySelectorAll('rect[data-label]')]
             .map((r) => [+r.getAttribute('height'), +r.dataset.value]))"""
    )
    assert any(per_card)
    for bars in per_card:
        r = [h / v for h, v in bars if v > 0 and h > 2]
        assert not r or max(r) / min(r) < 1.01, bars

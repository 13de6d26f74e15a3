"""The tablet's debrief reads as a driver's summary, not a raw dump (headless Debian Chromium, a real
paddock process, no model: the template narrator): no session id in the cards, one "Best lap" row (the
lap and its time, checked against the simulator's own lap times), steps and topics named in words, never
by an agent's class name, every figure with its unit, and nothing wider than the screen, at a phone's
sizes (360×780, 390×844) and a tablet's (1024×768)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import start_paddock

pytestmark = [pytest.mark.browser]

SIZES = [(360, 780), (390, 844), (1024, 768)]
# rows whose figure is a count: the only ones shown without a unit
COUNTS = {"Valid laps", "Events", "Brake presses", "Lockups", "Wheelspin", "ABS", "DSC (stability control)"}
COUNTS |= {"Engine warning light", "TPMS alarms"}
CLASS_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")  # HighlightFinder, DebriefPipeline, ModelQueue


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    """Before any other module fixture: skip, or fail when PITWALL_REQUIRE_BROWSER=1."""
    needs_chromium()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("cards")
    sim = cached_sim(laps=5, seed=7)
    sid = import_sim(sim, settings_for(tmp / "data"), "ana").session_id
    # the same session as a logger without ABS and DSC channels would record it
    bare = replace(sim, wide={k: v for k, v in sim.wide.items() if k not in ("abs_active", "dsc_active")})
    bare_sid = import_sim(bare, settings_for(tmp / "data"), "bea").session_id
    pad = start_paddock(tmp / "data", tmp, "http://127.0.0.1:9/v1")  # no model: the template narrator
    yield {"pad": pad, "sid": sid, "sim": sim, "bare_sid": bare_sid}
    pad.stop()


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as b:
        yield b


def _lap(s: float) -> str:
    return f"{int(s // 60)}:{s % 60:06.3f}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_debrief_cards_read_as_a_drivers_summary(stack: Any, browser: Any, size: tuple[int, int]) -> None:
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, service_workers="block")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{stack['pad'].url}/#/debrief/{stack['sid']}")
        page.wait_for_selector("#state[data-done='1']", timeout=120_000)
        cards = page.locator(".data-card").evaluate_all(
            """cs => cs.map(c => ({title: c.querySelector('h2').textContent, text: c.innerText,
                 right: c.getBoundingClientRect().right,
                 rows: [...c.querySelectorAll('dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent])}))"""
        )
        steps = page.locator("#phases li").all_inner_texts()
        wide = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    finally:
        ctx.close()
    assert not errors, errors
    assert len(cards) == 11, [c["title"] for c in cards]
    rows = [r for c in cards for r in c["rows"]]
    for c in cards:
        assert stack["sid"] not in c["text"] and "Session id" not in c["text"], c
        assert not CLASS_NAME.search(c["title"]), c["title"]
        assert c["right"] <= size[0] + 0.5, (c["title"], c["right"])
    assert steps and not any(CLASS_NAME.search(s) for s in steps), steps
    assert wide <= 0, f"the page is {wide} px wider than the screen"
    # one "Best lap" row: the simulator's fastest full lap and its time
    best = min((x for x in stack["sim"].truth.laps if x["kind"] == "full"), key=lambda x: x["time_s"])
    best_rows = [v for k, v in rows if k == "Best lap"]
    assert len(best_rows) == 1, rows
    m = re.fullmatch(r"lap (\d+) · (\d+):(\d{2}\.\d{3})", best_rows[0])
    assert m is not None and int(m.group(1)) == best["lap"], best_rows
    assert abs(int(m.group(2)) * 60 + float(m.group(3)) - best["time_s"]) < 0.05, (
        best_rows,
        _lap(best["time_s"]),
    )
    # every figure says what it is in: a unit, a lap time, a lap, or it is a count
    for k, v in rows:
        if re.fullmatch(r"[-+]?\d+(?:\.\d+)?", v.strip()):
            assert k in COUNTS, (k, v)


def test_a_card_says_what_its_session_did_not_record_once(stack: Any, browser: Any) -> None:
    """A tool's ``not_recorded`` is a whole sentence: the card shows it as it is, never after a second
    "Not recorded:"."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    page = ctx.new_page()
    try:
        page.goto(f"{stack['pad'].url}/#/debrief/{stack['bare_sid']}")
        page.wait_for_selector("#state[data-done='1']", timeout=120_000)
        texts = page.locator(".data-card").all_inner_texts()
    finally:
        ctx.close()
    notes = [line for t in texts for line in t.splitlines() if "Not recorded" in line]
    assert "Not recorded in this session: ABS activity, DSC activity." in notes, notes
    assert not [n for n in notes if n.count("Not recorded") > 1], notes

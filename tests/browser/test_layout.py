"""Every page of the tablet app at phone and tablet widths, in headless Chromium: no sideways scroll, every
column that says where the time goes on screen without scrolling its table, chart labels inside their
chart. A screenshot of each page at each width is written beside the test's files (``PITWALL_SHOTS`` keeps
them in a folder of your choice)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.browser import chromium, needs_chromium
from tests.support.procs import start_paddock

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

WIDTHS = (360, 390, 768, 1024, 1280)
HEIGHT = {360: 740, 390: 844, 768: 1024, 1024: 768, 1280: 800}
# page -> (a table on it, the columns of that table that must be on screen without scrolling it)
PAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "sessions": ("sessions", ("Session", "Laps", "Best lap")),
    "session": ("laps", ("Lap", "Time", "Δ to best, s")),
    "corners": ("corner-table", ("Corner", "Min km/h", "Time, s", "Δ s vs")),
    "cues": ("cue-table", ("Lap", "Cue", "Said?", "Why not")),
    "ask": ("", ()),
}

_FITS = """([table, cols]) => {
  const vw = document.documentElement.clientWidth;
  const out = {pageOverflow: document.documentElement.scrollWidth - vw, cut: [], clipped: []};
  if (table) {
    const t = document.getElementById(table);
    if (!t) { out.cut.push("no table " + table); return out; }
    const wrap = t.closest(".table-wrap") || t.parentElement;
    const box = wrap.getBoundingClientRect();
    for (const th of t.querySelectorAll("thead th")) {
      const want = cols.find((c) => th.textContent.trim().startsWith(c));
      if (!want) continue;
      const r = th.getBoundingClientRect();
      if (r.width < 1 || r.left < box.left - 1 || r.right > Math.min(box.right, vw) + 1) out.cut.push(want);
    }
  }
  for (const svg of document.querySelectorAll("svg.chart")) {
    const b = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < b.left - 1 || r.right > b.right + 1)) out.clipped.push(t.textContent);
    }
  }
  return out;
}"""


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    needs_chromium()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d = tmp_path_factory.mktemp("layout")
    data = d / "data"
    sid = import_sim(cached_sim(laps=6, seed=7), settings_for(data), driver_id="ana").session_id
    pad = start_paddock(data, d, "http://127.0.0.1:9/v1")  # no model: the pages are the same
    shots = Path(os.environ.get("PITWALL_SHOTS") or d / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    try:
        with chromium() as browser:
            yield {"url": pad.url, "sid": sid, "browser": browser, "shots": shots}
    finally:
        pad.stop()


def _open(app: dict[str, Any], width: int, page_name: str) -> Any:
    ctx = app["browser"].new_context(
        viewport={"width": width, "height": HEIGHT[width]}, service_workers="block", device_scale_factor=1
    )
    pg = ctx.new_page()
    sid = app["sid"]
    route = {
        "sessions": "#/",
        "session": f"#/session/{sid}",
        "corners": f"#/session/{sid}",
        "cues": f"#/cues/{sid}",
        "ask": f"#/ask/{sid}",
    }[page_name]
    pg.goto(f"{app['url']}/{route}")
    table = PAGES[page_name][0]
    pg.wait_for_selector(f"#{table} tbody tr" if table else "#ask-form", timeout=60_000)
    if page_name == "session":
        pg.wait_for_selector("#lapchart svg", timeout=60_000)
    return ctx, pg


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_name", list(PAGES))
def test_every_page_fits_the_screen_with_the_numbers_that_matter(
    app: Any, page_name: str, width: int
) -> None:
    ctx, pg = _open(app, width, page_name)
    try:
        table, cols = PAGES[page_name]
        if page_name == "corners":
            pg.locator("#corner-table").scroll_into_view_if_needed()
        got = pg.evaluate(_FITS, [table, list(cols)])
        pg.screenshot(path=str(app["shots"] / f"{page_name}-{width}.png"), full_page=True)
        assert got["pageOverflow"] <= 0, (
            f"{page_name} at {width} px scrolls sideways by {got['pageOverflow']} px"
        )
        assert got["cut"] == [], f"{page_name} at {width} px: columns off screen: {got['cut']}"
        assert got["clipped"] == [], f"{page_name} at {width} px: chart labels cut: {got['clipped']}"
    finally:
        ctx.close()


def test_charts_have_labelled_axes_lines_a_driver_can_tell_apart_and_clean_numbers(app: Any) -> None:
    ctx, pg = _open(app, 1024, "corners")
    try:
        pg.wait_for_selector("#overlay-pedals svg polyline", timeout=60_000)
        got = pg.evaluate(
            """() => {
          const svg = (id) => document.querySelector(`#${id} svg`);
          const texts = [...document.querySelectorAll("svg.chart text")].map((t) => t.textContent);
          const lines = [...svg("overlay-pedals").querySelectorAll("polyline")].map((p) =>
            [p.getAttribute("data-label"), p.getAttribute("stroke"), p.getAttribute("stroke-dasharray") || ""]);
          const title = (id) => svg(id).querySelector("text.axis-title")?.textContent || null;
          const cells = [...document.querySelectorAll("#corner-table td")].map((td) => td.textContent.trim());
          return {texts, lines, cells, titles: ["overlay-speed", "overlay-pedals", "overlay-delta", "lapchart"].map(title)};
        }"""
        )
    finally:
        ctx.close()
    assert got["titles"] == ["km/h", "throttle % · brake bar", "s", "lap time"]
    # the two laps of one pedal differ by more than a shade: the same hue, one solid and one dashed
    throttle = [x for x in got["lines"] if "throttle" in x[0]]
    assert len(throttle) == 2 and throttle[0][1] == throttle[1][1] and {x[2] for x in throttle} == {"", "6 4"}
    bad = [t for t in got["texts"] + got["cells"] if t.startswith("-0.0") and set(t[1:]) <= set("0.")]
    assert bad == [], bad
    glued = [t for t in got["texts"] if t[:1].isdigit() and t.endswith("m") and not t.endswith(" m")]
    assert glued == [], glued


def test_a_model_that_does_not_answer_is_said_once_not_under_every_answer(app: Any) -> None:
    """This paddock's model server is a dead port: the answers come from the data, the banner says so once,
    and no answer carries the server's address or its error."""
    ctx, pg = _open(app, 390, "ask")
    try:
        for i, q in enumerate(("what was my best lap?", "what was my top speed?")):
            pg.fill("#question", q)
            pg.click("#ask-btn")
            pg.wait_for_selector(f".msg.assistant >> nth={i}", timeout=120_000)
            pg.wait_for_selector(f".msg.assistant[data-done='1'] >> nth={i}", timeout=120_000)
        answers = pg.locator(".msg.assistant").all_inner_texts()
        banner = pg.locator("#banner").inner_text()
    finally:
        ctx.close()
    assert len(answers) == 2 and all("Answered from your data" in a for a in answers), answers
    assert not any(
        w in a for a in answers for w in ("http://", "127.0.0.1", "ConnectError", "model server")
    ), answers
    assert "No model is answering" in banner


def test_a_session_without_a_full_lap_says_so_in_every_card(
    app: Any, tmp_path: Path, shared_dir: Path
) -> None:
    """The real FS-EV run never crosses a start/finish line: no empty axis, no empty select, no bare
    card title; a sentence says what is missing and why."""
    from shared.ingest import import_file

    src = shared_dir / "data" / "aim" / "scut_fsev_du.csv"
    data = tmp_path / "data"
    sid = import_file(src, settings_for(data), driver_id="ana").session_id
    pad = start_paddock(data, tmp_path, "http://127.0.0.1:9/v1")
    ctx = app["browser"].new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    try:
        pg = ctx.new_page()
        pg.goto(f"{pad.url}/#/session/{sid}")
        pg.wait_for_selector("#no-full-lap", timeout=60_000)
        got = pg.evaluate(
            """() => ({
          svgs: document.querySelectorAll("#lapchart svg, #overlay-speed svg").length,
          selects: [...document.querySelectorAll("#view select")].filter((s) => !s.hidden).length,
          cards: [...document.querySelectorAll("#view .card")].filter((c) => !c.hidden)
            .map((c) => c.textContent.replace(c.querySelector("h2")?.textContent || "", "").trim()),
        })"""
        )
    finally:
        ctx.close()
        pad.stop()
    assert got["svgs"] == 0 and got["selects"] == 0, got
    assert all(len(text) > 20 for text in got["cards"]), got["cards"]  # every card says something


def test_the_gold_laps_card_names_each_gold_lap_and_one_whose_session_was_deleted(
    app: Any, tmp_path: Path
) -> None:
    """The sessions page lists every gold lap (the drive screen's reference); one saved from a session
    since deleted says so, with the command that clears it."""
    import httpx

    from shared.store.deletion import delete_session
    from shared.store.gold import save_gold_lap
    from shared.store.hot import HotStore
    from shared.store.lake_mirror import mirror_for

    data = tmp_path / "data"
    settings = settings_for(data)
    kept = import_sim(cached_sim(laps=6, seed=7), settings, driver_id="ana").session_id
    gone = import_sim(cached_sim(laps=6, seed=8), settings, driver_id="bo").session_id
    save_gold_lap(settings, None, "ana", kept, 2)
    save_gold_lap(settings, None, "bo", gone, 3)
    # the session deleted elsewhere than `pitwall delete` (which clears its gold lap too): the gold lap stays
    store = HotStore(settings)
    try:
        delete_session(store, settings.lake_dir, gone, mirror_for(settings))
    finally:
        store.close()
    pad = start_paddock(data, tmp_path, "http://127.0.0.1:9/v1")
    ctx = app["browser"].new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    try:
        laps = {x["lap"]: x["time_s"] for x in httpx.get(f"{pad.url}/sessions/{kept}/laps").json()}
        pg = ctx.new_page()
        pg.goto(f"{pad.url}/#/")
        pg.wait_for_selector("#gold li >> nth=1", timeout=60_000)
        items = pg.locator("#gold li").all_inner_texts()
        overflow = pg.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    finally:
        ctx.close()
        pad.stop()
    ana = next(x for x in items if "· ana ·" in x)
    bo = next(x for x in items if "· bo ·" in x)
    m, sec = divmod(round(laps[2] * 1000), 60_000)
    assert f"{m}:{sec / 1000:06.3f} (lap 2)" in ana and "deleted" not in ana, ana
    assert "(lap 3)" in bo and "its session was deleted" in bo and "pitwall gold clear" in bo, bo
    assert overflow <= 0

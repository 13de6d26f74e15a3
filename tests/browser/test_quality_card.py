"""The tablet's session page shows the file's data-quality report in a driver's words (headless Debian
Chromium, a real paddock process over a lake made by `pitwall import`): the real kart file with 4.9 s cut
out of lap 6 shows that gap with its length and place and lap 6 as not to be trusted with its time (figures
from the file's own rows and beacon markers); a simulated session says in a sentence that it has no file
report. Text from a logger file is never parsed as HTML: a channel named like a tag shows as text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from shared.display import lap_time
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.browser import chromium, needs_chromium
from tests.support.cli import pitwall
from tests.support.kart_gap import KartGap, kart_with_gap
from tests.support.procs import start_paddock

pytestmark = [pytest.mark.browser]
CHANNEL_ID = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")


@pytest.fixture(scope="module", autouse=True)
def _needs_chromium() -> None:
    needs_chromium()


@pytest.fixture(scope="module")
def stack(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("quality")
    cut = kart_with_gap(shared_dir, tmp / "kart.csv")
    # a channel name a logger file could carry: it must reach the screen as text, never as markup
    text = cut.path.read_text(encoding="utf-8").replace(",RPM\n", ",<b id=x>RPM</b>\n", 1)
    cut.path.write_text(text, encoding="utf-8")
    r = pitwall("import", str(cut.path), "--json", "--data-dir", str(tmp / "data"))
    assert r.returncode == 0, r.stderr
    sim = import_sim(cached_sim(laps=3, seed=7), settings_for(tmp / "data"), "ana").session_id
    pad = start_paddock(tmp / "data", tmp, "http://127.0.0.1:9/v1")
    yield {"pad": pad, "kart": json.loads(r.stdout)["session_id"], "sim": sim, "cut": cut}
    pad.stop()


def _card(pad: Any, sid: str, width: int) -> dict[str, Any]:
    with chromium() as b:
        ctx = b.new_context(viewport={"width": width, "height": 800}, service_workers="block")
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{pad.url}/#/session/{sid}")
        page.wait_for_selector("#quality:not([hidden]) h2", timeout=60_000)
        got = page.evaluate(
            """() => { const c = document.getElementById('quality');
                 return {title: c.querySelector('h2').textContent, items: [...c.querySelectorAll('li')].map(l => l.textContent),
                   text: c.innerText, tags: c.querySelectorAll('b').length, right: c.getBoundingClientRect().right,
                   channels: [...c.querySelectorAll('td:first-child')].map(td => td.textContent)}; }"""
        )
        ctx.close()
    assert not errors, errors
    return got


@pytest.mark.parametrize("width", [390, 1280])
def test_the_card_shows_the_gap_and_the_untrusted_lap(stack: Any, width: int) -> None:
    cut: KartGap = stack["cut"]
    card = _card(stack["pad"], stack["kart"], width)
    assert card["title"] == "Data from the logger"
    m, s = divmod(cut.start_s, 60)
    gap = f"No data in any channel for {cut.gap_s:.1f} s, from {int(m)}:{s:04.1f} to "
    assert sum(i.startswith(gap) for i in card["items"]) == 1, card["items"]
    lap = f"Lap {cut.lap} ({lap_time(cut.lap_time_s)}) cannot be trusted: GPS/log gap over 2 s"
    assert lap in card["items"], card["items"]
    assert not CHANNEL_ID.search(" ".join(card["items"])), card["items"]
    assert "<b id=x>RPM</b>" in card["channels"] and card["tags"] == 0  # the file's name, shown as text
    assert card["right"] <= width + 0.5


def test_a_session_without_a_file_says_so_in_a_sentence(stack: Any) -> None:
    card = _card(stack["pad"], stack["sim"], 390)
    assert card["items"] == []
    assert "No file report for this session: it was recorded live or simulated" in card["text"]

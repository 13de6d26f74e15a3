"""The coach's bundle: ``pitwall export`` of a real session (a simulated one with an early brake into T6
on three laps), ``report.html`` read from the zip and parsed, then opened in headless Chromium at 390 and
1280 px. The figures are checked against the simulator's truth (how far the brake point moved), the
session's own stored rows, and the browser's own layout boxes (no two map names overlap).
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shared.display import lap_time
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Event, Scenario, simulate
from shared.store.lake_read import open_session
from tests.support.browser import chromium, needs_chromium
from tests.support.cli import pitwall

pytestmark = [pytest.mark.browser]
EARLY = (3, 4, 5)
OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('svg[aria-label="track map"] text')].map((t) => t.getBoundingClientRect());
  const bad = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) bad.push([i, i + 1]);
  }));
  return {n: boxes.length, bad};
}"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("report")
    settings = settings_for(d / "data")
    events = [Event("early_brake", k, "t6", offset_m=40.0) for k in EARLY]
    sim = simulate(
        laps=10, seed=903, rate_hz=20, scenario=Scenario(events, [k for k in range(1, 11) if k not in EARLY])
    )
    sid = import_sim(sim, settings, driver_id="cy").session_id
    out = d / "for-coach.pitwall"
    r = pitwall("export", sid, "-o", str(out), "--data-dir", str(settings.data_dir))
    assert r.returncode == 0, r.stderr
    assert "a zip file with report.html inside" in r.stdout
    page = zipfile.ZipFile(out).read("report.html").decode()
    (d / "report.html").write_text(page, encoding="utf-8")
    files = open_session(settings, sid)
    assert files is not None
    return {"d": d, "sim": sim, "page": page, "row": files.row(), "laps": files.table("laps").to_pylist()}


def test_the_report_carries_the_coaching_with_the_simulators_figures(bundle: dict[str, Any]) -> None:
    page, sim = bundle["page"], bundle["sim"]
    rows = re.findall(
        r"<tr><td>(T\w+)</td><td>(\d+\.\d\d)</td><td>([\d, ]+)</td><td class=txt>([^<]*)</td><td class=txt>([^<]*)</td></tr>",
        page,
    )
    assert rows and rows[0][0] == "T6", rows
    corner, _, laps, why, todo = rows[0]
    assert [int(x) for x in laps.split(",")] == list(EARLY)
    assert why.startswith("braking early: ")
    shift = np.median([e["brake_shift_m"] for e in sim.truth.events_of("early_brake")])
    m = re.match(r"brake (\d+) m later, ", todo)
    assert m and abs(int(m[1]) - abs(shift)) <= 6, (todo, shift)
    plan = re.search(r"<h2>Plan for the next session \(10 laps\)</h2><table>(.*?)</table>", page)
    assert plan
    blocks = re.findall(r"<tr><td>(\d+)</td><td class=txt>([^<]*)</td></tr>", plan[1])
    assert sum(int(n) for n, _ in blocks) == 10
    assert any(text == f"{corner}: {todo}" for _, text in blocks), blocks


def test_the_report_names_the_car_a_clean_date_and_a_distance_axis(bundle: dict[str, Any]) -> None:
    page, row, laps = bundle["page"], bundle["row"], bundle["laps"]
    assert "2003 BMW M3 (E46)" in page and "generic" not in page.lower()
    at = row["started_at"]
    assert f"{at:%d %b %Y %H:%M}".lstrip("0") in page
    assert not re.search(r"\d\d:\d\d:\d\d\.\d", page)  # no microseconds, no seconds
    assert "-0–" not in page and "(-0" not in page
    assert re.search(r"<h3>Brake pressure \(bar\): 0–\d+</h3>", page)
    best = min((lp for lp in laps if lp["kind"] == "full" and lp["valid"]), key=lambda lp: lp["time_s"])
    assert f"best lap {lap_time(best['time_s'])}" in page
    svgs = re.findall(
        r'<svg viewBox="[^"]+" role="img" aria-label="Speed against distance">(.*?)</svg>', page
    )
    assert len(svgs) == 1 and "distance from the line (m)" in svgs[0] and ">km/h</text>" in svgs[0]
    ticks = [int(t) for t in re.findall(r'text-anchor="middle">(\d+)</text>', svgs[0])]
    step = ticks[1] - ticks[0]
    assert ticks == list(range(0, ticks[-1] + 1, step)) and ticks[-1] <= best["dist_m"] < ticks[-1] + step


@pytest.fixture(scope="module", autouse=False)
def _chromium() -> None:
    needs_chromium()


@pytest.mark.parametrize("width", [390, 1280])
def test_the_report_reads_on_a_phone_and_a_laptop(
    bundle: dict[str, Any], width: int, _chromium: None
) -> None:
    shots = Path(os.environ.get("PITWALL_SHOTS") or bundle["d"])
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        page = ctx.new_page()
        page.goto((bundle["d"] / "report.html").as_uri())
        laid = page.evaluate(OVERLAPS)
        assert laid["n"] >= 10 and laid["bad"] == [], laid  # the corner names on the map, none on another
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        page.screenshot(path=str(shots / f"report-{width}.png"), full_page=True)
        ctx.close()

"""The drive screen at the sizes drivers use (360x780, 390x844 upright; 844x390 on its side), in headless
Debian Chromium on a real hot path: how wide the widest delta (-128.00) and a long cue are against the
screen, the delta's font size, and whether everything fits above the fold.

    python bench/drive_fit.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from tests.support.browser import chromium  # noqa: E402
from tests.support.procs import start_hotpath  # noqa: E402

SIZES = [(360, 780), (390, 844), (844, 390)]
BOX = """(id) => { const e = document.getElementById(id); const r = e.getBoundingClientRect();
  return {w: r.width, right: r.right, bottom: r.bottom, font: parseFloat(getComputedStyle(e).fontSize),
          clipped: e.scrollWidth > e.clientWidth + 1}; }"""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        hot = start_hotpath(Path(tmp) / "data", Path(tmp))
        try:
            with chromium() as b:
                for w, h in SIZES:
                    page = b.new_page(viewport={"width": w, "height": h})
                    page.goto(f"{hot.url}/drive")
                    page.wait_for_function("!!window.pitwallDrive")
                    sid = httpx.post(f"{hot.url}/session/start", json={"track": "sonoma"}).json()[
                        "session_id"
                    ]
                    ref = {"source": "session_best", "lap": 2, "time_s": 108.2}
                    page.evaluate(
                        "(d) => window.pitwallDrive.handleDelta(d)",
                        {"lap": 3, "delta_s": -128.0, "reference": ref},
                    )
                    cue = {
                        "session_id": sid,
                        "phrase_id": "x",
                        "priority": 2,
                        "speak_by": None,
                        "speak_s": 2.0,
                    }
                    text = "Off the throttle too early out of Turn 11, hold it to the line"
                    page.evaluate("(c) => window.pitwallDrive.handleCue(c)", {**cue, "text": text})
                    d, c = page.evaluate(BOX, "delta"), page.evaluate(BOX, "cue")
                    low = max(
                        page.evaluate(BOX, x)["bottom"] for x in ("delta", "times", "cue", "status-bar")
                    )
                    fits = not d["clipped"] and not c["clipped"] and d["right"] <= w and low <= h + 1
                    print(
                        f"{w}x{h}: delta '{page.locator('#delta').inner_text()}' {d['w']:.0f} px wide at "
                        f"{d['font']:.0f} px type; cue {c['w']:.0f} px; lowest element at {low:.0f} of {h} px; "
                        f"{'fits' if fits else 'DOES NOT FIT'}"
                    )
                    httpx.post(f"{hot.url}/session/{sid}/end", timeout=30)
                    page.close()
        finally:
            hot.stop()


if __name__ == "__main__":
    main()

"""No page builds HTML from strings: every script of the tablet and the drive screen puts data on the page
through ``static/dom.js`` (elements and text nodes), so a name from a file or a bundle can never become
markup. Static checks of the files as served; tests/browser/test_injection.py drives the pages."""

from __future__ import annotations

import re
from pathlib import Path

from shared.report import session_report_html

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((REPO / "services/paddock/web").rglob("*.js")) + sorted(
    (REPO / "services/hotpath/web").glob("*.js")
)
PAGES = [REPO / "services/paddock/web/index.html", REPO / "services/hotpath/web/drive.html"]
# every way a string becomes markup in a browser
HTML_SINKS = re.compile(
    r"\.innerHTML\b|\.outerHTML\b|\binsertAdjacentHTML\b|\bdocument\.write(ln)?\b|\bcreateContextualFragment\b"
    r"|\bDOMParser\b|\bsrcdoc\b|\bsetHTMLUnsafe\b|\bparseHTMLUnsafe\b"
)


def test_the_scripts_are_the_ones_served() -> None:
    names = {p.name for p in SCRIPTS}
    assert {
        "app.js",
        "cards.js",
        "charts.js",
        "sse.js",
        "dom.js",
        "sw.js",
        "drive.js",
        "drive-sw.js",
    } <= names


def test_no_script_builds_html_from_a_string() -> None:
    found = [
        f"{p.relative_to(REPO)}:{i}: {line.strip()[:100]}"
        for p in SCRIPTS + PAGES
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if HTML_SINKS.search(line)
    ]
    assert found == []


def test_the_sink_pattern_finds_every_sink() -> None:
    for line in (
        'el.innerHTML = "<b>x</b>";',
        "a.outerHTML=b",
        'x.insertAdjacentHTML("beforeend", s)',
        "document.write(s)",
        "document.writeln(s)",
        "range.createContextualFragment(s)",
        "new DOMParser().parseFromString(s)",
        "frame.srcdoc = s",
        "el.setHTMLUnsafe(s)",
    ):
        assert HTML_SINKS.search(line), line
    assert not HTML_SINKS.search(
        'el.textContent = "innerHTML is not used"'.replace("innerHTML", "inner HTML")
    )


def test_every_page_loads_the_dom_helper_before_its_scripts() -> None:
    index = (REPO / "services/paddock/web/index.html").read_text(encoding="utf-8")
    order = re.findall(r'<script src="/static/(\w+)\.js">', index)
    assert order[0] == "dom" and set(order) == {"dom", "charts", "sse", "cards", "session", "quality", "app"}
    drive = (REPO / "services/hotpath/web/drive.html").read_text(encoding="utf-8")
    assert drive.index("/*DOM_JS*/") < drive.index("/*DRIVE_JS*/")
    from services.hotpath.drive import drive_html

    served = drive_html()
    assert "const Dom = (() =>" in served and served.index("const Dom = (() =>") < served.index("Dom.fill(")
    for name in ("app.js", "session.js", "cards.js", "charts.js", "quality.js"):
        assert "Dom." in (REPO / "services/paddock/web/static" / name).read_text(encoding="utf-8"), name


class _Files:
    """A session's lake files as ``session_report_html`` reads them, every text field a payload."""

    session_id = "s-1"

    def __init__(self, payload: str) -> None:
        self.p = payload

    def row(self) -> dict[str, object]:
        p = self.p
        return {"track_name": p, "driver_id": p, "car_id": p, "started_at": p, "source_path": f"/x/{p}",
                "source_format": p, "meta_json": "{}"}  # fmt: skip

    def table(self, name: str) -> object:
        import pyarrow as pa

        if name == "laps":
            return pa.table({"lap": [1, 2], "kind": ["full", self.p], "valid": [True, False],
                             "time_s": [95.0, 99.0], "invalid_reason": [None, self.p]})  # fmt: skip
        return pa.table({"lap": [1], "seq": [1], "corner_name": [self.p], "entry_kmh": [100.0], "min_kmh": [80.0],
                         "exit_kmh": [110.0], "brake_point_m": [50.0], "time_s": [3.0], "apex_m": [10.0]})  # fmt: skip

    def lap(self, n: int) -> None:
        return None


def test_the_report_escapes_every_field_and_runs_no_script() -> None:
    payload = "<img src=x onerror=window.__pwned=1>\"'&"
    out = session_report_html(_Files(payload))  # type: ignore[arg-type]
    assert "<img" not in out and "<script" not in out.lower()
    escaped = "&lt;img src=x onerror=window.__pwned=1&gt;&quot;&#x27;&amp;"
    assert (
        out.count(escaped) >= 7
    )  # track (title and heading), driver, car, date, file, lap kind, reason, corner
    assert "Content-Security-Policy" in out and "default-src 'none'" in out

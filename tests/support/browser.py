"""Headless Debian Chromium for the browser tests: where it is and the flags this closed network needs."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support import require
from tests.support.require import missing

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-sync",
]


def needs_chromium() -> None:
    """Skip, or fail when PITWALL_REQUIRE_BROWSER=1, when Chromium is not installed."""
    if not Path(CHROMIUM).exists():
        missing(require.BROWSER, "Debian chromium is not installed (scripts/check installs it as root)")

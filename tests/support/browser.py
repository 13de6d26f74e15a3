"""Headless Debian Chromium for the browser tests: where it is and the flags this closed network needs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support import require
from tests.support.require import missing

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
AUTOPLAY = "--autoplay-policy=no-user-gesture-required"  # a kiosk set-up; a driver taps once instead


def needs_chromium() -> None:
    """Skip, or fail when PITWALL_REQUIRE_BROWSER=1, when Chromium is not installed."""
    if not Path(CHROMIUM).exists():
        missing(require.BROWSER, "Debian chromium is not installed (scripts/check installs it as root)")


@contextmanager
def chromium(*extra: str) -> Iterator[Any]:
    """Headless Chromium through Playwright, with ``FLAGS`` and ``extra`` (e.g. ``AUTOPLAY``); closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*FLAGS, *extra])
        try:
            yield b
        finally:
            b.close()

"""The paddock's log says what it does, not every request: a real paddock process answers requests and
its log has no access line; with ``pitwall -vv`` the same requests are logged, as DEBUG records."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from tests.support.procs import Service, free_port


def _paddock(tmp_path: Path, *cli: str) -> Service:
    port = free_port()
    data = tmp_path / "data"
    svc = Service(
        [*cli, "paddock", "--port", str(port), "--data-dir", str(data)],
        port,
        {"PITWALL_DATA_DIR": str(data), "PITWALL_ADK_OPENAI_URL": "http://127.0.0.1:9/v1"},
        tmp_path / f"paddock{''.join(cli)}.log",
    )
    svc.wait_healthy(timeout=120)
    return svc


def _requests_logged(tmp_path: Path, *cli: str) -> list[str]:
    svc = _paddock(tmp_path, *cli)
    try:
        for _ in range(3):
            assert httpx.get(f"{svc.url}/sessions", timeout=30).status_code == 200
    finally:
        time.sleep(0.2)  # the log line follows the response
        svc.stop()
    return [line for line in svc.log.read_text().splitlines() if '"GET /sessions HTTP/1.1" 200' in line]


def test_requests_are_logged_only_at_debug(tmp_path: Path) -> None:
    assert _requests_logged(tmp_path) == []
    lines = _requests_logged(tmp_path, "-vv")
    assert len(lines) == 3 and all("DEBUG" in line for line in lines), lines

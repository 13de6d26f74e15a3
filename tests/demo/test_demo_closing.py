"""How ``pitwall demo`` ends, read as a person reads the terminal (real processes, no TTY): without
``--keep`` the services are gone and no tablet or drive-screen address is printed (it would not
answer); with ``--keep`` it says where the tablet and the drive screen are, those addresses answer, and
it says how to stop the services, which that command does."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def _demo(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    cmd = [sys.executable, "-m", "shared.cli", "demo", "--laps", "1", "--speed", "60"]
    return subprocess.run(
        [*cmd, "--data-dir", str(tmp_path), *extra],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_without_keep_the_demo_prints_no_dead_address(tmp_path: Path) -> None:
    out = _demo(tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    opening = re.search(r"hot path at (http://127\.0\.0\.1:\d+) \(pid (\d+)\)", text)
    assert opening is not None, text[-2000:]
    assert not _alive(int(opening.group(2)))  # the services did stop with the demo
    closing = text[text.index("Pitwall demo summary") :]
    assert "the services have stopped" in closing and "--keep" in closing
    for dead in (opening.group(1), "/#/session/", "/drive", "kill"):
        assert dead not in closing, dead


def test_with_keep_the_demo_says_where_the_tablet_is_and_how_to_stop_it(tmp_path: Path) -> None:
    out = _demo(tmp_path, "--keep")
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    stop = re.search(r"stop them with: kill (\d+) (\d+)", text)
    pids = [int(stop.group(1)), int(stop.group(2))] if stop else []
    started = {int(p) for p in re.findall(r"\(pid (\d+)\)", text)}  # stopped below whatever it says
    try:
        assert stop is not None and started <= set(pids), text[-2000:]
        tablet = re.search(r"tablet app: (http://127\.0\.0\.1:\d+)/#/session/\S+", text)
        drive = re.search(r"drive screen \(the phone in the car\): (http://127\.0\.0\.1:\d+/drive)", text)
        assert tablet is not None and drive is not None, text[-2000:]
        assert all(_alive(p) for p in pids)
        assert httpx.get(tablet.group(1) + "/", timeout=10).status_code == 200
        assert httpx.get(drive.group(1), timeout=10).status_code == 200
    finally:
        for p in [*pids, *(started - set(pids))]:  # the command the demo printed: kill PID PID (SIGTERM)
            if _alive(p):
                os.kill(p, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(p) for p in pids), "the printed stop command left a service running"

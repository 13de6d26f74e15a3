"""Every mistake a driver makes on the command line is one clear line and an exit code, never a traceback
or a wait: a second paddock on the same data folder, a port another program holds (the service never
starts, so nothing waits on its threads), Ctrl-C during an import (what was stored and what was not,
checked against the store afterwards), and a session id with a typo ("did you mean") or cut short (a
unique start is taken). Real processes, real DuckDB files, real sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator import Scenario, simulate
from tests.support.cli import pitwall
from tests.support.procs import REPO, free_port, start_hotpath, start_paddock

VBOX = "data/vbox/sonoma_vbox0240.csv"


def _one_line(r: subprocess.CompletedProcess[str]) -> str:
    out = (r.stdout + r.stderr).strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert "Waiting for application startup" not in out  # the service was never started
    return out


def test_a_second_paddock_on_the_same_data_folder(tmp_path: Path) -> None:
    pad = start_paddock(tmp_path / "data", tmp_path, "http://127.0.0.1:9/v1")
    try:
        r = pitwall("paddock", "--port", str(free_port()), "--data-dir", str(tmp_path / "data"))
    finally:
        pad.stop()
    assert r.returncode == 1
    line = _one_line(r)
    assert "another paddock is already running on the data folder" in line and str(tmp_path / "data") in line


@pytest.mark.parametrize("service", ["paddock", "hotpath"])
def test_a_taken_port_is_one_line_and_nothing_starts(tmp_path: Path, service: str) -> None:
    with socket.socket() as other:  # another program listening on the port
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        r = pitwall(service, "--port", str(port), "--data-dir", str(tmp_path / "d"))
    assert r.returncode == 1
    line = _one_line(r)
    assert f"cannot use 127.0.0.1:{port}: another program is listening there; give another --port" in line


def test_the_hot_path_says_where_the_drive_screen_is(tmp_path: Path) -> None:
    hot = start_hotpath(tmp_path / "data", tmp_path)
    try:
        log = hot.log.read_text()
    finally:
        hot.stop()
    assert f"drive screen: http://127.0.0.1:{hot.port}/drive" in log


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("ids") / "data"
    settings = settings_for(data)
    ids = [
        import_sim(simulate(laps=2, seed=s, rate_hz=10, scenario=Scenario.clean(2)), settings).session_id
        for s in (1, 2, 3)
    ]
    return {"data": str(data), "ids": ids}


def test_a_typo_in_a_session_id_gets_a_suggestion(three: dict[str, Any]) -> None:
    sid = three["ids"][0]
    typo = sid[:-1] + ("x" if sid[-1] != "x" else "y")
    for cmd in (["laps"], ["export"], ["delete", "--yes"], ["gold", "save"]):
        args = [*cmd, typo, *(["1"] if cmd[0] == "gold" else []), "--data-dir", three["data"]]
        r = pitwall(*args)
        assert r.returncode == 1, (cmd, r.stderr)
        assert _one_line(r) == f"error: no session {typo!r}; did you mean {sid}?", cmd
    r = pitwall("laps", "nothing-like-it", "--data-dir", three["data"])
    assert r.returncode == 1 and _one_line(r) == "error: no session 'nothing-like-it'; see `pitwall sessions`"


def test_a_unique_start_of_an_id_is_taken_and_a_shared_one_is_named(three: dict[str, Any]) -> None:
    a, b, c = three["ids"]
    # the shortest start of a that no other id shares
    n = next(k for k in range(1, len(a) + 1) if not any(o.startswith(a[:k]) for o in (b, c)))
    r = pitwall("laps", a[:n], "--json", "--data-dir", three["data"])
    assert r.returncode == 0, r.stderr
    assert {lp["session_id"] for lp in json.loads(r.stdout)} == {a}
    shared = os.path.commonprefix([a, b, c])
    r = pitwall("laps", shared, "--data-dir", three["data"])
    assert (
        r.returncode == 1
        and "is the start of 3 sessions" in _one_line(r)
        and "give more of the id" in r.stderr
    )


def _stored(data: Path) -> list[dict[str, Any]]:
    r = pitwall("sessions", "--json", "--data-dir", str(data))
    assert r.returncode == 0, r.stderr
    return list(json.loads(r.stdout))


def _interrupt_when(args: list[str], ready: Callable[[int], bool]) -> subprocess.CompletedProcess[str]:
    """``pitwall ARGS``, Ctrl-C (SIGINT) as soon as ``ready(pid)`` says the import is under way."""
    env = {**os.environ, "COLUMNS": "300"}
    env.pop("PITWALL_DATA_DIR", None)
    p = subprocess.Popen(
        [sys.executable, "-m", "shared.cli", *args],
        cwd=REPO,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not ready(p.pid) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert p.poll() is None, "the import ended before it could be interrupted"
    p.send_signal(signal.SIGINT)
    out, errs = p.communicate(timeout=120)
    return subprocess.CompletedProcess(args, p.returncode, out, errs)


def _store_opened(data: Path) -> Callable[[int], bool]:
    """The import has opened the hot store (it does before it reads the file, which takes seconds)."""
    return lambda pid: settings_for(data).hot_db_path.is_file()


def _hot_path_has_it(data: Path) -> Callable[[int], bool]:
    """The running hot path holds the whole upload (its copy in <data>/tmp/import-*/), and imports it."""
    return lambda pid: any((data / "tmp").glob("import-*/*"))


def test_ctrl_c_during_an_import_says_what_was_stored(shared_dir: Path, tmp_path: Path) -> None:
    vbox, kart = shared_dir / VBOX, shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv"
    data = tmp_path / "data"
    r = _interrupt_when(["import", str(vbox), str(kart), "--data-dir", str(data)], _store_opened(data))
    assert r.returncode == 130 and "Traceback" not in r.stderr, r.stderr
    assert "stopped (Ctrl-C)" in r.stderr and f"not imported: {kart.name}" in r.stderr
    stored = _stored(data)  # whatever the moment: what it says is what the store holds
    if stored:
        assert [s["source_path"] for s in stored] == [str(vbox)]
        assert f"{vbox.name}: stored as session {stored[0]['session_id']}" in r.stderr
    else:
        assert f"{vbox.name}: not stored (nothing of it was kept)" in r.stderr


def test_ctrl_c_during_an_import_through_the_hot_path(shared_dir: Path, tmp_path: Path) -> None:
    vbox = shared_dir / VBOX
    hot = start_hotpath(tmp_path / "data", tmp_path)
    try:
        r = _interrupt_when(
            ["import", str(vbox), "--data-dir", str(tmp_path / "data")], _hot_path_has_it(tmp_path / "data")
        )
        assert r.returncode == 130 and "Traceback" not in r.stderr, r.stderr
        assert f"{vbox.name}: handed to the running hot path, which goes on with it" in r.stderr
        deadline = time.monotonic() + 180  # and it does: the session appears
        while time.monotonic() < deadline and not _stored(tmp_path / "data"):
            time.sleep(1)
        assert [Path(s["source_path"]).name for s in _stored(tmp_path / "data")] == [vbox.name]
    finally:
        hot.stop()


def test_a_typo_is_offered_only_the_closest_ids() -> None:
    """Ids imported in one second share their start: a one-character typo of one is offered that one, not
    every id of that second; a typo as close to two ids offers both."""
    from shared.cli_lookup import UnknownSession, match_session

    known = ["20261127-083831-abf5bb", "20261127-083831-41a7fa", "20261127-083832-dda4ad"]
    with pytest.raises(UnknownSession, match=r"did you mean 20261127-083831-abf5bb\?$"):
        match_session("20261127-083831-abf5bx", known)
    with pytest.raises(
        UnknownSession, match=r"did you mean 20261127-08383x-aaaaaa or 20261127-08383x-aaaaab\?$"
    ):
        match_session("20261127-08383x-aaaaaz", ["20261127-08383x-aaaaaa", "20261127-08383x-aaaaab"])
    with pytest.raises(UnknownSession, match="see `pitwall sessions`"):
        match_session("nothing-like-it", known)

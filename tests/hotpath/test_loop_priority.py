"""``PITWALL_HOTPATH_NICE``: the hot path's event loop thread takes that priority at start (the cue's time
under load is that thread waiting for a core, ``bench/cue_latency.py``); the store writer, started
before it, keeps its own; 0 leaves the process as it was started. Raising a priority needs root or
``CAP_SYS_NICE``, so these tests lower it (a higher nice), which any process may."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from services.hotpath import interpreter
from tests.support.procs import start_hotpath, thread_nices


def _nice_in_a_thread(nice: int) -> tuple[int, int]:
    got: list[int] = []

    def loop_thread() -> None:  # a thread of its own: a nice set here is this thread's alone
        got.append(os.getpriority(os.PRIO_PROCESS, 0))
        interpreter.settle(nice)
        got.append(os.getpriority(os.PRIO_PROCESS, 0))
        interpreter.unsettle()

    th = threading.Thread(target=loop_thread)
    th.start()
    th.join()
    return got[0], got[1]


def test_settle_sets_the_calling_threads_nice_and_no_other() -> None:
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    before, after = _nice_in_a_thread(min(19, mine + 3))
    assert before == mine and after == min(19, mine + 3)
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # this thread: untouched
    assert _nice_in_a_thread(0) == (mine, mine)  # 0: left as started


def test_the_service_loop_thread_takes_the_setting_and_the_writer_keeps_its_own(tmp_path: Path) -> None:
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    svc = start_hotpath(tmp_path / "data", tmp_path, env={"PITWALL_HOTPATH_NICE": str(min(19, mine + 4))})
    try:
        main, others = thread_nices(svc.proc.pid)
    finally:
        svc.stop()
    assert main == min(19, mine + 4)  # uvicorn's event loop runs on the main thread
    # the store writer and DuckDB's threads, started before the setting, keep the process's own
    assert others and min(others) == mine and others.count(mine) >= 2

"""``PITWALL_PADDOCK_NICE``: the paddock's event loop thread takes that priority at the end of start-up
(``/health``'s time on a loaded machine is that thread waiting for a core: ``bench/lake_fleet.py
--probe``); the threads started before it (the lake's follower, the store's flush) keep their own.
Raising a priority needs root or ``CAP_SYS_NICE``, so the test lowers it (a higher nice), as any process
may."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.procs import free_port, start_paddock, thread_nices


def test_the_paddock_loop_thread_takes_the_setting_and_its_follower_keeps_its_own(tmp_path: Path) -> None:
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    want = min(19, mine + 4)
    svc = start_paddock(
        tmp_path / "data",
        tmp_path,
        f"http://127.0.0.1:{free_port()}/v1",
        extra_env={"PITWALL_PADDOCK_NICE": str(want)},
    )
    try:
        main, others = thread_nices(svc.proc.pid)
    finally:
        svc.stop()
    assert main == want  # uvicorn's event loop runs on the main thread
    # the follower, the store's flush thread and DuckDB's, started before the setting, keep the process's
    assert others.count(mine) >= 2

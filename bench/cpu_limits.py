"""CPU limits for the hot path benches, so anyone can reproduce "one core busy" and "a phone's core".

``busy_core()``: a process busy-looping, pinned to one core (``os.sched_setaffinity``), for as long as the
block runs: the phone's normal state, where the UI or the model server holds a core.

``limit_cpu(pid)``: the process ``pid`` and all its threads pinned to one core (``taskset -a``) with a CPU
quota: a cgroup v1 ``cpu.cfs_quota_us`` (or v2 ``cpu.max``) group when this machine lets us make one,
else a duty-cycle throttle (SIGSTOP/SIGCONT from a thread here). ``describe()`` says which was used.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

BUSY_CORE = 0  # the busy loop's core; the limited process gets the other one
QUOTA = 0.5  # share of one core a phone gives a background process (the hot path beside the UI)
PERIOD_US = 10_000  # quota period: short, so a throttled process waits at most ~5 ms at a time
_V1 = Path("/sys/fs/cgroup/cpu")
_V2 = Path("/sys/fs/cgroup")
used: list[str] = []  # how the last limit was applied (for the report)


@contextlib.contextmanager
def busy_core(enabled: bool = True, core: int = BUSY_CORE) -> Iterator[None]:
    if not enabled:
        yield
        return
    p = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True:\n    pass",
        ]
    )
    try:
        time.sleep(0.2)
        yield
    finally:
        p.kill()
        p.wait()


def _other_core() -> int:
    cores = sorted(os.sched_getaffinity(0))
    return next((c for c in cores if c != BUSY_CORE), cores[0])


def _cgroup(pid: int) -> Path | None:
    """A cpu cgroup with the quota, ``pid`` moved into it; None when this machine does not allow it."""
    name = f"pitwall-bench-{os.getpid()}-{pid}"
    try:
        if (_V1 / "cpu.cfs_quota_us").exists():
            g = _V1 / name
            g.mkdir()
            (g / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (g / "cpu.cfs_quota_us").write_text(str(int(PERIOD_US * QUOTA)))
            (g / "cgroup.procs").write_text(str(pid))
            used.append(f"cgroup v1 cpu.cfs_quota_us {int(PERIOD_US * QUOTA)} of {PERIOD_US} us")
            return g
        if (_V2 / "cgroup.controllers").exists():
            g = _V2 / name
            g.mkdir()
            (g / "cpu.max").write_text(f"{int(PERIOD_US * QUOTA)} {PERIOD_US}")
            (g / "cgroup.procs").write_text(str(pid))
            used.append(f"cgroup v2 cpu.max {int(PERIOD_US * QUOTA)} {PERIOD_US}")
            return g
    except OSError:
        return None
    return None


def _remove(g: Path) -> None:
    parent = g.parent
    with contextlib.suppress(OSError):
        for p in (g / "cgroup.procs").read_text().split():
            (parent / "cgroup.procs").write_text(p)
    for _ in range(50):  # the group empties once its last task has left or exited
        try:
            g.rmdir()
            return
        except OSError:
            time.sleep(0.1)


def _duty_cycle(pid: int, stop: threading.Event) -> None:
    on = PERIOD_US * QUOTA / 1e6
    off = PERIOD_US / 1e6 - on
    while not stop.is_set():
        time.sleep(on)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGSTOP)
        time.sleep(off)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def limit_cpu(pid: int, enabled: bool = True) -> Iterator[None]:
    if not enabled:
        yield
        return
    used.clear()
    core = _other_core()
    subprocess.run(["taskset", "-a", "-p", "-c", str(core), str(pid)], check=True, capture_output=True)
    used.append(f"taskset core {core}")
    g = _cgroup(pid)
    stop = threading.Event()
    th = None
    if g is None:
        used.append(f"duty cycle SIGSTOP/SIGCONT {QUOTA:.0%} of {PERIOD_US / 1000:g} ms")
        th = threading.Thread(target=_duty_cycle, args=(pid, stop), daemon=True)
        th.start()
    try:
        yield
    finally:
        stop.set()
        if th is not None:
            th.join()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        if g is not None:
            _remove(g)


def describe() -> str:
    return ", ".join(used) or "no limit"

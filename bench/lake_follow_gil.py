"""The longest the paddock's follower holds the GIL while a fleet publishes (for ``bench/lake_fleet.py``).

In a fresh interpreter of the tree measured: the lake as the paddock opens it (``Lake(follow=True)``), its
follower thread following the table while the fleet commits, and a probe thread standing in for the
event loop: it sleeps 1 ms and then needs the GIL, as a request does. Its overshoot past the 1 ms, less
the time it and the follower waited for a core in that gap (``/proc/.../schedstat``: the scheduler's part,
which grows with the machine's load), is its wait for the GIL: the follower's GIL holds (timer slack
included). Also the follower thread's CPU time (user + system), whatever the load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PROBE = """
import inspect, json, sys, threading, time
from services.paddock.lake import Lake
from shared.settings import settings_for

def run_delay(f):
    f.seek(0)
    return int(f.read().split()[1]) / 1e9

def cpu_s(tid):
    with open(f"/proc/self/task/{tid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, clock ticks of 10 ms

lake = Lake(settings_for(sys.argv[1]), follow=True)
tid = next(t.native_id for t in threading.enumerate() if t.name == "lake-follow")
gaps, end = [], time.monotonic() + float(sys.argv[2])
cpu0 = cpu_s(tid)
with open("/proc/thread-self/schedstat", "rb", buffering=0) as mine, \\
        open(f"/proc/self/task/{tid}/schedstat", "rb", buffering=0) as its:
    while time.monotonic() < end:
        q0 = run_delay(mine) + run_delay(its)
        t0 = time.perf_counter()
        time.sleep(0.001)
        late = time.perf_counter() - t0 - 0.001
        gaps.append(max(0.0, late - (run_delay(mine) + run_delay(its) - q0)))
cpu = cpu_s(tid) - cpu0
lake.close()
gaps.sort()
print(json.dumps({"gil_wait_max_ms": 1000 * gaps[-1], "gil_wait_p99_ms": 1000 * gaps[int(0.99 * len(gaps))],
                  "gil_waits_over_20ms": sum(g > 0.02 for g in gaps), "follower_cpu_s": cpu}))
"""


def follower_gil(tree: Path, data: Path, env: dict[str, str], seconds: float) -> dict[str, Any]:
    """The probe's figures for ``tree``'s lake following the table ``env`` names for ``seconds``."""
    e = {**os.environ, **env, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(data), str(seconds)], cwd=tree, env=e,
                         capture_output=True, text=True, timeout=900, check=True)  # fmt: skip
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))

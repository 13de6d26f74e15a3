"""CPU per frame of each thread of a real hot path process during a long WebSocket replay, and the frames/s
one core would give: 1 / (the process's CPU per frame, every thread on that core). Thread CPU is read from
``/proc/<pid>/task/<tid>/schedstat`` (nanoseconds on a CPU), before and after the replay, so the figure does
not depend on what else the machine runs (issue 37 item 3 on a machine shared by six engineers).

    python bench/cpu_split.py [--laps 20] [--rounds 2] [--base /tmp/cue4-base] [--columns]

The threads, by what they do: the event loop (the process's main thread: the WebSocket, decoding messages
under 64 KiB, the frame path), workers started during the replay (``asyncio.to_thread``: decoding bigger
messages, validating a message as a whole), and the threads there before it (the store writer, DuckDB's
and pyarrow's pools: Python 3.11 gives them no names to tell them apart from outside; the writer's own
share is ``bench/ingest_cpu.py``'s, in one process). The client (the logger bridge) runs in this process,
not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

import httpx
import msgpack

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.hotpath import column_batches, send_batches  # noqa: E402  (bench/hotpath.py's own)
from services.hotpath.replay import frames_of  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from tests.support.procs import start_hotpath  # noqa: E402

PARTS = ("event loop", "workers", "writer and store")


def thread_ns(pid: int) -> dict[int, int]:
    """Every thread's time on a CPU so far (ns)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            out[int(tid)] = int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):  # a thread that ended between the listing and the read
            continue
    return out


def _batches(laps: int, columns: bool) -> tuple[int, list[bytes]]:
    frames = list(frames_of(simulate(laps=laps, seed=4, rate_hz=50.0).wide))
    if columns:
        return len(frames), column_batches(frames)
    return len(frames), [msgpack.packb({"frames": frames[i : i + 1000]}) for i in range(0, len(frames), 1000)]


def measure(tree: Path, n: int, batches: list[bytes]) -> dict[str, float]:
    """One replay through a fresh hot path of ``tree``: CPU microseconds per frame by part."""
    with tempfile.TemporaryDirectory() as d:
        svc = start_hotpath(Path(d) / "data", Path(d), tree=tree)
        try:
            pid, url = svc.proc.pid, svc.url
            sid = httpx.post(
                f"{url}/session/start", json={"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
            ).json()["session_id"]
            before = thread_ns(pid)
            accepted = asyncio.run(send_batches(svc.port, sid, batches))
            httpx.post(f"{url}/session/{sid}/end", timeout=300)  # every row stored and the session published
            after = thread_ns(pid)
            rows = httpx.get(f"{url}/health").json()["writer"]["rows_written"]
        finally:
            svc.stop()
    part = dict.fromkeys(PARTS, 0.0)
    for tid, ns in after.items():
        used = ns - before.get(tid, 0)
        key = "event loop" if tid == pid else "writer and store" if tid in before else "workers"
        part[key] += used / n / 1000
    return {**part, "total": sum(part.values()), "accepted": accepted, "frames": n, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--laps", type=int, default=20, help="laps of Sonoma at 50 Hz (seed 4)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--base", type=Path, help="another checkout, alternating with this one")
    ap.add_argument("--columns", action="store_true", help="column batches instead of frame objects")
    a = ap.parse_args()
    n, batches = _batches(a.laps, a.columns)
    trees = [("this tree", REPO)] + ([("base", a.base.resolve())] if a.base else [])
    for k in range(a.rounds):
        for name, tree in trees:
            r = measure(tree, n, batches)
            split = ", ".join(f"{p} {r[p]:.1f}" for p in PARTS)
            sys.stdout.write(
                f"round {k + 1}, {name}: {r['frames']:,} frames, {r['accepted']:,} accepted, "
                f"{r['rows']:,} rows stored; CPU us per frame: {split}; total {r['total']:.1f} "
                f"-> {1e6 / r['total']:,.0f} frames/s on one core; load {os.getloadavg()[0]:.1f}\n"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()

"""How long the store writer thread holds the GIL, and how long the frame/cue thread waits for it.

The real ``StoreWriter`` on a real DuckDB file writes 1 kHz telemetry (500-row batches of the simulator's
frames, handed over as the call that builds the Arrow batch, as ``LiveSession.flush_rows`` does) while a
probe thread stands in for the event loop's thread. Two probes, one at a time:

- ``busy``: a Python loop that always wants the GIL; its longest gap between two iterations, less the
  time it and the writer waited for a core in that gap (``/proc/.../schedstat``: the scheduler's part,
  which grows with the machine's load; the writer may be preempted while it holds the GIL), is the
  longest stretch the writer held the GIL (CPython takes it back from bytecode after
  ``sys.getswitchinterval()``, but never from inside one C call such as ``pa.Table.from_pylist``).
- ``sleeper``: sleeps 1 ms, then needs the GIL (as the loop does when a frame arrives); its overshoot
  past the 1 ms, less the same scheduler's part, is its wait for the GIL (timer slack included).

And the longest single pyarrow call of a 500-row batch's build, in thread CPU time (a C call that never
lets the GIL go: the time it holds it, whatever the load).

Cases alternate in one process (a loaded machine hits them alike): the GIL slice at CPython's 5 ms and at
a shorter one (``--slices``), and the batch built in one
``from_pylist`` call (the code before) or by this tree's ``telemetry_table`` (bounded calls).

    python bench/gil_hold.py [--rounds 3] [--batches 40] [--slices 5 0.5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from services.hotpath import records  # noqa: E402
from services.hotpath.frame_columns import ROWS_PER_CALL, telemetry_table  # noqa: E402
from services.hotpath.replay import frames_of  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from shared.store.hot import open_hot_db  # noqa: E402
from shared.store.writer import StoreWriter  # noqa: E402

Build = Callable[[str, list[Any], pa.Schema], pa.Table]


def one_call(session_id: str, rows: list[Any], schema: pa.Schema) -> pa.Table:
    """The code before: the whole batch in one ``from_pylist`` call (the GIL held throughout)."""
    tbl = pa.Table.from_pylist(rows, schema=schema)
    return tbl.add_column(0, "session_id", pa.array([session_id] * tbl.num_rows, pa.string()))


def _rows(n: int) -> list[dict[str, float]]:
    fr = list(frames_of(simulate(laps=1, seed=3, rate_hz=1000.0).wide))[:n]
    for i, f in enumerate(fr):
        f["lap"], f["dist_m"] = 1, float(i)
    return fr


def _run_delay(stat: Any) -> float:
    """Seconds this thread has waited on a run queue (Linux schedstat: runnable, no core given)."""
    stat.seek(0)
    return int(stat.read().split()[1]) / 1e9


def _cpu(build: Build, rows: list[Any], schema: pa.Schema) -> float:
    t = time.thread_time()
    build("gil", rows, schema)
    return time.thread_time() - t


def run_case(
    writer: StoreWriter, batches: list[list[Any]], build: Build, slice_s: float, kind: str
) -> np.ndarray:
    """Gaps (ms) the probe saw while the writer wrote ``batches``."""
    schema = records._row_schema()
    sys.setswitchinterval(slice_s)
    stop = threading.Event()
    gaps: list[float] = []

    writer_tid = next(t.native_id for t in threading.enumerate() if t.name == "pitwall-store-writer")

    def probe() -> None:
        with (
            open("/proc/thread-self/schedstat", "rb", buffering=0) as mine,
            open(f"/proc/self/task/{writer_tid}/schedstat", "rb", buffering=0) as its,
        ):
            queued0 = _run_delay(mine) + _run_delay(its)
            last = time.perf_counter()
            while not stop.is_set():
                if kind == "sleeper":
                    time.sleep(0.001)
                    last += 0.001
                t = time.perf_counter()
                if t - last > 5e-5 or kind == "sleeper":  # less either thread's wait for a core
                    queued = _run_delay(mine) + _run_delay(its)
                    gaps.append(t - last - min(t - last, queued - queued0))
                    queued0 = queued
                    t = time.perf_counter()
                last = t

    th = threading.Thread(target=probe)
    th.start()
    try:
        for rows in batches:
            done = threading.Event()
            writer.submit("telemetry", partial(build, "gil", rows, schema))
            writer.mark(done.set)
            writer.wake()
            done.wait(60)
    finally:
        stop.set()
        th.join()
        sys.setswitchinterval(0.005)
    return np.asarray(gaps or [0.0]) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", type=int, default=40, help="500-row batches per case")
    ap.add_argument("--slices", type=float, nargs="+", default=[5.0, 0.5], metavar="MS", help="GIL slices")
    a = ap.parse_args()
    rows = _rows(500 * a.batches)
    batches = [rows[i : i + 500] for i in range(0, len(rows), 500)]
    cases = [
        (f"{slice_s * 1000:g} ms slice, {name}", build, slice_s)
        for slice_s in (ms / 1000 for ms in a.slices)
        for name, build in (("one from_pylist call", one_call), ("telemetry_table", telemetry_table))
    ]
    out: dict[tuple[str, str], list[np.ndarray]] = {}
    with tempfile.TemporaryDirectory() as d:
        con = open_hot_db(settings_for(Path(d) / "data"))
        writer = StoreWriter(con, flush_interval_s=0.5)
        try:
            for _ in range(a.rounds):
                for probe in ("busy", "sleeper"):
                    for name, build, slice_s in cases:
                        out.setdefault((probe, name), []).append(
                            run_case(writer, batches, build, slice_s, probe)
                        )
        finally:
            writer.close()
            con.close()
    sys.stdout.write(
        f"python bench/gil_hold.py --rounds {a.rounds} --batches {a.batches}; load {os.getloadavg()[0]:.1f}\n"
    )
    for (probe, name), runs in out.items():
        g = np.concatenate(runs)
        if probe == "busy":
            sys.stdout.write(
                f"GIL holds by the writer, {name}: over 1 ms x{int((g > 1).sum())}, over 2 ms "
                f"x{int((g > 2).sum())}, longest {g.max():.3f} ms ({len(runs)} x {a.batches} batches)\n"
            )
        else:
            sys.stdout.write(
                f"1 ms sleeper's GIL wait, {name}: p50 {np.percentile(g, 50):.3f} ms, p99 "
                f"{np.percentile(g, 99):.3f} ms, p99.9 {np.percentile(g, 99.9):.3f} ms, max {g.max():.3f} ms\n"
            )
    schema = records._row_schema()
    for name, build, n in (
        ("one from_pylist call", one_call, 500),
        ("telemetry_table", telemetry_table, ROWS_PER_CALL),
    ):
        best = min(_cpu(build, batches[0][:n], schema) for _ in range(20))
        sys.stdout.write(f"longest pyarrow call building 500 rows, {name}: {best * 1000:.3f} ms thread CPU\n")


if __name__ == "__main__":
    main()

"""Frame -> decision latency of every frame of a 10-lap 1 kHz session, through the hot path's own state
(``HotpathState``: the real store writer thread and DuckDB beside the frame path, publishing each lap),
with where the slowest frames happen: a lap close, a corner exit, a hand-over to the store, or none of
them (the scheduler, the garbage collector, the GIL held by the writer thread).

Each tree runs in its own process; with ``--base`` this tree and another checkout alternate, so a loaded
machine hits both alike (compare the two as a ratio within one run).

    python bench/frame_stall.py [--laps 10] [--runs 1] [--base /tmp/fp-base] [--busy] [--phone] [--own-lists]
    python bench/frame_stall.py --laps 10 --speed 1   # frames as the logger sends them (1 kHz), not flat out
    python bench/frame_stall.py --gil-slices 5 1 [--laps 3] [--runs 2]
    python bench/frame_stall.py --laps 3 --profile "corner exit"   # cProfile (thread CPU) of that step's calls
    python bench/frame_stall.py --laps 10 --causes   # the worst 20 frames' rusage and collector passes, classified

Each garbage-collector pass is timed with ``gc.callbacks``, by generation and by thread (a pass on the
writer's thread holds the GIL the frame path waits for).

Flat out (the default) the store writer falls behind (a queue of ~1,300 batches) and takes the GIL
whenever numpy lets it go mid-frame: a corner exit waits tens of ms for it, and the collector walks the
backlog. ``--speed 1`` feeds the frames at the session's own rate (``--speed 2``: twice that), the writer
keeping up in between, as in a car.

``--busy``: a busy-looping process pinned to one core beside it; ``--phone``: the measuring process
pinned to one core with a CPU quota (``bench/cpu_limits.py``).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.cpu_limits import busy_core, limit_cpu  # noqa: E402
from bench.frame_causes import FrameCauses, describe, steal_ticks  # noqa: E402

STEPS = ("lap close", "corner exit", "store hand-over", "garbage collector", "other")


def _child(
    laps: int,
    own_lists: bool,
    gil_slice_ms: float | None,
    profile: str | None = None,
    causes: bool = False,
    speed: float = 0.0,
) -> None:
    """In the tree this process runs in (its cwd): one session, every frame timed (wall and thread CPU),
    as JSON. The timings go into preallocated numpy arrays, not lists: three lists of a million Python
    ints are what a full collection walked in the first version of this bench (64-111 ms a pass, charged
    to the frame path); ``own_lists`` measures that way again, to show it."""
    sys.path.insert(0, os.getcwd())
    import gc
    import importlib
    import importlib.util
    import threading

    import numpy as np

    from services.hotpath import state as state_module
    from services.hotpath.replay import frames_of
    from services.hotpath.state import HotpathState
    from shared.settings import settings_for
    from shared.simulator import simulate

    sim = simulate(laps=laps, seed=3, rate_hz=1000.0)
    n = len(sim.wide["t_s"])
    with tempfile.TemporaryDirectory() as d:
        state = HotpathState(settings_for(Path(d) / "data"))
        sid = state.start_session("bench", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        sess = state.session(sid)
        if importlib.util.find_spec("services.hotpath.interpreter") is not None:
            importlib.import_module("services.hotpath.interpreter").settle()  # as the service's start-up
        elif hasattr(state_module, "settle_heap"):  # a tree from before services.hotpath.interpreter
            state_module.settle_heap()
        if gil_slice_ms is not None:  # another slice than the service's, to compare
            sys.setswitchinterval(gil_slice_ms / 1000)
        tracked = len(gc.get_objects())  # what a full collection walks from here
        code = {s: k for k, s in enumerate(STEPS)}
        step = [code["other"]]  # the first step this frame entered

        prof = cProfile.Profile(time.thread_time)  # --profile: that step's calls, in thread CPU

        def tagged(fn, name):  # type: ignore[no-untyped-def]
            def call(*a):  # type: ignore[no-untyped-def]
                if step[0] == code["other"]:
                    step[0] = code[name]
                if name != profile:
                    return fn(*a)
                prof.enable()
                try:
                    return fn(*a)
                finally:
                    prof.disable()

            return call

        main = threading.get_ident()
        passes: list[tuple[int, bool, float, float]] = []  # generation, on the frame path?, wall, CPU (ms)
        began = [0, 0]

        def collector(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                if threading.get_ident() == main and step[0] == code["other"]:
                    step[0] = code["garbage collector"]
                began[0], began[1] = time.perf_counter_ns(), time.thread_time_ns()
                return
            wall_ms = (time.perf_counter_ns() - began[0]) / 1e6
            cpu_ms = (time.thread_time_ns() - began[1]) / 1e6
            passes.append((info["generation"], threading.get_ident() == main, wall_ms, cpu_ms))

        sess._close_lap = tagged(sess._close_lap, "lap close")
        sess._store_corner = tagged(sess._store_corner, "corner exit")
        for stage in ("_begin", "_step"):  # a corner's summary, spread over its exit frame and the next two
            if hasattr(sess.watcher, stage):
                setattr(sess.watcher, stage, tagged(getattr(sess.watcher, stage), "corner exit"))
        sess.flush_rows = tagged(sess.flush_rows, "store hand-over")
        gc.callbacks.append(collector)
        if own_lists:
            wall_l: list[int] = []
            cpu_l: list[int] = []
            where_l: list[int] = []
        wall = np.zeros(n, np.int64)
        cpu = np.zeros(n, np.int64)
        where = np.zeros(n, np.int8)
        queued = 0  # the most items waiting for the writer (sampled every 1,000 frames)
        why = FrameCauses(n).start() if causes else None
        steal0 = steal_ticks()
        t_s = sim.wide["t_s"]
        began_at = time.perf_counter()
        for k, f in enumerate(frames_of(sim.wide)):
            ahead = began_at + (t_s[k] - t_s[0]) / speed - time.perf_counter() if speed else 0.0
            if ahead > 0.0002:  # paced: wait for the frame's time
                time.sleep(ahead)
            if k % 1000 == 0:
                queued = max(queued, state.writer.queue_depth)
            step[0] = code["other"]
            if why is not None:
                why.before(k)
            c0 = time.thread_time_ns()
            t0 = time.perf_counter_ns()
            sess.process(f, t0 / 1e9)
            wall[k] = time.perf_counter_ns() - t0
            cpu[k] = time.thread_time_ns() - c0
            if why is not None:
                why.after()
            where[k] = step[0]
            if own_lists:
                wall_l.append(int(wall[k]))
                cpu_l.append(int(cpu[k]))
                where_l.append(step[0])
        gc.callbacks.remove(collector)
        steal = steal_ticks() - steal0
        if why is not None:
            why.stop()
        state.end_session(sid)
        state.writer.flush(timeout=600)  # the session's publication, however loaded the machine
        state.close()
        gc.unfreeze()
        sys.setswitchinterval(0.005)  # CPython's default, after a --gil-slice-ms run
    if profile is not None:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(20)
    w = wall / 1e6
    c = cpu / 1e6
    worst = int(np.argmax(w))
    worst_cpu = int(np.argmax(c))
    per = {}
    for s in STEPS:
        idx = where == code[s]
        if idx.any():
            per[s] = {
                "n": int(idx.sum()),
                "wall_max": float(w[idx].max()),
                "cpu_p99": float(np.percentile(c[idx], 99)),
                "cpu_max": float(c[idx].max()),
            }
    gcs = {}
    for g in range(3):
        for on_path in (True, False):
            mine = [p for p in passes if p[0] == g and p[1] == on_path]
            if mine:
                gcs[f"gen {g} on {'the frame path' if on_path else 'another thread'}"] = {
                    "n": len(mine),
                    "wall_max": max(p[2] for p in mine),
                    "cpu_max": max(p[3] for p in mine),
                }
    out = {
        "frames": len(w),
        "p50": float(np.percentile(w, 50)),
        "p99": float(np.percentile(w, 99)),
        "max": float(w.max()),
        "max_at": STEPS[where[worst]],
        "cpu_p99": float(np.percentile(c, 99)),
        "cpu_max": float(c.max()),
        "cpu_max_at": f"{STEPS[where[worst_cpu]]}, frame {worst_cpu:,}",
        "over_5ms": int((w > 5.0).sum()),
        # waiting (wall - CPU: the GIL, the scheduler) between 1.5 and 8 ms: a GIL slice of 5 ms shows here
        "waited_1_5_to_8ms": int((((w - c) > 1.5) & ((w - c) < 8.0)).sum()),
        "waited_p999": float(np.percentile(w - c, 99.9)),
        "cpu_over_5ms": int((c > 5.0).sum()),
        "gc_tracked": tracked,
        "writer_queue_max": queued,
        "steps": per,
        "collections": gcs,
        "steal_ticks": steal,
    }
    if why is not None:
        out["causes"] = why.worst(cpu, [STEPS[s] for s in where])
    sys.stdout.write(json.dumps(out) + "\n")


def measure(
    tree: Path,
    laps: int,
    phone: bool,
    own_lists: bool = False,
    gil_slice_ms: float | None = None,
    profile: str | None = None,
    causes: bool = False,
    speed: float = 0.0,
) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    extra = ["--own-lists"] if own_lists else []
    extra += ["--gil-slice-ms", str(gil_slice_ms)] if gil_slice_ms is not None else []
    extra += ["--profile", profile] if profile is not None else []
    extra += ["--causes"] if causes else []
    extra += ["--speed", str(speed)] if speed else []
    p = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--laps", str(laps), *extra],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    with limit_cpu(p.pid, enabled=phone):
        out, _ = p.communicate()
    if p.returncode != 0:
        raise SystemExit(f"the measuring process for {tree} failed ({p.returncode})")
    got: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    got["load"] = os.getloadavg()[0]
    return got


def _line(name: str, r: dict[str, object]) -> str:
    steps = r["steps"]
    assert isinstance(steps, dict)
    per = "; ".join(
        f"{s}: max {v['wall_max']:.2f} ms wall / {v['cpu_max']:.2f} ms CPU, CPU p99 {v['cpu_p99']:.2f} (x{v['n']:,})"
        for s, v in steps.items()
    )
    gcs = r["collections"]
    assert isinstance(gcs, dict)
    passes = "; ".join(
        f"{g}: x{v['n']:,}, max {v['wall_max']:.2f} ms wall / {v['cpu_max']:.2f} ms CPU"
        for g, v in gcs.items()
    )
    return (
        f"{name}: {r['frames']:,} frames, p50 {r['p50']:.3f} ms, p99 {r['p99']:.3f} ms, max {r['max']:.2f} ms "
        f"at a {r['max_at']} (thread CPU p99 {r['cpu_p99']:.3f}, max {r['cpu_max']:.2f} ms at {r['cpu_max_at']}); "
        f"{r['over_5ms']} frames over 5 ms wall, {r['cpu_over_5ms']} over 5 ms CPU; "
        f"{r['waited_1_5_to_8ms']} waited 1.5-8 ms (wall - CPU; p99.9 {r['waited_p999']:.2f} ms); "
        f"{r['gc_tracked']:,} objects the garbage collector walks; "
        f"writer queue up to {r['writer_queue_max']:,} items; "
        f"steal {r['steal_ticks']} ticks; load {r['load']:.1f}\n    {per}\n    collector passes: {passes}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--laps", type=int, default=10)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--base", type=Path, help="another checkout to compare with, alternating")
    ap.add_argument("--busy", action="store_true", help="a busy loop pinned to one core beside it")
    ap.add_argument("--phone", action="store_true", help="one core and a CPU quota (bench/cpu_limits.py)")
    ap.add_argument(
        "--own-lists", action="store_true", help="also time into Python lists, as the first version did"
    )
    ap.add_argument(
        "--gil-slices",
        type=float,
        nargs="+",
        metavar="MS",
        help="this tree only, once per GIL slice (sys.setswitchinterval) given, alternating",
    )
    ap.add_argument("--profile", choices=STEPS[:3], help="cProfile that step's calls (thread CPU), to stderr")
    ap.add_argument("--causes", action="store_true", help="what the 20 frames of most thread CPU were")
    ap.add_argument(
        "--speed", type=float, default=0.0, help="frames at this multiple of their rate (0: flat out)"
    )
    ap.add_argument("--gil-slice-ms", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        _child(a.laps, a.own_lists, a.gil_slice_ms, a.profile, a.causes, a.speed)
        return
    if a.gil_slices:
        with busy_core(enabled=a.busy):
            for k in range(a.runs):
                for ms in a.gil_slices:
                    r = measure(REPO, a.laps, a.phone, gil_slice_ms=ms, speed=a.speed)
                    sys.stdout.write(_line(f"run {k + 1}, GIL slice {ms:g} ms", r) + "\n")
                    sys.stdout.flush()
        return
    trees = [("this tree", REPO)] + ([("base", a.base.resolve())] if a.base else [])
    with busy_core(enabled=a.busy):
        for k in range(a.runs):
            for name, tree in trees:
                for lists in (False, True) if a.own_lists else (False,):
                    label = f"run {k + 1}, {name}" + (", timed into lists" if lists else "")
                    r = measure(
                        tree, a.laps, a.phone, lists, profile=a.profile, causes=a.causes, speed=a.speed
                    )
                    sys.stdout.write(_line(label, r) + "\n" + describe(r))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()

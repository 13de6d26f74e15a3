"""CPU time per frame of WebSocket ingest minus the socket, this tree against another, in one run.

The same msgpack batches as ``bench/hotpath.py``'s sustained-ingest row (10 laps of Sonoma at 50 Hz, seed 4,
batches of 1,000) go through the endpoint's own code: ``decode`` -> ``HotpathState.ingest`` in chunks of
``CHUNK_FRAMES`` -> the store writer thread, waited for until it has committed everything. Reported:
``time.process_time()`` (every thread of the process) per frame, split into decode, ingest (the main
thread: validation, frame path, Arrow batches), writer (the writer thread: its Python and the inserts it
runs) and duckdb (the rest: DuckDB's own worker threads). Each
tree runs in its own process, alternately, best of N, so a loaded machine hits both alike.

    python bench/ingest_cpu.py --base /work/wt/perf-base      (this tree against a checkout of main)
    python bench/ingest_cpu.py --profile                      (cProfile of this tree's ingest)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STAGES = ("decode", "ingest", "writer", "duckdb", "total")


def _child(profile: bool) -> None:
    sys.path.insert(0, os.getcwd())
    import msgpack

    from services.hotpath.ingest_decode import batch_of, decode
    from services.hotpath.replay import frames_of
    from services.hotpath.routers import ingest as ing
    from services.hotpath.routers.ingest import CHUNK_FRAMES
    from services.hotpath.state import HotpathState
    from shared.settings import settings_for
    from shared.simulator import simulate

    frames = list(frames_of(simulate(laps=10, seed=4, rate_hz=50.0).wide))
    batches = [msgpack.packb({"frames": frames[i : i + 1000]}) for i in range(0, len(frames), 1000)]
    with tempfile.TemporaryDirectory() as d:
        state = HotpathState(settings_for(Path(d) / "data"))
        sid = state.start_session("bench", "bmw_e46_m3_aim_mxp", "sonoma", None, None)
        state.writer.flush()
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        w0 = state.writer.run(lambda con: time.thread_time())
        p0, m0 = time.process_time(), time.thread_time()
        dec = 0.0
        accepted = 0
        for b in batches:
            t0 = time.thread_time()
            # as the endpoint does: a message over OFF_LOOP_BYTES is decoded in a worker thread
            big = len(b) > getattr(ing, "OFF_LOOP_BYTES", 1 << 62)
            _, fr = batch_of(state.settings, decode(state.settings, b, big))
            dec += time.thread_time() - t0
            arrived = time.perf_counter()
            for i in range(0, len(fr), CHUNK_FRAMES):
                accepted += state.ingest(sid, fr[i : i + CHUNK_FRAMES], arrived)["accepted"]
            state.session(sid).durable_t  # the ack's fields  # noqa: B018
        state.session(sid).flush_rows()
        state.writer.flush(timeout=120)
        main = time.thread_time() - m0
        total = time.process_time() - p0
        wt = state.writer.run(lambda con: time.thread_time()) - w0
        if prof is not None:
            import pstats

            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(35)
        rows = state.writer.rows_written
        state.close()
    n = len(frames)
    out = {
        "frames": n,
        "accepted": accepted,
        "rows_written": rows,
        "decode": dec / n * 1e6,
        "ingest": (main - dec) / n * 1e6,
        "writer": wt / n * 1e6,
        "duckdb": (total - main - wt) / n * 1e6,
        "total": total / n * 1e6,
    }
    print(json.dumps(out))


def _run(tree: Path, profile: bool = False) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    r = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", *(["--profile"] if profile else [])],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    if profile:
        sys.stdout.write(r.stderr)
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=Path, help="another checkout to compare against (e.g. main)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        _child(a.profile)
        return
    if a.profile:
        print(_run(REPO, profile=True))
        return
    trees = {"this": REPO, **({"base": a.base.resolve()} if a.base else {})}
    best: dict[str, dict[str, float]] = {}
    for _ in range(a.rounds):
        for name, tree in trees.items():
            got = _run(tree)
            if got["accepted"] != got["frames"]:
                raise SystemExit(f"{name}: accepted {got['accepted']} of {got['frames']} frames")
            prev = best.setdefault(name, got)  # each stage's best round (the least disturbed by load)
            for k in STAGES:
                prev[k] = min(prev[k], got[k])
    print(
        f"{best['this']['frames']:,} frames, CPU microseconds per frame (all threads), best of {a.rounds} per stage"
    )
    print(f"{'stage':<8}" + "".join(f"{n:>10}" for n in trees) + ("     base/this" if a.base else ""))
    for s in STAGES:
        line = f"{s:<8}" + "".join(f"{best[n][s]:>10.1f}" for n in trees)
        if a.base and best["this"][s] > 0:
            line += f"{best['base'][s] / best['this'][s]:>13.2f}x"
        print(line)
    for n in trees:
        print(
            f"{n}: {1e6 / best[n]['total']:,.0f} frames per CPU second; rows written {best[n]['rows_written']:,}"
        )


if __name__ == "__main__":
    main()

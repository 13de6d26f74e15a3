"""Hot path speed: arbiter decision latency in process at 1 kHz, WebSocket frame -> SSE cue end to end
at 100 Hz on loopback while the store writes, and sustained ingest with zero frames lost.

    python bench/hotpath.py [--cues 100]     (about 3 min; starts its own hot path process)
    python bench/hotpath.py --only process_many   (the frame path rows alone, about 1 min)
    python bench/hotpath.py --only service --busy  (a busy loop pinned to one core beside the hot path)
    python bench/hotpath.py --only service --phone (the hot path on one core with a CPU quota)
The frame -> decision stalls of a 10-lap 1 kHz session, by step: python bench/frame_stall.py
The cue row alone, this tree against another checkout: python bench/cue_latency.py --base <old tree>
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
import msgpack  # noqa: E402
import numpy as np  # noqa: E402

from bench import frame_stall  # noqa: E402
from bench.cpu_limits import busy_core, describe, limit_cpu  # noqa: E402
from bench.cue_latency import cue_run  # noqa: E402
from bench.cue_latency import row as cue_row  # noqa: E402
from bench.rows import print_rows  # noqa: E402
from services.hotpath.columns import pack_columns  # noqa: E402
from services.hotpath.frame_batch import process_many  # noqa: E402
from services.hotpath.frame_path import LiveSession  # noqa: E402
from services.hotpath.replay import frames_of  # noqa: E402
from shared.profiles.car import load_car  # noqa: E402
from shared.profiles.track import load_track  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from tests.support.frames import gps_held as hold_gps  # noqa: E402
from tests.support.procs import start_hotpath  # noqa: E402

CMD = "python bench/hotpath.py"
DRIVE_START_P99_S = 0.00317  # SSE cue -> Web Audio start on the drive screen, p99 (bench/drive.py, 5x)
WINDOW = 4  # batches in flight on the ingest WebSocket


def pct(a: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(a), q)) if a else float("nan")


def bench_in_process(rows: list[tuple[str, str, str, str]]) -> None:
    """Frame -> decision of every frame of a 10-lap 1 kHz session beside the real store writer, with
    where the slowest frame was (``bench/frame_stall.py``); then the frame path's throughput alone."""
    r = frame_stall.measure(REPO, 10, phone=False)
    rows.append(
        (
            "frame -> arbiter decision, in process, 1 kHz frames, 10 laps, store writer beside it",
            f"p50 {r['p50']:.3f} ms, p99 {r['p99']:.3f} ms, max {r['max']:.2f} ms at a {r['max_at']} "
            f"(thread CPU max {r['cpu_max']:.2f} ms at {r['cpu_max_at']})",
            f"target max <= 5 ms; {r['over_5ms']} frames over 5 ms; load {r['load']:.1f}",
            "python bench/frame_stall.py",
        )
    )
    sim = simulate(laps=6, seed=3, rate_hz=1000.0)
    sess = LiveSession("b", load_car("bmw_e46_m3_aim_mxp"), load_track("sonoma"), lambda t, r: None)
    frames = list(frames_of(sim.wide))
    t_all = time.perf_counter()
    for f in frames:
        sess.process(f, 0.0)
    el = time.perf_counter() - t_all
    rows.append(
        (
            "frame path throughput, in process",
            f"{len(frames) / el:,.0f} frames/s",
            f"{len(frames):,} frames, {sess.cues_spoken} cues spoken, {sess.cues_dropped} dropped",
            CMD,
        )
    )


def gps_held(frames: list[dict[str, float]], rate_hz: float, gps_hz: float) -> list[dict[str, float]]:
    """The frames with the GPS fix new at ``gps_hz`` only, held between (frames at ``rate_hz``)."""
    return hold_gps(frames, max(1, round(rate_hz / gps_hz)))


def bench_gps_rate(rows: list[tuple[str, str, str, str]]) -> None:
    """CPU time of the frame path per frame at 50 Hz: a new GPS fix on every frame (the worst case) vs the
    fix held between 25 Hz and 10 Hz updates; same run, alternating, best of 3."""
    frames = list(frames_of(simulate(laps=10, seed=4, rate_hz=50.0).wide))
    car, track = load_car("bmw_e46_m3_aim_mxp"), load_track("sonoma")
    cases = {"every frame": frames, "25 Hz": gps_held(frames, 50, 25), "10 Hz": gps_held(frames, 50, 10)}
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(3):
        for name, fr in cases.items():
            sess = LiveSession("b", car, track, lambda t, r: None)
            t0 = time.process_time()
            for f in fr:
                sess.process(f, 0.0)
            best[name] = min(best[name], time.process_time() - t0)
    us = {k: v / len(frames) * 1e6 for k, v in best.items()}
    rows.append(
        (
            "frame path CPU per frame, 50 Hz, GPS fix: new every frame (worst) / 25 Hz / 10 Hz",
            " / ".join(f"{v:.1f} us" for v in us.values()),
            f"{len(frames):,} frames, 10 laps of Sonoma; CPU time, best of 3 each, alternating",
            CMD,
        )
    )


def bench_process_many(rows: list[tuple[str, str, str, str]], chunk: int = 100) -> None:
    """CPU time per frame at 50 Hz: ``process`` on each frame vs ``process_many`` on chunks of ``chunk``
    frames (the ingest's validated chunks), GPS fix new on every frame / held at 25 Hz / at 10 Hz; same
    run, alternating, best of 3. The outputs are the same (tests/hotpath/test_process_many_same.py)."""
    frames = list(frames_of(simulate(laps=10, seed=4, rate_hz=50.0).wide))
    car, track = load_car("bmw_e46_m3_aim_mxp"), load_track("sonoma")
    cases = {"every frame": frames, "25 Hz": gps_held(frames, 50, 25), "10 Hz": gps_held(frames, 50, 10)}
    best = {(name, many): float("inf") for name in cases for many in (False, True)}
    for _ in range(3):
        for name, fr in cases.items():
            for many in (False, True):
                sess = LiveSession("b", car, track, lambda t, r: None)
                t0 = time.process_time()
                if many:
                    for i in range(0, len(fr), chunk):
                        process_many(sess, fr[i : i + chunk], 0.0)
                else:
                    for f in fr:
                        sess.process(f, 0.0)
                best[name, many] = min(best[name, many], time.process_time() - t0)
    us = {k: v / len(frames) * 1e6 for k, v in best.items()}
    rows.append(
        (
            f"frame path CPU per frame, process vs process_many (chunks of {chunk}), 50 Hz, GPS fix: "
            "new every frame / 25 Hz / 10 Hz",
            " / ".join(f"{us[n, False]:.1f} vs {us[n, True]:.1f} us" for n in cases),
            " / ".join(f"{us[n, False] / us[n, True]:.2f}x" for n in cases)
            + f"; target <= 18 us; {len(frames):,} frames, 10 laps of Sonoma; CPU time, best of 3, alternating",
            CMD,
        )
    )


def bench_shared_conditions(rows: list[tuple[str, str, str, str]]) -> None:
    """The frame path with the safety rules run on every frame (as before) and with them sharing
    LiveEvents' per-frame conditions, same frames, same run, alternating so load changes hit both."""
    frames = list(frames_of(simulate(laps=4, seed=3, rate_hz=50.0).wide))
    car, track = load_car("bmw_e46_m3_aim_mxp"), load_track("sonoma")
    best = {True: float("inf"), False: float("inf")}
    for _ in range(3):
        for share in (False, True):
            sess = LiveSession("b", car, track, lambda t, r: None)
            if not share:
                on_frame = sess.coach.on_frame
                sess.coach.on_frame = lambda row, now, conditions=None, f=on_frame: f(row, now)  # type: ignore[method-assign]
            t0 = time.process_time()
            for f in frames:
                sess.process(f, 0.0)
            best[share] = min(best[share], time.process_time() - t0)
    rows.append(
        (
            "frame path, safety rules sharing LiveEvents' conditions vs on every frame",
            f"{len(frames) / best[True]:,.0f} vs {len(frames) / best[False]:,.0f} frames/s",
            f"{best[False] / best[True]:.2f}x (CPU time, best of 3 each, {len(frames):,} frames at 50 Hz)",
            CMD,
        )
    )


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system, every thread) a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def send_batches(port: int, sid: str, batches: list[bytes]) -> int:
    """Stream ``batches`` to the hot path's ingest WebSocket as a logger bridge does: up to ``WINDOW`` in
    flight, each acknowledged with its counts; the frames accepted."""
    import websockets

    window = asyncio.Semaphore(WINDOW)
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ingest/ws?session_id={sid}", max_size=None, compression=None
    ) as ws:

        async def acks() -> int:
            n = 0
            for _ in batches:
                n += json.loads(await ws.recv())["accepted"]
                window.release()
            return n

        reader = asyncio.create_task(acks())
        for b in batches:
            await window.acquire()
            await ws.send(b)
        return await reader


def column_batches(frames: list[dict[str, float]], size: int = 1000) -> list[bytes]:
    """The frames as ``{"columns": ...}`` batches (``pack_columns``: a float64 ``bin`` per channel)."""
    return [
        msgpack.packb({"columns": pack_columns(frames[i : i + size])}) for i in range(0, len(frames), size)
    ]


def bench_ingest(
    rows: list[tuple[str, str, str, str]],
    url: str,
    port: int,
    pid: int,
    gps_hz: float | None,
    columns: bool = False,
    limits: str = "no limit",
) -> None:

    sim = simulate(laps=10, seed=4, rate_hz=50.0)
    frames = list(frames_of(sim.wide))
    if gps_hz is not None:
        frames = gps_held(frames, 50.0, gps_hz)
    sid = httpx.post(f"{url}/session/start", json={"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}).json()[
        "session_id"
    ]
    before = httpx.get(f"{url}/health").json()
    if columns:
        batches = column_batches(frames)
    else:
        batches = [msgpack.packb({"frames": frames[i : i + 1000]}) for i in range(0, len(frames), 1000)]

    c0, t0 = cpu_s(pid), time.perf_counter()
    accepted = asyncio.run(send_batches(port, sid, batches))
    el = time.perf_counter() - t0
    cpu_us = (cpu_s(pid) - c0) / max(accepted, 1) * 1e6  # the hot path process, all its threads
    httpx.post(f"{url}/session/{sid}/end", timeout=60)
    after = httpx.get(f"{url}/health").json()
    lost = len(frames) - accepted
    rows_written = after["writer"]["rows_written"] - before["writer"]["rows_written"]
    rows.append(
        (
            f"sustained ingest over WebSocket (msgpack {'column' if columns else 'frame-object'} batches of "
            f"1,000, {WINDOW} in flight), GPS fix "
            + ("new on every frame (worst case)" if gps_hz is None else f"at {gps_hz:g} Hz, frames at 50 Hz"),
            f"{accepted / el:,.0f} frames/s; hot path CPU {cpu_us:.0f} us/frame ({1e6 / cpu_us:,.0f} frames per CPU s)",
            f"target >= 30,000; lost {lost} of {len(frames):,}; store rows written {rows_written:,}; "
            f"load {os.getloadavg()[0]:.1f}; {limits}",
            CMD,
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cues", type=int, default=100, help="safety triggers sent for the cue latency")
    ap.add_argument("--only", choices=["process_many", "service"], help="run only these rows")
    ap.add_argument("--cue-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--busy", action="store_true", help="a busy-loop process pinned to one core beside it")
    ap.add_argument("--phone", action="store_true", help="the hot path on one core with a CPU quota")
    a = ap.parse_args()
    rows: list[tuple[str, str, str, str]] = []
    if a.only == "process_many":
        bench_process_many(rows)
        bench_process_many(rows, chunk=1000)
        print_rows(rows)
        return
    if a.only != "service":
        bench_in_process(rows)
        bench_gps_rate(rows)
        bench_process_many(rows)
        bench_process_many(rows, chunk=1000)
        bench_shared_conditions(rows)
    with tempfile.TemporaryDirectory() as d, busy_core(enabled=a.busy):
        svc = start_hotpath(Path(d) / "data", Path(d))
        try:
            with limit_cpu(svc.proc.pid, enabled=a.phone):
                limits = ", ".join(
                    [
                        *(["a busy loop pinned to core 0"] if a.busy else []),
                        *([describe()] if a.phone else []),
                    ]
                )
                limits = limits or "no limit"
                rows.append(cue_row(cue_run(svc.url, svc.port, a.cues, svc.proc.pid), limits, CMD))
                for columns in () if a.cue_only else (False, True):
                    bench_ingest(rows, svc.url, svc.port, svc.proc.pid, None, columns, limits)
                    bench_ingest(rows, svc.url, svc.port, svc.proc.pid, 25.0, columns, limits)
        finally:
            svc.stop()
    print_rows(rows)


if __name__ == "__main__":
    main()

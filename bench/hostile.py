"""Hostile input, measured in one run: the file corpus through ``pitwall import`` (outcome, time, peak RSS
per case) and ``/health`` latency on a real hot path while maximal WebSocket batches are processed.

    python bench/hostile.py [--batches 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def corpus(tmp: Path) -> list[dict[str, object]]:
    from shared.simulator import simulate, write_aim_csv, write_candump
    from tests.hostile.test_files import CASES, run_import

    sim = simulate(laps=3, seed=5, rate_hz=20)
    base = {
        "csv": write_aim_csv(sim, tmp / "sim.csv"),
        "can": write_candump(sim, tmp / "sim.log", "bmw_e46_m3_aim_mxp"),
    }
    rows = []
    for name, (build, _) in sorted(CASES.items()):
        path = build(base, tmp / f"{name}.dat")
        t0 = time.perf_counter()
        code, out, rss = run_import(path, tmp / f"data-{name}")
        rows.append(
            {
                "case": name,
                "exit": code,
                "traceback": "Traceback" in out,
                "s": round(time.perf_counter() - t0, 2),
                "peak_rss_mb": round(rss / 1024),
                "message": " ".join(out.split())[:140],
            }
        )
    return rows


async def health_during_batches(tmp: Path, batches: int) -> dict[str, object]:
    import httpx
    import msgpack
    import websockets

    from tests.support.procs import start_hotpath

    hot = start_hotpath(tmp / "hot-data", tmp)
    try:
        async with httpx.AsyncClient(base_url=hot.url, timeout=60) as c:
            sid = (await c.post("/session/start", json={"driver_id": "bench"})).json()["session_id"]
            n = 20_000  # PITWALL_INGEST_MAX_BATCH_FRAMES default
            lat: list[float] = []
            idle: list[float] = []
            for _ in range(50):
                t0 = time.perf_counter()
                await c.get("/health")
                idle.append((time.perf_counter() - t0) * 1000)
            async with websockets.connect(
                f"ws://127.0.0.1:{hot.port}/ingest/ws?session_id={sid}", max_size=None
            ) as ws:
                t = 0.0
                batch_s = []
                for _ in range(batches):
                    frames = [
                        {"t_s": t + i * 0.001, "speed_kmh": 120.0, "rpm": 6000.0, "throttle_pct": 80.0}
                        for i in range(n)
                    ]
                    t += n * 0.001
                    payload = msgpack.packb({"frames": frames})
                    b0 = time.perf_counter()
                    await ws.send(payload)
                    ack = asyncio.create_task(ws.recv())
                    while not ack.done():
                        t0 = time.perf_counter()
                        await c.get("/health")
                        lat.append((time.perf_counter() - t0) * 1000)
                    await ack
                    batch_s.append(time.perf_counter() - b0)
            metrics = (await c.get("/metrics")).text
        lat.sort()
        idle.sort()
        return {
            "batch_frames": n,
            "batches": batches,
            "batch_s_median": round(sorted(batch_s)[len(batch_s) // 2], 3),
            "health_during_batch_n": len(lat),
            "health_p50_ms": round(lat[len(lat) // 2], 1),
            "health_p99_ms": round(lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1),
            "health_max_ms": round(lat[-1], 1),
            "health_idle_p50_ms": round(idle[len(idle) // 2], 1),
            "loop_lag_lines": [
                ln for ln in metrics.splitlines() if "event_loop_lag" in ln and not ln.startswith("#")
            ],
        }
    finally:
        hot.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows = corpus(tmp)
        health = asyncio.run(health_during_batches(tmp, args.batches))
    if args.json:
        sys.stdout.write(json.dumps({"corpus": rows, "health": health}, indent=1) + "\n")
        return
    worst_t = max(rows, key=lambda r: r["s"])  # type: ignore[arg-type, return-value]
    worst_m = max(rows, key=lambda r: r["peak_rss_mb"])  # type: ignore[arg-type, return-value]
    lines = ["| case | exit | traceback | s | peak RSS MB |", "|---|---|---|---|---|"]
    lines += [
        f"| {r['case']} | {r['exit']} | {r['traceback']} | {r['s']} | {r['peak_rss_mb']} |" for r in rows
    ]
    lines.append(
        f"slowest: {worst_t['case']} {worst_t['s']} s; largest: {worst_m['case']} {worst_m['peak_rss_mb']} MB"
    )
    lines.append(json.dumps(health, indent=1))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

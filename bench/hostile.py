"""Hostile input, measured in one run: the file corpus through ``pitwall import`` (outcome, time, peak RSS
per case), ``/health`` latency (polled from a process of its own) on a real hot path while maximal WebSocket batches are processed and while
200,000-frame batches are refused, and frames acknowledged vs stored after kill -9 three seconds after the
last ack and on a filesystem that fills up (a real 24 MiB tmpfs; root only).

    python bench/hostile.py [--batches 5] [--json] [--skip-corpus]
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


class HealthPoller:
    """``/health`` polled from its own process (its own interpreter and event loop), so the latency is
    the service's, not that of the bench's loop while it pushes a 10 MB body."""

    SCRIPT = (
        "import sys, time, httpx\n"
        "c = httpx.Client(base_url=sys.argv[1], timeout=60)\n"
        "for line in sys.stdin:\n"
        "    if line.strip() == 'q': break\n"
        "    out = []\n"
        "    while True:\n"
        "        t0 = time.perf_counter(); c.get('/health'); out.append((time.perf_counter() - t0) * 1000)\n"
        "        if sys.stdin in __import__('select').select([sys.stdin], [], [], 0)[0]:\n"
        "            sys.stdin.readline(); break\n"
        "    print(' '.join(f'{x:.2f}' for x in out), flush=True)\n"
    )

    def __init__(self, url: str) -> None:
        import subprocess

        self.p = subprocess.Popen(
            [sys.executable, "-c", self.SCRIPT, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def start(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def stop(self) -> list[float]:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write("stop\n")
        self.p.stdin.flush()
        return [float(x) for x in self.p.stdout.readline().split()]

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write("q\n")
        self.p.stdin.flush()
        self.p.wait(10)


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
    poller = HealthPoller(hot.url)
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
                    poller.start()
                    await ws.send(payload)
                    await ws.recv()
                    lat += poller.stop()
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
        poller.close()
        hot.stop()


async def health_during_refusals(tmp: Path, n: int = 200_000) -> dict[str, object]:
    """/health latency while over-cap batches (JSON text, msgpack, NDJSON) arrive and are refused."""
    import httpx
    import msgpack
    import websockets

    from tests.support.procs import start_hotpath

    hot = start_hotpath(tmp / "refuse-data", tmp, env={"PITWALL_INGEST_MAX_BODY_BYTES": str(64 * 2**20)})
    lat: list[float] = []
    poller = HealthPoller(hot.url)
    try:
        async with httpx.AsyncClient(base_url=hot.url, timeout=120) as c:
            sid = (await c.post("/session/start", json={"driver_id": "bench"})).json()["session_id"]
            frames = [{"t_s": i * 0.001, "speed_kmh": 120.0} for i in range(n)]
            bodies: list[tuple[str, object]] = [
                ("ws-json", json.dumps({"frames": frames})),
                ("ws-msgpack", msgpack.packb({"frames": frames})),
                ("ndjson", "\n".join(json.dumps(f) for f in frames)),
            ]
            refused: dict[str, str] = {}
            for kind, body in bodies:
                poller.start()
                if kind == "ndjson":
                    task = asyncio.create_task(c.post(f"/ingest/frames?session_id={sid}", content=body))  # type: ignore[arg-type]
                else:
                    ws = await websockets.connect(
                        f"ws://127.0.0.1:{hot.port}/ingest/ws?session_id={sid}", max_size=None
                    )
                    await ws.send(body)  # type: ignore[arg-type]
                    task = asyncio.create_task(ws.wait_closed())
                r = await task
                lat += poller.stop()
                refused[kind] = (
                    str(r.status_code) if kind == "ndjson" else f"close {ws.close_code}"  # type: ignore[union-attr]
                )
    finally:
        poller.close()
        hot.stop()
    lat.sort()
    return {
        "batch_frames": n,
        "refused": refused,
        "health_n": len(lat),
        "health_p50_ms": round(lat[len(lat) // 2], 1) if lat else None,
        "health_p99_ms": round(lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1) if lat else None,
        "health_max_ms": round(lat[-1], 1) if lat else None,
    }


def _stored(data: Path, sid: str) -> int:
    import duckdb

    from shared.settings import settings_for

    con = duckdb.connect(str(settings_for(data).hot_db_path))
    try:
        row = con.execute("SELECT count(*) FROM telemetry WHERE session_id = ?", [sid]).fetchone()
    finally:
        con.close()
    return int(row[0]) if row else 0


async def acked_vs_stored_kill9(tmp: Path) -> dict[str, object]:
    """500 frames/s for 4 s, silence, SIGKILL 3 s after the last ack; stored rows counted after."""
    import httpx
    import websockets

    from services.hotpath.replay import frames_of
    from shared.simulator import simulate
    from tests.support.procs import start_hotpath

    data = tmp / "kill-data"
    hot = start_hotpath(data, tmp)
    frames = list(frames_of(simulate(laps=1, seed=9, rate_hz=50.0).wide))[:2000]
    car = {"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
    sid = httpx.post(f"{hot.url}/session/start", json=car).json()["session_id"]
    acked = 0
    try:
        async with websockets.connect(f"ws://127.0.0.1:{hot.port}/ingest/ws?session_id={sid}") as ws:
            for i in range(0, len(frames), 50):
                await ws.send(json.dumps({"frames": frames[i : i + 50]}))
                acked += json.loads(await ws.recv())["accepted"]
                await asyncio.sleep(0.1)
            await asyncio.sleep(3.0)
            hot.proc.kill()
        hot.proc.wait(timeout=10)
    finally:
        hot.stop()
    return {"acked": acked, "stored": _stored(data, sid)}


async def acked_vs_stored_full_disk(tmp: Path) -> dict[str, object]:
    """Stream until a 24 MiB tmpfs fills (a filler file takes the rest), free it, stream on, end: frames
    acknowledged vs stored, and what the acks and /health said meanwhile."""
    import os
    import subprocess

    import httpx
    import msgpack
    import websockets

    from services.hotpath.replay import frames_of
    from shared.simulator import simulate
    from tests.hostile.test_store_faults import _fill
    from tests.support.procs import start_hotpath

    if os.geteuid() != 0:
        return {"skipped": "mounting a tmpfs needs root"}
    fs = tmp / "fs"
    fs.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(fs)]).returncode:
        return {"skipped": "mount failed"}
    try:
        data = fs / "data"
        hot = start_hotpath(data, tmp)
        frames = list(frames_of(simulate(laps=3, seed=2, rate_hz=50.0).wide))
        batches = [msgpack.packb({"frames": frames[i : i + 250]}) for i in range(0, len(frames), 250)]
        car = {"car": "bmw_e46_m3_aim_mxp", "track": "sonoma"}
        sid = httpx.post(f"{hot.url}/session/start", json=car).json()["session_id"]
        acked = refused = 0
        reason = health = None
        try:
            async with websockets.connect(f"ws://127.0.0.1:{hot.port}/ingest/ws?session_id={sid}") as ws:
                for k, b in enumerate(batches):
                    if k == 4:
                        _fill(fs / "filler")
                    if k == len(batches) // 2 and (fs / "filler").exists():
                        health = httpx.get(f"{hot.url}/health").json()
                        (fs / "filler").unlink()
                        await asyncio.sleep(1.5)  # the writer retries every 0.5 s
                    await ws.send(b)
                    ack = json.loads(await ws.recv())
                    acked += ack["accepted"]
                    refused += ack["rejected"].get("disk_full", 0)
                    reason = reason or ack.get("refused")
                    await asyncio.sleep(0.05)
            httpx.post(f"{hot.url}/session/{sid}/end", timeout=60)
        finally:
            hot.stop()
        stored = _stored(data, sid)
    finally:
        subprocess.run(["umount", "-l", str(fs)])
    return {
        "sent": len(frames),
        "acked": acked,
        "refused_disk_full": refused,
        "stored": stored,
        "ack_said": reason,
        "health_status": health and health.get("status"),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip-corpus", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows = [] if args.skip_corpus else corpus(tmp)
        health = asyncio.run(health_during_batches(tmp, args.batches))
        health["during_refusals"] = asyncio.run(health_during_refusals(tmp))
        health["kill_9_3s_after_last_ack"] = asyncio.run(acked_vs_stored_kill9(tmp))
        health["full_disk"] = asyncio.run(acked_vs_stored_full_disk(tmp))
    if args.json or not rows:
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

"""``/health`` latency of a real paddock process from its first moment: while LiteLLM and ADK load (in a
worker thread), during the start-up warm-up, and while a debrief streams from the model.

    python bench/health_startup.py --url http://127.0.0.1:8099/v1 --model smollm2 [--laps 34]

Polls ``/health`` at 20 Hz from process start; prints p50 and max per phase and how the debrief ended.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--laps", type=int, default=34)
    a = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from shared.ingest import import_sim
    from shared.settings import settings_for
    from shared.simulator.fixtures import cached_sim
    from tests.support.procs import free_port

    with tempfile.TemporaryDirectory() as d:
        sid = import_sim(cached_sim(laps=a.laps, seed=7), settings_for(d), driver_id="bench").session_id
        port = free_port()
        env = {
            **os.environ,
            "PITWALL_DATA_DIR": d,
            "PITWALL_ADK_OPENAI_URL": a.url,
            "PITWALL_ADK_OPENAI_MODEL": a.model,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        log = (Path(d) / "paddock.log").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "shared.cli", "paddock", "--port", str(port), "--data-dir", d],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        phases: dict[str, list[float]] = {}
        state = {"stop": False, "debrief": False, "ready": False}

        def poll() -> None:
            with httpx.Client(timeout=10) as c:
                while not state["stop"]:
                    t0 = time.perf_counter()
                    try:
                        j = c.get(f"{base}/health").json()
                    except httpx.HTTPError:
                        time.sleep(0.05)
                        continue
                    ms = (time.perf_counter() - t0) * 1000
                    phase = (
                        "debrief"
                        if state["debrief"]
                        else "loading agents"
                        if not j["agents_ready"]
                        else f"warm-up {j['warm_up']['status']}"
                    )
                    state["ready"] = j["warm_up"]["status"] == "ready"
                    phases.setdefault(phase, []).append(ms)
                    time.sleep(0.05)

        t = threading.Thread(target=poll, daemon=True)
        t.start()
        try:
            deadline = time.monotonic() + 180
            while not state["ready"] and time.monotonic() < deadline:
                time.sleep(0.2)
            state["debrief"] = True
            t0 = time.perf_counter()
            done = httpx.post(
                f"{base}/coach/debrief", json={"session_id": sid, "driver_id": "bench"}, timeout=300
            ).json()
            took = time.perf_counter() - t0
            state["debrief"] = False
        finally:
            state["stop"] = True
            t.join(5)
            proc.terminate()
            proc.wait(15)
            log.close()
        out = {
            k: {"n": len(v), "p50_ms": round(sorted(v)[len(v) // 2], 1), "max_ms": round(max(v), 1)}
            for k, v in phases.items()
        }
        out["debrief"] = {
            **out.get("debrief", {}),
            "narrator": done.get("narrator"),
            "complete": done.get("complete"),
            "total_s": round(took, 1),
        }
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

"""Paddock speed: a debrief in both data-agent modes against a scripted model server, and 20 concurrent
SSE clients against an instant model.

    python bench/paddock.py          (about three minutes; starts its own paddock and model processes)
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from shared.ingest import import_sim  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from tests.support.procs import ScriptedLLMProcess, start_paddock  # noqa: E402

CMD = "python bench/paddock.py"


def debrief_timing(url: str, sid: str, driver: str, mode: str = "adk") -> dict[str, Any]:
    t0 = time.perf_counter()
    marks: dict[str, float] = {}
    done: dict[str, Any] = {}
    phase_ms: list[float] = []
    with (
        httpx.Client(timeout=120) as c,
        c.stream(
            "POST",
            f"{url}/coach/debrief",
            json={"session_id": sid, "driver_id": driver, "mode": mode},
            headers={"Accept": "text/event-stream"},
        ) as r,
    ):
        event = None
        for line in r.iter_lines():
            now = (time.perf_counter() - t0) * 1000
            marks.setdefault("first_byte", now)
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
                marks.setdefault(f"first_{event}", now)
            elif line.startswith("data:") and event == "done":
                done = json.loads(line[5:])
            elif line.startswith("data:") and event == "data":
                phase_ms.append(json.loads(line[5:])["ms"])
    marks["total"] = (time.perf_counter() - t0) * 1000
    marks["data_phase"] = max(phase_ms) if phase_ms else float("nan")
    marks["llm_calls"] = done.get("llm_calls", 0)
    marks["narrator"] = done.get("narrator")  # type: ignore[assignment]
    return marks


def raw_llm_ms(llm_url: str) -> float:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "x" * 4000}]}
    t0 = time.perf_counter()
    with httpx.Client(timeout=30) as c, c.stream("POST", f"{llm_url}/chat/completions", json=body) as r:
        for _ in r.iter_lines():
            pass
    return (time.perf_counter() - t0) * 1000


def wait_warm(url: str) -> None:
    """A driver's first request comes minutes after start-up; measure it after the warm-up has finished."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and httpx.get(f"{url}/health").json()["warm_up"]["status"] != "ready":
        time.sleep(0.2)


def timed(url: str, sid: str, mode: str, n: int) -> tuple[dict[str, float], dict[str, Any]]:
    wait_warm(url)
    # the first request after start-up: the warm-up has run, nothing has been asked yet
    cold = debrief_timing(url, sid, f"warm-{mode}", mode)
    runs = [debrief_timing(url, sid, f"{mode}{i}", mode) for i in range(n)]
    med = {
        k: statistics.median(float(r.get(k, float("nan"))) for r in runs)
        for k in ("first_byte", "first_data", "first_token", "total", "data_phase")
    }
    med["cold_data_phase"] = float(cold["data_phase"])
    return med, runs[0]


def main() -> None:
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        data = root / "data"
        sim = simulate(laps=32, seed=1, rate_hz=50.0)  # about an hour at 50 Hz
        sid = import_sim(sim, settings_for(data), driver_id="bench").session_id
        servers = (
            ("instant model", 0.0, False),
            ("model with 0.5 s per call, one call at a time", 0.5, True),
        )
        for label, delay, serial in servers:
            llm = ScriptedLLMProcess(root, delay_s=delay, serial=serial)
            try:
                raw = statistics.median(raw_llm_ms(llm.url) for _ in range(5))
                for data_agents in ("deterministic", "llm"):
                    pad = start_paddock(
                        data,
                        root,
                        llm.url,
                        {"PITWALL_DATA_AGENTS": data_agents, "PITWALL_LLM_QUEUE_SIZE": "32"},
                    )
                    try:
                        tiers = ("adk", "quick") if data_agents == "deterministic" else ("adk",)
                        for tier in tiers:
                            med, first = timed(pad.url, sid, tier, 5 if delay == 0 else 3)
                            name = (
                                "quick (warm tier, httpx)"
                                if tier == "quick"
                                else f"ADK, {data_agents} data agents"
                            )
                            overhead = (
                                med["total"] - med["data_phase"] - raw
                            )  # the narrative follows the data phase
                            extra = (
                                f"; ADK overhead ~{overhead:.0f} ms"
                                if tier == "adk" and data_agents == "deterministic"
                                else ""
                            )
                            rows.append(
                                (
                                    f"debrief, {name}, {label}, simulated hour",
                                    f"{first['llm_calls']} LLM call(s); first byte {med['first_byte']:.0f} ms; data phase "
                                    f"{med['data_phase']:.0f} ms (first request after the start-up warm-up: {med['cold_data_phase']:.0f} ms); first token {med['first_token']:.0f} ms; total {med['total']:.0f} ms{extra}",
                                    "default mode: 1 call, overhead <= 50 ms, data phase <= 300 ms, first byte <= 300 ms",
                                    CMD,
                                )
                            )
                        if data_agents == "deterministic" and delay == 0:
                            with ThreadPoolExecutor(20) as ex:
                                res = list(
                                    ex.map(
                                        lambda i, url=pad.url: debrief_timing(url, sid, f"load{i}"), range(20)
                                    )
                                )
                            tt = sorted(r["first_byte"] for r in res)
                            td = sorted(r["total"] for r in res)
                            errors = sum(1 for r in res if r.get("narrator") not in ("llm", "template"))
                            rows.append(
                                (
                                    "20 concurrent SSE debriefs, instant model",
                                    f"first byte p50 {tt[9]:.0f} ms, p99 {tt[-1]:.0f} ms; "
                                    f"done p50 {td[9]:.0f} ms, p99 {td[-1]:.0f} ms; errors {errors}",
                                    "zero errors",
                                    CMD,
                                )
                            )
                    finally:
                        pad.stop()
            finally:
                llm.stop()
    tbl = Table("measure", "result", "target", "command")
    for r in rows:
        tbl.add_row(*r)
    Console(width=260).print(tbl)


if __name__ == "__main__":
    main()

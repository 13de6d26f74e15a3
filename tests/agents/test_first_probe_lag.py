"""The paddock's first model probe never stalls its event loop: the warm tier's HTTP client for the model
server is built in a worker thread at start-up, not on the loop at the first probe; and the start-up's
LiteLLM ping loads LiteLLM's lazy modules in a worker thread, so neither it nor the agents' first call
imports them on the loop.

Building a client loads the CA bundle into an SSL context (40-50 ms idle, 170-450 ms beside the agents'
import). A large bundle (``SSL_CERT_FILE``, which httpx honours, as a site's own CA bundle would be) makes
that load take seconds, so a build on the loop shows as seconds of loop lag across the first probe. The
probe is the warm-up's model discovery, right after the agent tree has loaded (no ``/health`` is asked
before: a ``/health`` would probe too); the lag's running maximum is read from ``/metrics`` (which never
probes) just before, and from ``/health`` once the warm-up is done.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import certifi
import httpx

from tests.support.procs import REPO, ScriptedLLMProcess, Service, free_port

# a fresh process (no module of an earlier test loaded): the coach service's start-up and warm-up against a
# model server, then the call the agents make (a driver's first question), every module whose import ran
# on the event loop's thread (the main one) recorded
WARM_UP = """
import asyncio, json, sys, threading
from pathlib import Path
from services.paddock.agents.service import CoachService
from services.paddock.llm import litellm_args
from shared.settings import settings_for

on_loop = []
def record(event, args):
    if event == "import" and threading.current_thread() is threading.main_thread():
        on_loop.append(args[0])

async def main():
    svc = CoachService(settings_for(Path(sys.argv[1]), adk_openai_url=sys.argv[2]))
    sys.addaudithook(record)
    svc.start_loading()
    await svc.warm_up()
    litellm = sys.modules["litellm"]  # loaded by the agents' thread, not imported here
    reply = await litellm.acompletion(**litellm_args(svc.settings), messages=[{"role": "user", "content": "hi"}],
                                      stream=True)
    async for _ in reply:
        pass
    rows = svc.store.query("SELECT backend, error FROM llm_friction WHERE role = 'warmup' ORDER BY ts", [])
    await svc.aclose()
    svc.store.close()
    print(json.dumps({"warm": svc.warm_state, "rows": rows, "on_loop": on_loop}))

asyncio.run(main())
"""
BUNDLE_COPIES = 40  # ~12 MB of certificates: ~2 s to load idle, far beyond the loop's own noise


def _lag_max_ms(svc: Service) -> float:
    """``/metrics``' running maximum of the loop's lag, in ms (``/metrics`` never probes the model)."""
    text = httpx.get(f"{svc.url}/metrics", timeout=30).text
    line = next(ln for ln in text.splitlines() if ln.startswith("pitwall_paddock_event_loop_lag_max_seconds"))
    return float(line.split()[1]) * 1000


def test_the_first_model_probe_leaves_the_event_loop_free(tmp_path: Path) -> None:
    bundle = tmp_path / "ca-bundle.pem"
    bundle.write_text(Path(certifi.where()).read_text() * BUNDLE_COPIES)
    data, port = tmp_path / "data", free_port()
    svc = Service(
        ["-v", "paddock", "--port", str(port), "--data-dir", str(data)],
        port,
        {
            "PITWALL_DATA_DIR": str(data),
            "PITWALL_ADK_OPENAI_URL": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens: no model calls
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "SSL_CERT_FILE": str(bundle),
        },
        tmp_path / "paddock.log",
    )
    try:
        before = None
        deadline = time.monotonic() + 240
        while True:  # the lag's maximum while the agents load, read until their load is logged
            assert time.monotonic() < deadline and svc.proc.poll() is None, svc.log.read_text()[-2000:]
            try:
                seen = _lag_max_ms(svc)
            except httpx.HTTPError:  # not listening yet
                seen = None
            if "paddock agents ready" in svc.log.read_text():  # read after the figure: it predates the probe
                break
            before = seen if seen is not None else before
            time.sleep(0.05)
        assert before is not None
        while (h := httpx.get(f"{svc.url}/health", timeout=30).json())["warm_up"]["status"] != "ready":
            assert time.monotonic() < deadline, h
            time.sleep(0.1)
        # the warm-up's discovery was the first probe: it found no server, and warmed nothing
        assert h["warm_up"]["model_reachable"] is False and h["model"]["reachable"] is False
        assert h["model"]["detail"].startswith("no model server at")
        grew = h["event_loop_lag"]["max_ms"] - before
        assert grew < 400, f"the loop stalled {grew:.0f} ms more across the first model probe"
    finally:
        svc.stop()
    assert "Traceback" not in svc.log.read_text()


def test_the_start_up_litellm_ping_loads_litellm_off_the_event_loop(tmp_path: Path) -> None:
    llm = ScriptedLLMProcess(tmp_path)
    try:
        out = subprocess.run(
            [sys.executable, "-c", WARM_UP, str(tmp_path / "data"), llm.url],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    finally:
        llm.stop()
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["warm"]["status"] == "ready" and got["warm"]["model_warmed"] is True
    # both start-up pings reached the server: the warm tier's and LiteLLM's
    assert [(r["backend"], r["error"]) for r in got["rows"]] == [("warm-httpx", None), ("litellm", None)]
    on_loop = [m for m in got["on_loop"] if m.split(".")[0] in ("litellm", "openai", "google")]
    assert on_loop == [], (
        f"{len(on_loop)} LiteLLM/OpenAI/ADK modules imported on the event loop: {on_loop[:8]}"
    )

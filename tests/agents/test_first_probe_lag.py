"""The paddock's first model probe never stalls its event loop: the warm tier's HTTP client for the model
server is built in a worker thread at start-up, not on the loop at the first probe (building one loads the
CA bundle into an SSL context: 40-50 ms idle, 170-450 ms beside the agents' import, seconds with a site's
large bundle); and the start-up's LiteLLM ping loads LiteLLM's lazy modules in a worker thread, so neither
it nor the agents' first call imports them on the loop.

Checked by thread, not by time (a lag threshold would depend on the machine's load): in a fresh process,
every module import and every CA-bundle load of an SSL context on the event loop's thread is recorded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.procs import REPO, ScriptedLLMProcess

# a fresh process (no module of an earlier test loaded): the coach service's start-up and warm-up against a
# model server, then the call the agents make (a driver's first question), every module whose import ran
# on the event loop's thread (the main one) recorded
WARM_UP = """
import asyncio, json, sys, threading
from pathlib import Path
from services.paddock.agents.service import CoachService
from services.paddock.llm import litellm_args
from shared.settings import settings_for

import ssl
on_loop, certs_on_loop = [], []
def record(event, args):
    if event == "import" and threading.current_thread() is threading.main_thread():
        on_loop.append(args[0])

def loads(name):  # an SSL context loading a CA bundle: on which thread
    original = getattr(ssl.SSLContext, name)
    def load(self, *a, **k):
        if threading.current_thread() is threading.main_thread():
            certs_on_loop.append(name)
        return original(self, *a, **k)
    setattr(ssl.SSLContext, name, load)

async def main():
    svc = CoachService(settings_for(Path(sys.argv[1]), adk_openai_url=sys.argv[2]))
    sys.addaudithook(record)
    for name in ("load_verify_locations", "load_default_certs", "set_default_verify_paths"):
        loads(name)
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
    print(json.dumps({"warm": svc.warm_state, "rows": rows, "on_loop": on_loop, "certs_on_loop": certs_on_loop}))

asyncio.run(main())
"""


def test_the_warm_up_builds_its_clients_and_loads_litellm_off_the_event_loop(tmp_path: Path) -> None:
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
    # no HTTP client for the model server was built on the loop: no CA bundle loaded there
    assert got["certs_on_loop"] == []

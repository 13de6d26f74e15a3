"""The paddock as a real uvicorn process: start-up never blocks the event loop, the first debrief waits for
the agent tree instead of falling back, and the model queue gates only model calls."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.procs import ScriptedLLMProcess, Service, free_port


def _start(data: Path, logs: Path, llm_url: str, queue: int) -> Service:
    port = free_port()
    return Service(
        ["paddock", "--port", str(port), "--data-dir", str(data)],
        port,
        {
            "PITWALL_DATA_DIR": str(data),
            "PITWALL_ADK_OPENAI_URL": llm_url,
            "PITWALL_LLM_QUEUE_SIZE": str(queue),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        },
        logs / f"paddock-{port}.log",
    )


def _first_health(svc: Service) -> dict:
    """The first /health answer of a starting process (polled as soon as the port listens)."""
    svc.wait_healthy(timeout=120)
    return httpx.get(f"{svc.url}/health", timeout=5).json()


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    d = tmp_path_factory.mktemp("proc") / "data"
    sid = import_sim(cached_sim(laps=4, seed=7, rate_hz=20), settings_for(d), driver_id="ana").session_id
    return d, sid


def test_health_answers_while_the_agents_load_and_the_first_debrief_waits_for_them(lake, tmp_path) -> None:
    data, sid = lake
    llm = ScriptedLLMProcess(tmp_path)
    pad = _start(data, tmp_path, llm.url, 8)
    try:
        health = _first_health(pad)
        # served before the agent tree (LiteLLM's 4-9 s import) has loaded: the load is off the loop
        assert health["agents_ready"] is False, health
        r = httpx.post(
            f"{pad.url}/coach/debrief", json={"session_id": sid, "driver_id": "ana"}, timeout=120
        ).json()
        assert r["type"] == "done" and r["narrator"] == "llm", r  # waited for the load, no template
        assert r["llm_calls"] == 1 and r["complete"] is True
    finally:
        pad.stop()
        llm.stop()


def test_without_a_model_twenty_concurrent_debriefs_all_get_the_template(lake, tmp_path) -> None:
    data, sid = lake
    pad = _start(data, tmp_path, f"http://127.0.0.1:{free_port()}/v1", 1)  # nothing listens there
    try:
        pad.wait_healthy(timeout=120)

        def call(i: int) -> httpx.Response:
            return httpx.post(
                f"{pad.url}/coach/debrief",
                json={"session_id": sid, "driver_id": f"d{i}"},
                headers={"Accept": "text/event-stream"},
                timeout=120,
            )

        with ThreadPoolExecutor(20) as ex:
            replies = list(ex.map(call, range(20)))
        assert [r.status_code for r in replies] == [200] * 20  # a queue of 1 never refuses the template
        for r in replies:
            events = [ln for ln in r.text.splitlines() if ln.startswith("event: ")]
            assert events[-1] == "event: done" and "event: error" not in events
            done = json.loads(r.text.rstrip().splitlines()[-1].removeprefix("data: "))
            assert done["narrator"] == "template" and done["reason"]
        # an unknown session is a 404 before any stream starts
        r = httpx.post(f"{pad.url}/coach/debrief", json={"session_id": "nope", "driver_id": "a"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_session"
    finally:
        pad.stop()


def test_a_full_model_queue_refuses_with_429_never_an_error_inside_a_200(lake, tmp_path) -> None:
    data, sid = lake
    llm = ScriptedLLMProcess(tmp_path, token_delay_s=0.02)
    pad = _start(data, tmp_path, llm.url, 2)
    try:
        pad.wait_healthy(timeout=120)

        def call(i: int) -> httpx.Response:
            return httpx.post(
                f"{pad.url}/coach/debrief",
                json={"session_id": sid, "driver_id": f"q{i}"},
                headers={"Accept": "text/event-stream"},
                timeout=120,
            )

        with ThreadPoolExecutor(12) as ex:
            replies = list(ex.map(call, range(12)))
        codes = [r.status_code for r in replies]
        assert set(codes) <= {200, 429} and 200 in codes and 429 in codes, codes
        for r in replies:
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) > 0 and r.json()["error"]["code"] == "model_busy"
            else:
                assert "event: error" not in r.text and "event: done" in r.text
    finally:
        pad.stop()
        llm.stop()

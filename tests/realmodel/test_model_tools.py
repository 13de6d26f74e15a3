"""``PITWALL_SPECIALIST_TOOLS=model`` on the real model: the specialist chooses and calls its own tools through
real ADK and LiteLLM over HTTP, with llama.cpp's tool grammar (``chatml-function-calling``) on SmolLM2-135M.
Whatever the small model does (a good call, a bad tool name or bad arguments, no call at all, a loop) the
driver gets a grounded answer or the question's labelled data answer: never a traceback, never a figure
the data does not hold, and at most 3 model-chosen tool calls a turn."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from services.paddock.agents.grounding import Facts, grounding_check
from services.paddock.llm.embedded import MODEL_ALIAS, EmbeddedModelServer
from shared.ingest import import_sim
from shared.settings import settings_for
from shared.simulator.fixtures import cached_sim
from tests.support.procs import start_paddock
from tests.support.realmodel import RecordingProxy

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(1800)]

QUESTIONS = (
    "What is my race pace?",
    "Why was lap 2 slower than lap 1?",
    "How were my tyre temperatures?",
    "Set me a goal for next time.",
)


@pytest.fixture(scope="module")
def model_mode(real_llm: EmbeddedModelServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("model-tools")
    data = root / "data"
    res = import_sim(cached_sim(laps=3, seed=7), settings_for(data), driver_id="ana")
    proxy = RecordingProxy(real_llm.url, max_tokens_cap=200).start()
    env = {
        "PITWALL_ADK_OPENAI_MODEL": MODEL_ALIAS,
        "PITWALL_ADK_TIMEOUT_S": "600",
        "PITWALL_SPECIALIST_TOOLS": "model",
    }
    pad = start_paddock(data, root, proxy.url, env)
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if httpx.get(f"{pad.url}/health", timeout=30).json()["warm_up"]["status"] in ("ready", "failed"):
                break
            time.sleep(0.5)
        yield {"url": pad.url, "proxy": proxy, "sid": res.session_id}
    finally:
        pad.stop()
        proxy.stop()


def _ask(url: str, sid: str, question: str) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    body = {"driver_id": "ana", "session_id": sid, "question": question}
    with (
        httpx.Client(timeout=httpx.Timeout(900, connect=10)) as c,
        connect_sse(c, "POST", f"{url}/coach/ask", json=body, headers={"Accept": "text/event-stream"}) as es,
    ):
        assert es.response.status_code == 200, es.response.read()
        for ev in es.iter_sse():
            if ev.data:
                out.append((ev.event, json.loads(ev.data)))
    return out


def test_model_chosen_tools_on_llama_cpp_give_a_grounded_or_a_labelled_data_answer(model_mode: Any) -> None:
    url, proxy, sid = model_mode["url"], model_mode["proxy"], model_mode["sid"]
    seen: list[dict[str, Any]] = []
    for q in QUESTIONS:
        httpx.post(f"{url}/session/reset", json={"driver_id": "ana"}, timeout=30)
        before, n_req = len(proxy.responses), len(proxy.requests)
        events = _ask(url, sid, q)
        kind, done = events[-1]
        replies = proxy.responses[before:]
        calls = [c for r in replies for c in r["tool_calls"]]
        seen.append({"q": q, "kind": kind, "done": done, "calls": calls})
        # the model was given its tools, over the real tool grammar
        sent = [b for b in proxy.requests if b.get("tools")]
        assert sent, "the specialist's tools never reached the model server"
        assert kind == "done", (q, done)  # never an error event, let alone a traceback
        text = str(done["text"])
        assert "Traceback" not in text and "Traceback" not in str(done.get("reason"))
        assert len([t for t in done["tools"] if t.get("by") != "pitwall"]) <= 3, done["tools"]
        assert done["narrator"] in ("llm", "data"), done
        assert done["ungrounded"] == [], done
        if done["narrator"] == "llm":  # the model's own words: every figure in what the model was given
            facts = Facts()
            facts.add_text(q)
            for b in proxy.requests[n_req:]:  # the tool results and fact lists, as they crossed the wire
                for m in b.get("messages") or []:
                    if m.get("role") in ("tool", "user", "function"):
                        facts.add_text(str(m.get("content") or ""))
            assert grounding_check(text, facts) == [], (q, text)
            assert not re.search(r"\[EMOTION|functions\.|<tool_call>", text), text
        else:
            assert done["reason"], done  # labelled, with the reason the model's text was not used
        assert all(r["status"] == 200 for r in replies), replies
    # what the small model did, for the report (model-chosen calls, and who answered)
    for x in seen:
        print(
            f"{x['q']!r}: {x['done']['narrator']}, calls {x['calls']}, reason {str(x['done']['reason'])[:120]!r}"
        )

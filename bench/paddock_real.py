"""The paddock on a real local model: llama.cpp's server with SmolLM2-135M-Instruct (the [llm] extra), the
real paddock in front of it, a simulated one-hour session.

1. Speed: debrief, brief and one question, several runs each (interleaved, so no run finds the whole
   previous prompt in the server's cache): prompt tokens by the model's own tokenizer, time to the first
   narrative token, total, who narrated.
2. Robustness: 20 driver questions plus a brief and a debrief: crashes, HTTP 500s, a missing
   [EMOTION:x] tag and what it became, tool calls and malformed ones, claims listed as ungrounded.

    python bench/paddock_real.py [--runs 3] [--questions 20] [--max-tokens 400]

Prints two tables whose rows paste into the README's "Measured here" table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from services.paddock.llm.embedded import MODEL_ALIAS, EmbeddedModelServer, missing_reason  # noqa: E402
from shared.ingest import import_sim  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from tests.support.procs import start_paddock  # noqa: E402
from tests.support.realmodel import RecordingProxy  # noqa: E402

CMD = "python bench/paddock_real.py"
# lap comparisons, corners, braking, car health, setup; a few name laps or corners the session lacks
QUESTIONS = [
    "why was lap 7 slower than lap 5?",
    "compare lap 3 and lap 4",
    "fastest vs slowest lap: where is the difference?",
    "lap 12 vs lap 2, what changed?",
    "how do I take turn 11?",
    "turn 7 help: I keep running wide",
    "the carousel feels slow, what should I try?",
    "hairpin exit: am I late on the throttle?",
    "am I braking too early into turn 2?",
    "inconsistent braking: where is my brake point moving?",
    "any lockups under braking?",
    "is my trail braking any good?",
    "how is the engine: oil pressure and coolant ok?",
    "tyre pressures and temperatures: in the window?",
    "any ABS or DSC events I should know about?",
    "setup advice: understeer in slow corners",
    "oversteer on corner exit, what should I change?",
    "car balance: is it neutral in the fast corners?",
    "why was lap 99 my best?",
    "what's my top speed?",
]


def stream(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """One SSE request: first-token and total times, the final event, the HTTP status, any failure."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"status": None, "first_token_s": None, "done": None, "error": None, "events": []}
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(900, connect=10)) as c,
            c.stream("POST", f"{url}{path}", json=body, headers={"Accept": "text/event-stream"}) as r,
        ):
            out["status"] = r.status_code
            if r.status_code != 200:
                out["error"] = f"HTTP {r.status_code}: {r.read()[:200]!r}"
                return out
            event = None
            for line in r.iter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                    out["events"].append(event)
                    if event == "token" and out["first_token_s"] is None:
                        out["first_token_s"] = time.perf_counter() - t0
                elif line.startswith("data:") and event in ("done", "error"):
                    out["done" if event == "done" else "error"] = json.loads(line[5:])
    except httpx.HTTPError as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        out["total_s"] = time.perf_counter() - t0
    return out


def wait_warm(url: str) -> None:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if httpx.get(f"{url}/health", timeout=30).json()["warm_up"]["status"] in (
            "ready",
            "failed",
            "skipped",
        ):
            return
        time.sleep(0.5)


def rng(xs: list[float], fmt: str = "{:.1f}") -> str:
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    lo, hi = min(xs), max(xs)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}–{fmt.format(hi)}"


def speed(
    url: str, proxy: RecordingProxy, sid: str, runs: int
) -> tuple[list[tuple[str, ...]], list[dict[str, Any]]]:
    kinds = {
        "debrief": ("/coach/debrief", {"session_id": sid, "driver_id": "bench"}),
        "brief": ("/coach/brief", {"session_id": sid, "driver_id": "bench"}),
        "question": (
            "/coach/ask",
            {"session_id": sid, "driver_id": "bench", "question": "why was lap 7 slower than lap 5?"},
        ),
    }
    got: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    for i in range(runs):
        for kind, (path, body) in kinds.items():
            res = run_one(url, proxy, path, body)
            res["prompt_tokens"] = [proxy.prompt_tokens(b) for b in res["sent"] if b.get("max_tokens") != 1]
            got[kind].append(res)
            done = res["done"] or res["error"] or {}
            print(
                f"run {i + 1} {kind}: prompt {res['prompt_tokens']} tokens, first token {res['first_token_s']} s, "
                f"total {res['total_s']:.1f} s, narrator {done.get('narrator')}, reason {done.get('reason')}",
                file=sys.stderr,
                flush=True,
            )
    rows: list[tuple[str, ...]] = []
    for kind, results in got.items():
        done = [r["done"] or {} for r in results]
        narrators = sorted(
            {
                str(d.get("narrator") or ("error" if r["error"] else "-"))
                for d, r in zip(done, results, strict=True)
            }
        )
        reasons = sorted({str(d.get("reason")) for d in done if d.get("reason")})
        tokens = [t for r in results for t in r["prompt_tokens"]]
        rows.append(
            (
                f"{kind} on the embedded SmolLM2-135M (llama.cpp, 1 thread), simulated hour",
                f"prompt {rng([float(t) for t in tokens], '{:.0f}')} tokens in {rng([float(len(r['prompt_tokens'])) for r in results], '{:.0f}')} call(s); "
                f"first token {rng([r['first_token_s'] for r in results])} s; total {rng([r['total_s'] for r in results])} s; "
                f"narrator {', '.join(narrators)}{'; ' + '; '.join(reasons) if reasons else ''} ({runs} runs)",
                {
                    "debrief": "first token <= 12 s, done <= 25 s; <= 1,000 prompt tokens",
                    "brief": "<= 600 prompt tokens",
                }.get(kind, "-"),
                CMD,
            )
        )
    return rows, [got["brief"][0], got["debrief"][0]]


def run_one(url: str, proxy: RecordingProxy, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """One request, with the model calls it made (``sent``) and what the model answered (``answers``)."""
    since_req, since_resp = len(proxy.requests), len(proxy.responses)
    res = stream(url, path, body)
    res["sent"] = proxy.requests[since_req:]
    res["answers"] = proxy.responses[since_resp:]
    return res


def robustness(
    url: str, proxy: RecordingProxy, sid: str, n_questions: int, measured: list[dict[str, Any]]
) -> tuple[str, ...]:
    """``measured``: the brief and debrief of the speed runs, counted here too (not run twice)."""
    results = list(measured)
    for n, q in enumerate(QUESTIONS[:n_questions], 1):
        res = run_one(url, proxy, "/coach/ask", {"session_id": sid, "driver_id": "robust", "question": q})
        done = res["done"] or res["error"] or {}
        print(
            f"question {n}: {q!r}: status {res['status']}, total {res['total_s']:.1f} s, "
            f"emotion {done.get('emotion')}, tools {done.get('tools')}, text {str(done.get('text'))[:80]!r}",
            file=sys.stderr,
            flush=True,
        )
        results.append(res)
    c = dict.fromkeys(
        (
            "requests",
            "crashes",
            "http_5xx",
            "model_5xx",
            "answered",
            "template_or_unavailable",
            "missing_emotion",
            "missing_emotion_neutral",
            "tool_calls",
            "pitwall_calls",
            "malformed_tool_calls",
            "malformed_then_answered",
            "ungrounded_items",
            "answers_with_ungrounded",
        ),
        0,
    )
    for res in results:
        c["requests"] += 1
        if res["status"] is not None and res["status"] >= 500:
            c["http_5xx"] += 1
        done = res["done"]
        if res["error"] or done is None:
            c["crashes"] += 1
            continue
        answers, sent = res["answers"], res["sent"]
        c["model_5xx"] += sum(1 for a in answers if a["status"] >= 500)
        if done.get("narrator") == "llm" and done.get("available", True):
            c["answered"] += 1
        else:
            c["template_or_unavailable"] += 1
        texts = [a["text"] for a in answers if a["text"]]
        if done.get("narrator") == "llm" and texts and not any("[EMOTION:" in t for t in texts):
            c["missing_emotion"] += 1
            c["missing_emotion_neutral"] += done.get("emotion") == "neutral"
        c["pitwall_calls"] += sum(1 for t in done.get("tools") or [] if t.get("by") == "pitwall")
        malformed = 0
        for req, a in zip(sent, answers, strict=False):
            offered = {(t.get("function") or {}).get("name") for t in req.get("tools") or []}
            for call in a["tool_calls"]:
                c["tool_calls"] += 1
                try:
                    ok = call["name"] in offered and isinstance(json.loads(call["arguments"] or "{}"), dict)
                except ValueError:
                    ok = False
                malformed += not ok
        c["malformed_tool_calls"] += malformed
        if malformed and done.get("text"):
            c["malformed_then_answered"] += 1
        ung = done.get("ungrounded") or []
        c["ungrounded_items"] += len(ung)
        c["answers_with_ungrounded"] += bool(ung)
    return (
        f"robustness on the embedded SmolLM2-135M: {n_questions} driver questions + brief + debrief",
        f"{c['requests']} requests: {c['crashes']} crashes, {c['http_5xx']} HTTP 5xx (model server 5xx: {c['model_5xx']}); "
        f"{c['answered']} answered by the model, {c['template_or_unavailable']} template/unavailable; "
        f"missing [EMOTION] {c['missing_emotion']} → neutral {c['missing_emotion_neutral']}; "
        f"tool calls by the model {c['tool_calls']}, malformed {c['malformed_tool_calls']} (answered anyway {c['malformed_then_answered']}), "
        f"first calls made by Pitwall {c['pitwall_calls']}; "
        f"ungrounded items {c['ungrounded_items']} in {c['answers_with_ungrounded']} answers",
        "0 crashes, 0 5xx; missing emotion → neutral",
        CMD,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--questions", type=int, default=len(QUESTIONS))
    ap.add_argument("--max-tokens", type=int, default=400, help="cap on every answer's length (the proxy)")
    ap.add_argument("--laps", type=int, default=32, help="simulated laps (32 is about an hour)")
    a = ap.parse_args()
    reason = missing_reason()
    if reason:
        sys.exit(f"the embedded model server cannot run: {reason}")
    console = Console(width=300, force_terminal=False)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        data = root / "data"
        sim = simulate(laps=a.laps, seed=1, rate_hz=50.0)
        sid = import_sim(sim, settings_for(data), driver_id="bench").session_id
        model = EmbeddedModelServer(log_path=root / "llama-server.log")
        model.start(timeout_s=300)
        proxy = RecordingProxy(model.url, max_tokens_cap=a.max_tokens).start()
        pad = start_paddock(
            data, root, proxy.url, {"PITWALL_ADK_OPENAI_MODEL": MODEL_ALIAS, "PITWALL_ADK_TIMEOUT_S": "600"}
        )
        rows: list[tuple[str, ...]] = []
        try:
            wait_warm(pad.url)
            speed_rows, measured = speed(pad.url, proxy, sid, a.runs)
            for row in speed_rows:
                rows.append(row)
                console.print("| " + " | ".join(row[:3]) + f" | `{row[3]}` |", soft_wrap=True)
            if a.questions:
                rows.append(robustness(pad.url, proxy, sid, a.questions, measured))
                console.print("| " + " | ".join(rows[-1][:3]) + f" | `{rows[-1][3]}` |", soft_wrap=True)
        finally:
            pad.stop()
            proxy.stop()
            model.stop()
    tbl = Table("measure", "result", "target", "command")
    for r in rows:
        tbl.add_row(*r)
    console.print(tbl)
    console.print("README rows:")
    for r in rows:
        console.print(
            "| " + " | ".join(x.replace("|", "/") for x in r[:3]) + f" | `{r[3]}` |", soft_wrap=True
        )


if __name__ == "__main__":
    main()

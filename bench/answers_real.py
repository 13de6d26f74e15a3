"""The answer eval on a real model: 62 driver questions (then 28 held-out phrasings and the 41 of the
data-path probe's set) over real (VBOX at Sonoma, MyChron kart) and
simulated sessions, each final answer scored against truth computed from the raw files (correct, wrong,
evasive; wrong figures shown as model text), with the time to the first token and to ``done``, then the
grounding probe (planted inventions caught, false flags on true texts).

    python bench/answers_real.py                                   # starts the embedded SmolLM2 server
    python bench/answers_real.py --url http://127.0.0.1:8080/v1 --model qwen   # any OpenAI-compatible server
    python bench/answers_real.py --no-model                        # the data path only (no model server)

One paddock (real uvicorn process, ADK, LiteLLM over HTTP) answers every question, one at a time.
``--json PATH`` writes every answer with its verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", help="an OpenAI-compatible /v1 URL; default: start the embedded SmolLM2")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--no-model", action="store_true", help="no model server at all: the data path")
    ap.add_argument("--kinds", nargs="*", help="only these question kinds")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

    from services.paddock.llm.embedded import EmbeddedModelServer
    from shared.netutil import free_port
    from tests.support.answer_run import prepare, report, run, table, write
    from tests.support.grounding_probe import probe
    from tests.support.procs import start_paddock

    g = probe()
    print(
        f"grounding probe: {g['caught']}/{g['planted']} planted inventions caught "
        f"({g['caught_share']:.0%}); false flags {g['false_flags']}/{g['true_texts']} true texts"
    )
    for unit, u in g["by_unit"].items():
        print(f"  {unit}: {u['caught']}/{u['planted']}")

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        prep = prepare(root)
        server = None
        if a.no_model:
            url, model = f"http://127.0.0.1:{free_port()}/v1", a.model
        elif a.url:
            url, model = a.url, a.model
        else:
            server = EmbeddedModelServer(log_path=root / "llama-server.log")
            server.start(timeout_s=600)
            url, model = server.url, "smollm2"
        env = {"PITWALL_ADK_OPENAI_MODEL": model, "PITWALL_ADK_TIMEOUT_S": "600"}
        pad = start_paddock(prep.data_dir, root, url, env)
        try:
            results = run(pad.url, prep, a.kinds)
            held = run(pad.url, prep, a.kinds, prep.held_out)
            probe = run(pad.url, prep, a.kinds, prep.probe)
        finally:
            pad.stop()
            if server is not None:
                server.stop()
        rep = report(results)
        print(f"model: {'none' if a.no_model else model} at {url}")
        print(table(rep))
        print("by narrator:", json.dumps(rep["by_narrator"]))
        print(f"held-out set ({len(held)} other phrasings):")
        print(table(report(held)))
        print(f"probe set ({len(probe)} phrasings of bench/route_probe.py, XRK files included):")
        print(table(report(probe)))
        for r in results + held + probe:
            if r.verdict != "correct":
                print(f"  {r.qid} {r.verdict} [{r.narrator}] {r.question!r}: {r.why} | {r.text[:160]!r}")
        if a.json:
            write(results + held + probe, rep | {"held_out": report(held), "probe": report(probe)}, a.json)


if __name__ == "__main__":
    main()

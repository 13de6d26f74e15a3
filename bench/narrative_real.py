"""The paddock's narratives on a real local model server: prompt tokens (as the server counts them), time to
first token and total, for a debrief and a brief of a simulated one-hour session, one request at a time.

    python bench/narrative_real.py --url http://127.0.0.1:8099/v1 --model smollm2 [--laps 34] [--runs 2]

Any OpenAI-compatible server works (llama.cpp's ``llama_cpp.server``, Ollama, LM Studio). The first run of
each kind pays the full prefill; later runs show the server's prompt cache at work.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from typing import Any


async def _timed(gen: Any) -> tuple[float | None, float, dict[str, Any]]:
    t0 = time.perf_counter()
    first = None
    last: dict[str, Any] = {}
    async for ev in gen:
        if ev.type == "token" and first is None:
            first = time.perf_counter() - t0
        last = ev.data
    return first, time.perf_counter() - t0, last


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--laps", type=int, default=34)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from services.paddock.agents.service import CoachService
    from services.paddock.lake import configure_lake
    from shared.ingest import import_sim
    from shared.settings import settings_for
    from shared.simulator.fixtures import cached_sim

    with tempfile.TemporaryDirectory() as d:
        s = settings_for(
            d, adk_openai_url=a.url, adk_openai_model=a.model, llm_first_token_s=120, llm_idle_s=60
        )
        sid = import_sim(cached_sim(laps=a.laps, seed=7), s, driver_id="bench").session_id
        configure_lake(s)
        svc = CoachService(s)

        async def go() -> None:
            await svc.startup()
            await svc.warm_up()
            rows = []
            for kind in ("debrief", "brief"):
                for i in range(a.runs):
                    gen = (
                        svc.debrief(sid, "bench")
                        if kind == "debrief"
                        else svc.brief("bench", "brief me", sid)
                    )
                    first, total, done = await _timed(gen)
                    rows.append((kind, i + 1, done, first, total))
            out = [
                "| kind | run | prompt tokens | first token s | total s | narrator | complete | ungrounded |"
            ]
            out.append("|---|---|---|---|---|---|---|---|")
            for kind, i, done, first, total in rows:
                out.append(
                    f"| {kind} | {i} | {done.get('prompt_tokens')} | {first and round(first, 2)} | "
                    f"{round(total, 2)} | {done.get('narrator')} | {done.get('complete')} | "
                    f"{len(done.get('ungrounded') or [])} |"
                )
            print("\n".join(out))

        asyncio.run(go())


if __name__ == "__main__":
    main()

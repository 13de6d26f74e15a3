"""Running the outside answer eval (``tests/eval/``): a real paddock (uvicorn, ADK, LiteLLM over HTTP) over
the sessions ``answer_run.prepare`` imports, each half's items asked and scored by ``answer_run``, and the
per-kind table written as JSON and printed.

``serve`` is the one way the answer evals start their paddock: the start-up warm-up first, so each question
is timed on its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from services.paddock.llm.embedded import MODEL_ALIAS
from tests.support.answer_run import Prepared, Result, report, run, table, write
from tests.support.procs import start_paddock
from tests.support.qeval_items import EVAL_DIR, Item, load, questions

WARM_UP_S = 600


@contextmanager
def serve(prep: Prepared, llm_url: str, root: Path) -> Iterator[str]:
    """A paddock over ``prep``'s data talking to ``llm_url``, ready (warm-up done or failed): its URL."""
    env = {"PITWALL_ADK_OPENAI_MODEL": MODEL_ALIAS, "PITWALL_ADK_TIMEOUT_S": "600"}
    pad = start_paddock(prep.data_dir, root, llm_url, env)
    try:
        deadline = time.monotonic() + WARM_UP_S
        while time.monotonic() < deadline:
            if httpx.get(f"{pad.url}/health", timeout=30).json()["warm_up"]["status"] in ("ready", "failed"):
                break
            time.sleep(0.5)
        yield pad.url
    finally:
        pad.stop()


def half(name: str) -> list[Item]:
    """The items of one half (``tuning`` or ``heldout``)."""
    return load(EVAL_DIR / name)


# The real model's runs ask a fixed share of each half (CI's 90 minutes: SmolLM2 takes ~3.7 s an answer on
# 2 cores, so all 833 phrasings took ~51 min): half the held-out half, a third of the tuning half (whose every
# answer the data path gives too). PITWALL_EVAL_FULL=1 asks every phrasing (the figure a closing note reports).
MODEL_SHARE = {"heldout": 2, "tuning": 3}


def model_sample(items: list[Item], name: str) -> list[Item]:
    """The items of half ``name`` the real model's run asks: those whose digest of session, earlier turns and
    words falls in a fixed 1/``MODEL_SHARE[name]`` (independent of order and of the code), or every one
    under ``PITWALL_EVAL_FULL=1``."""
    if os.environ.get("PITWALL_EVAL_FULL") == "1":
        return items

    def key(it: Item) -> int:
        text = "\n".join((it.session, *it.before, it.text)).encode()
        return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")

    return [it for it in items if key(it) % MODEL_SHARE[name] == 0]


def evaluate(
    url: str, prep: Prepared, items: list[Item], name: str, out: Path, reveal: bool = True
) -> tuple[list[Result], dict]:
    """Ask every item (a fresh conversation each), score it, write the per-kind table to ``out`` (JSON) and
    print it. With ``reveal`` (the tuning half) every answer is written and printed too; without (the
    held-out half) only the counts are, so nobody changing the code reads its phrasings."""
    results = run(url, prep, qs=questions(items, prep.truths, name))
    rep = report(results)
    rep["seconds_per_answer"] = sum(r.done_s for r in results) / len(results) if results else None
    if reveal:
        write(results, rep, out)
    else:
        out.write_text(json.dumps({"report": rep}, indent=1, default=str))
    print(f"\n{name}: {len(results)} phrasings, the table in {out}\n{table(rep)}")
    print(f"seconds per answer: {rep['seconds_per_answer']:.2f}")
    if reveal:
        for r in results:
            if r.verdict != "correct":
                print(
                    f"  {r.verdict}{' (off)' if r.off else ''} [{r.narrator}] {r.kind} {r.session} {r.question!r}: {r.why} | {r.text[:160]!r}"
                )
    return results, rep


def misses(results: list[Result]) -> list[dict[str, Any]]:
    """What was not correct, for an assertion's message."""
    return [
        {"q": r.question, "session": r.session, "verdict": r.verdict, "why": r.why, "text": r.text[:300]}
        for r in results
        if r.verdict != "correct"
    ]


def counts(rep: dict) -> str:
    """The per-kind counts alone (what may be shown of the held-out half)."""
    return json.dumps(rep["kinds"], indent=1)


@dataclass(frozen=True)
class EvalPaddock:
    """A real paddock (no model server: the data path) over the outside eval's sessions (``answer_run.prepare``:
    the simulated Sonoma session, the VBOX, the MyChron kart, the XRK), asked one phrasing at a time."""

    prep: Prepared
    url: str

    def answer(self, sess: str, kind: str, slots: dict[str, Any], text: str) -> tuple[str, str]:
        """(the verdict against the truth from the raw files, ``qeval_items.expect``; the answer's text)."""
        (got,) = run(
            self.url, self.prep, qs=questions([Item(text, kind, sess, slots)], self.prep.truths, "q")
        )
        return got.verdict, got.text

    def losses(self) -> list[str]:
        """The simulator's corners by the time its planted mistakes lost there over the session, most first."""
        lost: dict[str, float] = {}
        for e in self.prep.truths["sim"].events:
            if e.get("time_lost_s") and e.get("corner_id"):
                lost[e["corner_id"]] = lost.get(e["corner_id"], 0.0) + float(e["time_lost_s"])
        return sorted(lost, key=lambda c: -lost[c])

    def assert_where_the_time_is(self, text: str) -> None:
        """A where-the-time-goes answer: the corner that lost the most first, the opportunities in the
        simulator's order, never one lap against another."""
        losses = self.losses()
        assert re.findall(r"\bT\d+\b", text)[0].lower() == losses[0], text
        named = [c.lower() for c in re.findall(r"Opportunity \d+, (T\d+)", text)]
        assert named == losses[: len(named)], text
        assert not re.search(r"\bLap \d+ was [\d.]+ s slower than lap \d+", text), text

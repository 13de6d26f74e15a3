"""Running the answer eval: sessions imported with the real ``pitwall import``, questions asked of a real
paddock over SSE (``POST /coach/ask``), each final ``done`` scored, and the per-kind report.

Used by ``tests/realmodel/test_answer_eval.py`` and ``bench/answers_real.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import connect_sse

from tests.support.answer_eval import Verdict, score
from tests.support.answer_heldout import held_out
from tests.support.answer_probe import probe_questions
from tests.support.answer_questions import Question, questions
from tests.support.procs import REPO
from tests.support.truth import SessionTruth, aim_truth, sim_truth, vbox_truth

SHARED_DATA = REPO.parent / "shared" / "data"
VBOX = SHARED_DATA / "vbox" / "sonoma_vbox0240.csv"
KART = SHARED_DATA / "aim" / "mychron_kart_sskc_2022-06-19.csv"
XRK = {"agx": SHARED_DATA / "aim" / "scut_fsev_agx", "du": SHARED_DATA / "aim" / "scut_fsev_du"}  # .xrk, .csv
DRIVER = "ana"
SIM_SEED, SIM_LAPS = 11, 8


@dataclass
class Prepared:
    data_dir: Path
    sids: dict[str, str]  # sim | vbox | kart -> session id
    truths: dict[str, SessionTruth]
    questions: list[Question]
    held_out: list[Question] = field(default_factory=list)  # other words for every kind (answer_heldout)
    probe: list[Question] = field(default_factory=list)  # the data-path probe's phrasings (answer_probe)


def missing_inputs() -> str | None:
    xrk = [p.with_suffix(x) for p in XRK.values() for x in (".xrk", ".csv")]
    gone = [str(p) for p in (VBOX, KART, *xrk) if not p.exists()]
    return f"real logger files not found: {gone}" if gone else None


def _cli(*args: str) -> str:
    r = subprocess.run(
        [sys.executable, "-m", "shared.cli", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    if r.returncode != 0:
        raise RuntimeError(f"pitwall {' '.join(args)} failed: {r.stderr[-2000:]}")
    return r.stdout


def prepare(root: Path, seed: int = SIM_SEED, laps: int = SIM_LAPS) -> Prepared:
    """Simulate (``pitwall simulate``) and import the sessions (``pitwall import``) into ``root``: the
    simulated one, the VBOX, the kart and both XRK files (truth from their Race Studio CSV exports)."""
    sim_dir, data = root / "sim", root / "data"
    out = json.loads(
        _cli(
            "simulate",
            "--json",
            "--seed",
            str(seed),
            "--laps",
            str(laps),
            "--rate",
            "20",
            "--kinds",
            "all",
            "--out",
            str(sim_dir),
        )
    )
    sim_csv, truth_json = Path(out["aim_csv"]), Path(out["truth"])
    sids: dict[str, str] = {}
    logs = [
        ("sim", sim_csv),
        ("vbox", VBOX),
        ("kart", KART),
        *((n, p.with_suffix(".xrk")) for n, p in XRK.items()),
    ]
    for name, path in logs:
        res = json.loads(_cli("import", "--data-dir", str(data), "--driver", DRIVER, "--json", str(path)))
        sids[name] = (res[0] if isinstance(res, list) else res)["session_id"]
    truths = {
        "sim": sim_truth(sim_csv, truth_json),
        "vbox": vbox_truth(VBOX),
        "kart": aim_truth(KART, "kart"),
    }
    truths |= {n: aim_truth(p.with_suffix(".csv"), n) for n, p in XRK.items()}
    return Prepared(data, sids, truths, questions(truths), held_out(truths), probe_questions(truths))


@dataclass
class Result:
    qid: str
    kind: str
    session: str
    question: str
    text: str
    narrator: str | None
    available: bool | None
    verdict: str
    why: str
    wrong_as_model_text: bool
    off: bool  # evasive with another question's figures (answer_eval.is_off)
    first_token_s: float | None
    done_s: float
    done: dict[str, Any] = field(default_factory=dict)


def ask(
    url: str, sid: str, question: str, driver: str = DRIVER
) -> tuple[dict[str, Any], float | None, float]:
    """One question over SSE: the ``done`` (or ``error``) payload, time to first token, time to the end."""
    t0 = time.perf_counter()
    first: float | None = None
    last: dict[str, Any] = {}
    with (
        httpx.Client(timeout=httpx.Timeout(900, connect=10)) as c,
        connect_sse(
            c,
            "POST",
            f"{url}/coach/ask",
            json={"driver_id": driver, "session_id": sid, "question": question},
            headers={"Accept": "text/event-stream"},
        ) as es,
    ):
        if es.response.status_code != 200:
            return (
                {"type": "http", "status": es.response.status_code, "text": ""},
                None,
                time.perf_counter() - t0,
            )
        for ev in es.iter_sse():
            if not ev.data:
                continue
            if ev.event == "token" and first is None:
                first = time.perf_counter() - t0
            if ev.event in ("done", "error"):
                last = {"type": ev.event, **json.loads(ev.data)}
    return last, first, time.perf_counter() - t0


def run(
    url: str, prep: Prepared, only: list[str] | None = None, qs: list[Question] | None = None
) -> list[Result]:
    """Ask ``qs`` (the main set by default) one at a time, each in a fresh conversation (a follow-up's
    earlier turns asked first in it, unscored)."""
    out: list[Result] = []
    for q in prep.questions if qs is None else qs:
        if only and q.kind not in only:
            continue
        httpx.post(
            f"{url}/session/reset", json={"driver_id": DRIVER}, timeout=30
        )  # no history between questions
        for turn in q.before:  # a follow-up: its earlier turns first, in the same conversation
            ask(url, prep.sids[q.session], turn)
        done, first, total = ask(url, prep.sids[q.session], q.text)
        text = str(done.get("text") or "") if done.get("type") == "done" else ""
        v: Verdict = score(q.expect, text, done.get("narrator"))
        out.append(
            Result(
                q.qid,
                q.kind,
                q.session,
                q.text,
                text,
                done.get("narrator"),
                done.get("available"),
                v.kind,
                v.why,
                v.wrong_as_model_text,
                v.off,
                first,
                total,
                done,
            )
        )
    return out


def _p50(xs: list[float]) -> float | None:
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def report(results: list[Result]) -> dict[str, Any]:
    kinds: dict[str, dict[str, Any]] = {}
    for r in results:
        k = kinds.setdefault(
            r.kind, {"n": 0, "correct": 0, "wrong": 0, "evasive": 0, "off": 0, "wrong_as_model_text": 0}
        )
        k["n"] += 1
        k[r.verdict] += 1
        k["off"] += int(r.off)
        k["wrong_as_model_text"] += int(r.wrong_as_model_text)
    n = len(results)
    correct = sum(r.verdict == "correct" for r in results)
    firsts = [r.first_token_s for r in results if r.first_token_s is not None]
    dones = [r.done_s for r in results]
    return {
        "questions": n,
        "correct": correct,
        "correct_share": correct / n if n else 0.0,
        "wrong": sum(r.verdict == "wrong" for r in results),
        "evasive": sum(r.verdict == "evasive" for r in results),
        "off": sum(r.off for r in results),
        "wrong_as_model_text": sum(r.wrong_as_model_text for r in results),
        "by_narrator": {x: sum(r.narrator == x for r in results) for x in {str(r.narrator) for r in results}},
        "first_token_s": {"p50": _p50(firsts), "max": max(firsts) if firsts else None},
        "done_s": {"p50": _p50(dones), "max": max(dones) if dones else None},
        "kinds": kinds,
    }


def table(rep: dict[str, Any]) -> str:
    rows = [
        "| kind | n | correct | wrong | evasive | of which off | wrong as model text |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, k in rep["kinds"].items():
        rows.append(
            f"| {kind} | {k['n']} | {k['correct']} | {k['wrong']} | {k['evasive']} | {k['off']} | "
            f"{k['wrong_as_model_text']} |"
        )
    rows.append(
        f"| **all** | {rep['questions']} | {rep['correct']} ({rep['correct_share']:.0%}) | {rep['wrong']} | "
        f"{rep['evasive']} | {rep['off']} | {rep['wrong_as_model_text']} |"
    )
    f, d = rep["first_token_s"], rep["done_s"]
    rows.append(
        f"first token p50 {f['p50']} s, max {f['max']} s; done p50 {d['p50']:.2f} s, max {d['max']:.2f} s"
    )
    return "\n".join(rows)


def write(results: list[Result], rep: dict[str, Any], path: Path) -> None:
    path.write_text(
        json.dumps({"report": rep, "results": [asdict(r) for r in results]}, indent=1, default=str)
    )

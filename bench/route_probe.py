"""Probe the data path (no model): driver phrasings read and planned (``plan_for``: parse, then the plan,
as the pipeline calls it) against the real VBOX session, the kart, both XRK files and a simulated one.

``python bench/route_probe.py [root]``: the phrasings below, printed beside figures computed from the raw
files (``tests/support/truth.py``), judged by reading. ``--score``: the probe set
(``tests/support/answer_probe.py``) scored against that truth (correct, wrong, evasive), with the counts."""

from __future__ import annotations

import sys
from pathlib import Path

from services.paddock.agents.evidence import plan_for
from services.paddock.lake import configure_lake
from shared.settings import settings_for
from tests.support.answer_eval import score
from tests.support.answer_run import Prepared, prepare

PHRASINGS = [
    "what did I run on lap 5?",
    "lap 7 time?",
    "what was my quickest lap today",
    "which lap was my worst one",
    "what's my average lap",
    "how much slower was lap 4 than lap 6?",
    "gap between lap 3 and lap 5",
    "lap 6 vs lap 3",
    "what was my min speed in turn 2 on lap 4",
    "top speed through turn 6 on lap 3",
    "how fast was I at the exit of turn 2 on lap 4",
    "entry speed into turn 11 on lap 5",
    "where did I brake for turn 11 on lap 4?",
    "how was turn 7 on lap 3",
    "how's my turn 4 looking",
    "what was my top speed on lap 5 in mph",
    "how fast did I go down the back straight",
    "top speed in kph",
    "what's my vmax",
    "max revs on lap 4",
    "how high did I rev",
    "did the oil pressure drop anywhere",
    "was the engine running hot",
    "did I lock up anywhere",
    "any wheelspin?",
    "did ABS kick in",
    "what about my other sessions here",
    "how many sessions have I done at this track",
    "what was lap 99 like",
    "lap 0 time?",
    "what were my tyre pressures",
    "what was the throttle doing on lap 4",
    "how hard did I hit the brakes",
    "how consistent was I",
    "what's my race pace",
    "what's my achievable lap?",
    "what could I really do if I put my best bits together?",
    "optimal lap",
    "what's my theoretical best",
    "where am I losing the most time",
    "what was my slowest lap and how slow",
    # second round, asked after the first round's fixes (also of the kart session)
    "what was my top speed through the carousel",
    "how fast through turn 11",
    "what was my exit speed out of turn 11 in mph",
    "what's my apex speed at turn 7 on lap 8",
    "what was my lowest speed on lap 3",
    "what's my average speed",
    "how much time did I lose in turn 6 on lap 4",
    "what was my best sector",
    "what's the difference between my best and worst lap",
    "how far off my best was lap 9",
    "how many laps did I do",
    "what gear was I in at turn 11",
    "what was my peak lateral g",
]


def scored(prep: Prepared) -> dict[str, int]:
    counts = {"correct": 0, "wrong": 0, "evasive": 0}
    for q in prep.probe:
        plan = plan_for(q.text, prep.sids[q.session], None)[0]
        v = score(q.expect, plan["text"] if plan else "", "data")
        counts[v.kind] += 1
        mark = "ok " if v.kind == "correct" else v.kind.upper()
        print(f"{mark} [{q.session}] {q.text!r}: {v.why}\n    -> {plan['text'] if plan else None}")
    print(f"probe set: {sum(counts.values())} phrasings, " + ", ".join(f"{k} {n}" for k, n in counts.items()))
    return counts


def main(root: Path, score_only: bool) -> None:
    prep = prepare(root)
    configure_lake(settings_for(prep.data_dir))
    if score_only:
        scored(prep)
        return
    for name in ("vbox", "sim", "kart"):
        st = prep.truths[name]
        print(
            f"=== {name} truth: "
            + ", ".join(
                f"{lp.lap}:{lp.time_s:.3f}{'' if lp.racing else '*'}/{lp.top_kmh:.1f}/{lp.max_rpm:.0f}"
                for lp in st.laps
            )
        )
        for q in PHRASINGS:
            plan = plan_for(q, prep.sids[name], None)[0]
            print(f"[{name}] {q}\n    -> {plan['text'] if plan else None}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--score"]
    main(Path(args[0] if args else "/tmp/route_probe"), "--score" in sys.argv)

"""Opportunities against simulator truth, and their time to compute.

    python bench/opportunities.py [--seeds 20] [--first 900] [--rate 20] [--json]

Precision and recall: each seed is a fresh simulated session of 10 laps whose mistakes (kinds, corners,
laps, sizes) the seed drew; Pitwall splits its laps itself (no truth) and names up to three
opportunities. Precision: the share of named corners where a mistake was injected. Recall: the share of
the injected corners (at most three: the list has three) that are named. Error: each named injected
corner's time to gain against the simulator's own cost of that mistake (its clean-vs-mistake figure,
the median over the laps it was made). Time to compute: get_opportunities and get_threads over the
lake for a simulated hour at 50 Hz (the threads re-measure the session before, so they read two).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from services.paddock.lake import configure_lake  # noqa: E402
from services.paddock.tools.registry import run_tool  # noqa: E402
from shared.ingest import import_sim  # noqa: E402
from shared.laps import assign_laps, detect_laps  # noqa: E402
from shared.opportunity_rules import session_opportunities  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import DRIVING_MISTAKES, simulate  # noqa: E402
from shared.thresholds import DEFAULT_THRESHOLDS  # noqa: E402


def accuracy(seeds: range, rate: float) -> dict[str, Any]:
    named = reported = wanted = 0
    errors: list[float] = []
    for seed in seeds:
        sim = simulate(laps=10, seed=seed, rate_hz=rate)
        w = {k: v.copy() for k, v in sim.wide.items()}
        laps = detect_laps(w, sim.track)
        assign_laps(w, laps, sim.track)
        assert sim.track is not None
        out = session_opportunities(w, [lp.as_dict() for lp in laps], sim.track, DEFAULT_THRESHOLDS)
        cost: dict[str, list[float]] = defaultdict(list)
        for e in sim.truth.events:
            if e["kind"] in DRIVING_MISTAKES:
                cost[e["corner_id"]].append(e["time_lost_s"])
        got = [o["corner_id"] for o in out["opportunities"]]
        reported += len(got)
        named += sum(c in cost for c in got)
        wanted += min(3, len(cost))
        errors += [
            abs(o["time_to_gain_s"] - statistics.median(cost[o["corner_id"]]))
            for o in out["opportunities"]
            if o["corner_id"] in cost
        ]
    return {
        "seeds": f"{seeds.start}-{seeds.stop - 1}",
        "rate_hz": rate,
        "precision": round(named / reported, 3) if reported else None,
        "recall": round(named / wanted, 3) if wanted else None,
        "named": named,
        "reported": reported,
        "injected_top3": wanted,
        "time_to_gain_error_s_median": round(statistics.median(errors), 3) if errors else None,
        "time_to_gain_error_s_max": round(max(errors), 3) if errors else None,
        "within_0_05_s": round(sum(e <= 0.05 for e in errors) / len(errors), 3) if errors else None,
    }


def hour(reps: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        settings = settings_for(d)
        first = simulate(laps=32, seed=1, rate_hz=50.0)  # about an hour
        import_sim(first, settings, driver_id="bench")
        nxt = simulate(laps=32, seed=2, rate_hz=50.0, scenario=first.scenario)
        sid = import_sim(nxt, settings, driver_id="bench").session_id
        configure_lake(settings)
        out: dict[str, Any] = {
            "minutes": round(float(nxt.wide["t_s"][-1]) / 60, 1),
            "rows": len(nxt.wide["t_s"]),
        }
        for tool in ("get_opportunities", "get_threads"):
            ms = []
            for _ in range(reps):
                t = time.perf_counter()
                res = run_tool(tool, {"session_id": sid})
                ms.append((time.perf_counter() - t) * 1000)
                assert "error" not in res, res
            out[f"{tool}_ms_median"] = round(statistics.median(ms))
            out[f"{tool}_ms_max"] = round(max(ms))
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=900)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    res = {"accuracy": accuracy(range(a.first, a.first + a.seeds), a.rate), "hour": hour()}
    if a.json:
        sys.stdout.write(json.dumps(res, indent=1) + "\n")
        return
    acc, hr = res["accuracy"], res["hour"]
    cmd = f"python bench/opportunities.py --seeds {a.seeds} --first {a.first} --rate {a.rate:g}"
    sys.stdout.write(
        f"| Opportunity precision / recall, {a.seeds} simulated seeds ({acc['seeds']}, 10 laps, {a.rate:g} Hz) | "
        f"{acc['precision']} / {acc['recall']} ({acc['named']} of {acc['reported']} named; "
        f"{acc['injected_top3']} injected in the top three) | `{cmd}` |\n"
        f"| Time to gain vs the simulator's cost of the mistake | median error {acc['time_to_gain_error_s_median']} s, "
        f"max {acc['time_to_gain_error_s_max']} s, {acc['within_0_05_s']:.0%} within 0.05 s | `{cmd}` |\n"
        f"| Time to compute, {hr['minutes']} min session at 50 Hz | get_opportunities {hr['get_opportunities_ms_median']} ms"
        f" (first call {hr['get_opportunities_ms_max']} ms), get_threads {hr['get_threads_ms_median']} ms | `{cmd}` |\n"
    )


if __name__ == "__main__":
    main()

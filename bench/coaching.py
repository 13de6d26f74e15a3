"""Coaching quality against simulator ground truth: per injected mistake type, recall (the rule noted it /
a cue was spoken), precision, time lost per mistake; cues spoken and dropped per corner.

    python bench/coaching.py [--seeds 1 2 3 4 5] [--laps 10] [--json]

Each seed is a fresh simulated session (the default scenario) replayed frame by frame through the hot
path's frame path in process (lap tracker, corner watcher, RuleCoach, CoachArbiter). An injected
mistake is an *episode*: consecutive laps with the same mistake at the same corner. It is *noted* when its
rule fires for that corner on one of those laps (the lap after the last, for rules that need a second
lap), and *spoken* when one of those hits is spoken. Precision: the share of the rule's hits (for that
mistake's direction) that belong to an injected episode.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from services.hotpath.arbiter import Decision  # noqa: E402
from services.hotpath.frame_path import LiveSession  # noqa: E402
from shared.profiles.car import load_car  # noqa: E402
from shared.profiles.track import load_track  # noqa: E402
from shared.simulator import simulate  # noqa: E402

MISTAKES = ("late_brake", "early_brake", "coasting", "lockup", "wheelspin")


def _kind_of(d: Decision) -> str | None:
    """The mistake type a technique hit is about (None for rules no mistake is injected for)."""
    h = d.hit
    if h.rule == "brake_point_off":
        return "late_brake" if h.detail.get("direction") == "late" else "early_brake"
    if h.rule == "coasting":
        return "coasting"
    if h.rule == "repeated_slip":
        return str(h.detail.get("kind"))
    return None


def _episodes(truth_events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in truth_events:
        if e["kind"] in MISTAKES:
            by[(e["kind"], e["corner_id"])].append(e)
    out = []
    for (kind, corner), evs in by.items():
        laps = sorted(e["lap"] for e in evs)
        out.append(
            {
                "kind": kind,
                "corner": corner,
                "laps": laps,
                "time_lost_s": [e.get("time_lost_s") for e in evs],
            }
        )
    return out


def run_seed(seed: int, laps: int) -> dict[str, Any]:
    sim = simulate(laps=laps, seed=seed, rate_hz=50)
    notes: list[dict[str, Any]] = []
    sess = LiveSession(
        f"bench-{seed}",
        load_car(sim.truth.car_id),
        load_track(sim.truth.track_id),
        lambda t, r: notes.extend(r) if t == "coaching_notes" else None,
    )
    w = sim.wide
    keys = list(w)
    for i in range(len(w["t_s"])):
        sess.process({k: float(w[k][i]) for k in keys})
    sess.finish()
    tech = [d for d in sess.decisions if d.hit.priority < 3]
    eps = _episodes(sim.truth.events)
    for ep in eps:
        hits = [
            d
            for d in tech
            if _kind_of(d) == ep["kind"]
            and d.hit.corner is not None
            and d.hit.corner.id == ep["corner"]
            and (d.hit.source_lap or -1) in range(ep["laps"][0], ep["laps"][-1] + 2)
        ]
        ep["noted"] = bool(hits)
        ep["spoken"] = any(d.status == "spoken" for d in hits)
    typed = [d for d in tech if _kind_of(d) is not None]
    matched = 0
    per_kind_hits: Counter[str] = Counter()
    per_kind_true: Counter[str] = Counter()
    for d in typed:
        k = _kind_of(d)
        assert k is not None
        per_kind_hits[k] += 1
        ok = any(
            ep["kind"] == k
            and d.hit.corner is not None
            and ep["corner"] == d.hit.corner.id
            and (d.hit.source_lap or -1) in range(ep["laps"][0], ep["laps"][-1] + 2)
            for ep in eps
        )
        per_kind_true[k] += ok
        matched += ok
    stint = [k for k in sim.truth.clean_laps if k > 2]
    return {
        "seed": seed,
        "episodes": eps,
        "hits": dict(per_kind_hits),
        "true_hits": dict(per_kind_true),
        "spoken_by_corner": Counter(
            d.hit.corner.id for d in tech if d.status == "spoken" and d.hit.corner is not None
        ),
        "dropped_by_reason": Counter(str(d.reason) for d in tech if d.status == "dropped"),
        "stint_hits": sum(1 for d in tech if d.hit.source_lap in stint),
        "decisions": len(sess.decisions),
        "notes": len(notes),
        "no_window": dict(sess.arbiter.no_window),
        "lap_times": {lp["lap"]: round(lp["time_s"], 3) for lp in sim.truth.laps if lp["kind"] == "full"},
    }


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    rows = {}
    for k in MISTAKES:
        eps = [ep for r in runs for ep in r["episodes"] if ep["kind"] == k]
        lost = [t for ep in eps for t in ep["time_lost_s"] if t is not None]
        hits = sum(r["hits"].get(k, 0) for r in runs)
        true = sum(r["true_hits"].get(k, 0) for r in runs)
        rows[k] = {
            "episodes": len(eps),
            "noted": sum(ep["noted"] for ep in eps),
            "spoken": sum(ep["spoken"] for ep in eps),
            "hits": hits,
            "precision": round(true / hits, 3) if hits else None,
            "time_lost_s_mean": round(sum(lost) / len(lost), 3) if lost else None,
            "time_lost_s_min": round(min(lost), 3) if lost else None,
            "time_lost_s_max": round(max(lost), 3) if lost else None,
        }
    spoken: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for r in runs:
        spoken.update(r["spoken_by_corner"])
        dropped.update(r["dropped_by_reason"])
    return {
        "seeds": [r["seed"] for r in runs],
        "mistakes": rows,
        "spoken_by_corner": dict(
            sorted(spoken.items(), key=lambda kv: int("".join(filter(str.isdigit, kv[0]))))
        ),
        "dropped_by_reason": dict(dropped.most_common()),
        "clean_stint_hits": sum(r["stint_hits"] for r in runs),
        "no_window": {r["seed"]: r["no_window"] for r in runs if r["no_window"]},
        "every_hit_decided": all(r["notes"] == r["decisions"] for r in runs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--laps", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    runs = [run_seed(s, args.laps) for s in args.seeds]
    summ = summarise(runs)
    if args.json:
        sys.stdout.write(json.dumps(summ, indent=1, default=str) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    con = Console(width=150)
    t = Table(title=f"Coaching vs ground truth, seeds {args.seeds}, {args.laps} laps each")
    for col in ("mistake", "episodes", "noted", "spoken", "precision", "time lost per mistake, s (min-max)"):
        t.add_column(col)
    for k, r in summ["mistakes"].items():
        n = r["episodes"] or 1
        t.add_row(
            k,
            str(r["episodes"]),
            f"{r['noted']}/{r['episodes']} ({100 * r['noted'] / n:.0f} %)",
            f"{r['spoken']}/{r['episodes']} ({100 * r['spoken'] / n:.0f} %)",
            "-" if r["precision"] is None else f"{100 * r['precision']:.0f} % of {r['hits']}",
            "-"
            if r["time_lost_s_mean"] is None
            else f"{r['time_lost_s_mean']:.2f} ({r['time_lost_s_min']:.2f}-{r['time_lost_s_max']:.2f})",
        )
    con.print(t)
    con.print("technique cues spoken per corner:", summ["spoken_by_corner"])
    con.print("technique cues dropped, by reason:", summ["dropped_by_reason"])
    con.print("technique hits about the clean stint:", summ["clean_stint_hits"])
    con.print("corners without a cue window:", summ["no_window"] or "none")
    con.print("every decision stored as a note:", summ["every_hit_decided"])


if __name__ == "__main__":
    main()

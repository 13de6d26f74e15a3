"""The session analysis against the simulator's ground truth over many seeds (the test and the bench).

Per injected driving mistake (one per lap it was made): its corner among the session's top corners
(three, or as many as corners had mistakes injected when that is more), its cause named as injected,
its size within ``SIZE_TOL_S`` of the simulator's own cost of it on that lap (``time_lost_s``), and the
corner after it (driving order, across the line) not named on that lap unless a mistake was made there
too. Laps are split by Pitwall itself (no truth), as at import.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.analysis.session import analyse_session
from shared.analysis.summary import where_the_time_is
from shared.laps_recorded import assign_laps, detect_laps
from shared.simulator import DRIVING_MISTAKES, simulate
from shared.thresholds import DEFAULT_THRESHOLDS

SIZE_TOL_S = 0.05


def injected(sim: Any) -> dict[str, float]:
    """Each corner a mistake was injected at -> the simulator's cost of it a lap (median over its laps)."""
    by: dict[str, list[float]] = {}
    for e in sim.truth.events:
        if e["kind"] in DRIVING_MISTAKES and "time_lost_s" in e:
            by.setdefault(e["corner_id"], []).append(e["time_lost_s"])
    return {c: float(np.median(v)) for c, v in by.items()}


@dataclass
class Sweep:
    mistakes: int = 0
    corner_ranked: int = 0
    cause_right: int = 0
    size_right: int = 0
    next_named: int = 0  # the corner after a mistake named on its lap (must stay 0)
    false_named: int = 0  # corner-laps named where nothing was injected
    named: int = 0
    worst_size_err_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        n = max(self.mistakes, 1)
        return {
            "mistakes": self.mistakes,
            "corner_in_top": round(self.corner_ranked / n, 3),
            "cause_right": round(self.cause_right / n, 3),
            "size_within_0_05_s": round(self.size_right / n, 3),
            "worst_size_error_s": round(self.worst_size_err_s, 3),
            "next_corner_named": self.next_named,
            "named_without_mistake": f"{self.false_named}/{self.named}",
        }


def sweep(seeds: Iterable[int], laps: int = 10, rate_hz: float = 50.0) -> Sweep:
    out = Sweep()
    for seed in seeds:
        sim = simulate(seed=seed, laps=laps, rate_hz=rate_hz)
        track, w = sim.track, sim.wide
        assert track is not None
        found = detect_laps(w, track, None)
        assign_laps(w, found, track)
        an = analyse_session(w, [vars(x) for x in found], track.corners, track.length_m, DEFAULT_THRESHOLDS)
        events = [e for e in sim.truth.events if e["kind"] in DRIVING_MISTAKES and "time_lost_s" in e]
        injected = {(e["lap"], e["corner_id"]) for e in events}
        corners = {e["corner_id"] for e in events}
        top = [s.corner_id for s in where_the_time_is(an, max(3, len(corners)))]
        rows = {(r.lap, r.corner_id): r for r in an.rows}
        order = sorted(track.corners, key=lambda c: c.apex_m)
        for e in events:
            out.mistakes += 1
            key = (e["lap"], e["corner_id"])
            r = rows.get(key)
            tag = f"seed {seed} lap {e['lap']} {e['corner_id']} {e['kind']} {e['time_lost_s']:.3f} s"
            if e["corner_id"] in top:
                out.corner_ranked += 1
            else:
                out.failures.append(f"{tag}: not in the top corners {top}")
            if r is not None and r.cause == e["kind"]:
                out.cause_right += 1
            else:
                out.failures.append(f"{tag}: cause {r.cause if r else None!r}")
            err = abs(r.loss_s - e["time_lost_s"]) if r is not None else float("inf")
            out.worst_size_err_s = max(out.worst_size_err_s, err)
            if err <= SIZE_TOL_S:
                out.size_right += 1
            else:
                out.failures.append(f"{tag}: measured {r.loss_s if r else None}")
            i = [c.id for c in order].index(e["corner_id"])
            nxt = (e["lap"], order[i + 1].id) if i + 1 < len(order) else (e["lap"] + 1, order[0].id)
            nr = rows.get(nxt)
            if nr is not None and nr.cause and nxt not in injected:
                out.next_named += 1
                out.failures.append(f"{tag}: the next corner {nxt} named ({nr.cause}, {nr.loss_s:.3f} s)")
        for r in an.rows:
            if r.cause:
                out.named += 1
                out.false_named += (r.lap, r.corner_id) not in injected
    return out

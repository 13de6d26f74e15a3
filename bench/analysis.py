"""The session analysis: its figures against simulator truth, and its time on a simulated hour.

    python bench/analysis.py [--seeds 0-19] [--hour] [--read] [--no-sweep]

Sweep (``tests/support/sweep.py``): per injected mistake, its corner among the session's top corners,
its cause, its size within 0.05 s of the simulator's own cost; the corner after it never named for it.
``--hour``: ``analyse_session`` on 36 simulated laps at 50 Hz (about an hour), laps already split as at
import; the best of three runs. ``--read``: the same hour imported, its stored analysis read through the
paddock (``session_analysis``, what every surface calls), best of five.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from services.paddock.lake import configure_lake  # noqa: E402
from services.paddock.tools.analysis import session_analysis  # noqa: E402
from shared.analysis.session import analyse_session  # noqa: E402
from shared.ingest import import_sim  # noqa: E402
from shared.laps_recorded import assign_laps, detect_laps  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from shared.thresholds import DEFAULT_THRESHOLDS  # noqa: E402
from tests.support.sweep import sweep  # noqa: E402


def hour() -> dict[str, float]:
    sim = simulate(laps=36, seed=5, rate_hz=50.0)
    track, w = sim.track, sim.wide
    assert track is not None
    laps = detect_laps(w, track, None)
    assign_laps(w, laps, track)
    rows = [vars(x) for x in laps]
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        an = analyse_session(w, rows, track.corners, track.length_m, DEFAULT_THRESHOLDS)
        runs.append(time.perf_counter() - t0)
    return {
        "samples": len(w["t_s"]),
        "laps": len(an.laps),
        "rows": len(an.rows),
        "best_s": round(min(runs), 3),
    }


def read() -> dict[str, float]:
    """The stored analysis of the hour read through the paddock (what every surface calls), best of five."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = settings_for(Path(tmp) / "data")
        sid = import_sim(simulate(laps=36, seed=5, rate_hz=50.0), settings).session_id
        configure_lake(settings)
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            an = session_analysis(sid)
            runs.append(time.perf_counter() - t0)
        return {"rows": len(an.rows), "best_ms": round(1000 * min(runs), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0-19")
    ap.add_argument("--hour", action="store_true")
    ap.add_argument("--read", action="store_true")
    ap.add_argument("--no-sweep", action="store_true")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.seeds.split("-"))
    out: dict[str, object] = {} if a.no_sweep else {"seeds": a.seeds, **sweep(range(lo, hi + 1)).figures()}
    if a.hour:
        out["hour"] = hour()
    if a.read:
        out["read"] = read()
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()

"""Predictive delta accuracy, per source and reference, against an independent position-matched delta
(tests/support/own_delta.py: its own lap split and delta from the raw samples); and live lap times
against the simulator's exact ones.

Each source is replayed frame by frame through the hot path's frame path (LiveSession.process). Along
the lap: |delta - own delta| at every update; at the line: |line delta - own lap-time difference|.

python bench/delta.py              (the real VBOX log needs ../shared/data)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402


def main() -> None:
    from shared.simulator.fixtures import cached_sim
    from tests.support.delta_replay import SOURCES, VBOX, measure, replay, source

    con = Console(width=120)
    tmp = tempfile.mkdtemp(prefix="pitwall-delta-bench-")
    tab = Table(title="Predictive delta error vs an independent position-matched delta")
    for col in (
        "source",
        "reference",
        "updates",
        "p50 ms",
        "p95 ms",
        "max ms",
        "laps at line",
        "line max ms",
    ):
        tab.add_column(col, justify="right" if col not in ("source", "reference") else "left")
    for name in SOURCES:
        if name == "vbox-real" and not VBOX.is_file():
            con.print(f"[yellow]{VBOX} missing: real VBOX rows skipped")
            continue
        for ref in ("session_best", "gold"):
            along, line, _ = measure(name, ref, tmp)
            e = np.abs(np.array(along)) * 1000
            lm = max(abs(x) for x in line) * 1000 if line else float("nan")
            tab.add_row(
                name,
                ref,
                str(len(e)),
                f"{np.median(e):.0f}",
                f"{np.percentile(e, 95):.0f}",
                f"{e.max():.0f}",
                str(len(line)),
                f"{lm:.1f}",
            )
    con.print(tab)
    sim = cached_sim(laps=4, seed=7)
    truth = {lp["lap"]: lp["time_s"] for lp in sim.truth.laps if lp["kind"] == "full"}
    lt = Table(title="Live lap time error vs the simulator's exact lap times (4 laps, seed 7)")
    for col in ("source", "laps", "p50 ms", "max ms"):
        lt.add_column(col, justify="left" if col == "source" else "right")
    for name in ("sim-live", "sim-gps-held", "sim-candump"):
        wide, _, _ = source(name, tmp)
        sess, _ = replay(wide)
        got = {lp.lap: lp.time_s for lp in sess.laps if lp.kind == "full"}
        err = np.array([abs(got[k] - truth[k]) for k in truth if k in got]) * 1000
        lt.add_row(name, f"{len(err)}/{len(truth)}", f"{np.median(err):.1f}", f"{err.max():.1f}")
    con.print(lt)


if __name__ == "__main__":
    main()

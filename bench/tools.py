"""Every analytics tool's latency on a simulated hour at 50 Hz (target: each <= 200 ms).

python bench/tools.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from services.paddock.lake import configure_lake  # noqa: E402
from services.paddock.tools.registry import TOOLS, run_tool  # noqa: E402
from shared.ingest import import_sim  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        settings = settings_for(d)
        sim = simulate(laps=32, seed=1, rate_hz=50.0)
        sid = import_sim(sim, settings, driver_id="bench").session_id
        configure_lake(settings)
        args = {
            "query_pitwall_db": {
                "sql": "SELECT lap, avg(speed_kmh) FROM telemetry GROUP BY lap ORDER BY lap"
            },
            "get_lap_delta": {"session_id": sid, "lap_a": 2, "lap_b": 3},
            "get_corner_history": {"session_id": sid, "corner_name": "T6"},
            "get_progress_report": {"session_id": sid},
            "get_goal_targets": {"session_id": sid},
            "get_session_plan_context": {"session_id": sid},
            "get_weather_adaptation_context": {"hour_local": 9},
            "get_agent_telemetry": {},
            "get_audio_script_context": {"corner_name": "T2", "driver_level": "novice"},
            "save_voice_scripts": {"corner_name": "t2", "phrases": ["Brake at the bridge"]},
        }
        tbl = Table("tool", "median ms", "max ms", "target", "command")
        worst = 0.0
        for name in TOOLS:
            a = args.get(name, {"session_id": sid})
            times = []
            for _ in range(5):
                t = time.perf_counter()
                out = run_tool(name, a)
                times.append((time.perf_counter() - t) * 1000)
                assert "error" not in out, (name, out)
            worst = max(worst, max(times))
            tbl.add_row(
                name,
                f"{statistics.median(times):.1f}",
                f"{max(times):.1f}",
                "<= 200 ms",
                "python bench/tools.py",
            )
        Console(width=160).print(
            f"simulated {sim.wide['t_s'][-1] / 60:.0f} min at 50 Hz, {len(sim.wide['t_s']):,} rows"
        )
        Console(width=160).print(tbl)
        Console(width=160).print(f"slowest single call: {worst:.1f} ms")


if __name__ == "__main__":
    main()

"""The achievable lap against the theoretical best and the best lap on each shared real session (and a
simulated one), and the time to compute it (and the consistency per corner) for a 1-hour session.

    python bench/achievable.py [--shared ../shared] [--hour-laps 38] [--rate 20] [--json]

Each file is imported into a fresh data directory (``pitwall import``'s path). The 1-hour session is a
simulated one of ``--hour-laps`` laps at ``--rate`` Hz; timings are the median of five runs: the search
alone (arrays in memory), and each tool end to end from the lake (the first call reads the lake).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from services.paddock.lake import configure_lake  # noqa: E402
from services.paddock.tools.registry import run_tool  # noqa: E402
from shared.achievable import achievable_lap  # noqa: E402
from shared.achievable_trace import lake_session  # noqa: E402
from shared.ingest import import_file, import_sim  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402

FILES = {
    "Sonoma VBOX (car)": "data/vbox/sonoma_vbox0240.csv",
    "MyChron kart": "data/aim/mychron_kart_sskc_2022-06-19.csv",
    "scut_fsev_agx.xrk": "data/aim/scut_fsev_agx.xrk",
    "scut_fsev_agx.csv": "data/aim/scut_fsev_agx.csv",
    "scut_fsev_du.xrk": "data/aim/scut_fsev_du.xrk",
    "scut_fsev_du.csv": "data/aim/scut_fsev_du.csv",
}


def _row(name: str, sid: str) -> dict[str, Any]:
    out = run_tool("get_achievable_lap", {"session_id": sid})
    if not out.get("available"):
        return {"session": name, "valid_laps": 0, "note": out.get("reason")}
    return {
        "session": name,
        "valid_laps": out["valid_laps"],
        "best": out["best_lap_time"],
        "achievable": out["achievable"],
        "theoretical": out["theoretical_best"],
        "gain_s": out["gain_vs_best_s"],
        "joins": len(out["joins"]),
        "ordered": out["theoretical_best_s"] <= out["achievable_s"] <= out["best_lap_s"],
    }


def _median_s(fn: Any, n: int = 5) -> float:
    got = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        got.append(time.perf_counter() - t0)
    return statistics.median(got)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--hour-laps", type=int, default=38)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-achievable-"))
    settings = settings_for(root / "data")
    sids = {}
    for name, rel in FILES.items():
        if (args.shared / rel).is_file():
            sids[name] = import_file(args.shared / rel, settings, driver_id="bench").session_id
    sids["simulated, seed 7"] = import_sim(simulate(laps=10, seed=7, rate_hz=20), settings, "sim").session_id
    hour = simulate(laps=args.hour_laps, seed=3, rate_hz=args.rate)
    hour_sid = import_sim(hour, settings, "hour").session_id
    configure_lake(settings)
    rows = [_row(name, sid) for name, sid in sids.items()]
    wide, laps, corners = lake_session(settings, hour_sid, ("speed_kmh", "lat", "lon"))
    n_rows = len(hour.wide["t_s"])
    t_first = time.perf_counter()
    run_tool("get_achievable_lap", {"session_id": hour_sid})
    first_s = time.perf_counter() - t_first
    timing = {
        "session": f"{args.hour_laps} laps, {hour.wide['t_s'][-1] / 60:.0f} min, {n_rows} rows at {args.rate:g} Hz",
        "search_only_s": _median_s(lambda: achievable_lap(wide, laps, corners)),
        "tool_first_call_s": first_s,
        "tool_s": _median_s(lambda: run_tool("get_achievable_lap", {"session_id": hour_sid})),
        "consistency_tool_s": _median_s(lambda: run_tool("get_corner_consistency", {"session_id": hour_sid})),
    }
    if args.json:
        print(json.dumps({"sessions": rows, "hour": timing}, indent=1))
        return
    print("| Session | Valid laps | Best lap | Achievable | Theoretical | Achievable gain | Joins |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if not r["valid_laps"]:
            print(f"| {r['session']} | 0 | – | – | – | – | {r['note']} |")
            continue
        assert r["ordered"], r
        print(
            f"| {r['session']} | {r['valid_laps']} | {r['best']} | {r['achievable']} | {r['theoretical']} | "
            f"{r['gain_s']:.3f} s | {r['joins']} |"
        )
    print()
    print(f"1-hour session ({timing['session']}):")
    print(f"  achievable lap, search only: {timing['search_only_s'] * 1000:.0f} ms")
    print(f"  get_achievable_lap, first call (reads the lake): {timing['tool_first_call_s'] * 1000:.0f} ms")
    print(f"  get_achievable_lap, session cached: {timing['tool_s'] * 1000:.0f} ms")
    print(f"  get_corner_consistency: {timing['consistency_tool_s'] * 1000:.0f} ms")


if __name__ == "__main__":
    main()

"""A session bundle for a coach: size, export and import time for a simulated hour at 50 Hz.

python bench/bundle.py [--laps 38] [--rate 50]   (38 simulated Sonoma laps: about an hour)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from shared.bundle import export_bundle, export_channels, import_bundle  # noqa: E402
from shared.ingest import import_sim  # noqa: E402
from shared.settings import settings_for  # noqa: E402
from shared.simulator import simulate  # noqa: E402
from shared.store.lake_layout import session_dir  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--laps", type=int, default=38)
    ap.add_argument("--rate", type=float, default=50.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a, b = settings_for(root / "a"), settings_for(root / "b")
        sim = simulate(laps=args.laps, seed=1, rate_hz=args.rate)
        sid = import_sim(sim, a).session_id
        lake_bytes = sum(p.stat().st_size for p in session_dir(a.lake_dir, sid).rglob("*") if p.is_file())
        t = time.perf_counter()
        m = export_bundle(a, sid, root / "s.pitwall")
        t_export = time.perf_counter() - t
        size = (root / "s.pitwall").stat().st_size
        report = m["members"]["report.html"]["bytes"]
        t = time.perf_counter()
        import_bundle(root / "s.pitwall", b)
        t_import = time.perf_counter() - t
        t = time.perf_counter()
        files = export_channels(a, sid, root / "csv", "csv")
        t_csv = time.perf_counter() - t
        csv_bytes = sum(f.stat().st_size for f in files)
    rows = len(sim.wide["t_s"])
    minutes = (float(sim.wide["t_s"][-1]) - float(sim.wide["t_s"][0])) / 60
    print(
        f"session: {args.laps} laps, {minutes:.0f} min, {rows:,} rows at {args.rate:g} Hz; "
        f"lake copy {lake_bytes / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"bundle: {size / 1e6:.1f} MB (report.html {report / 1e3:.0f} kB); export {t_export:.2f} s, import {t_import:.2f} s"
    )
    print(f"every channel as CSV: {csv_bytes / 1e6:.1f} MB in {t_csv:.2f} s")


if __name__ == "__main__":
    main()

"""Real logger files through ``pitwall import``'s pipeline: laps under the one lap rule, corners found
on tracks without a profile (Sonoma with its profile hidden too), units (XRK vs its own CSV export),
and the wall time of each import incl. the data-quality report and the store + lake.

python bench/real_files.py              (needs ../shared/data)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

DATA = REPO.parent / "shared" / "data"


def main() -> None:
    from shared.corners import auto_corners
    from shared.importers import read_log
    from shared.ingest import import_file
    from shared.laps_recorded import assign_laps, detect_laps
    from shared.profiles.car import load_car
    from shared.settings import settings_for

    con = Console()
    files = sorted(DATA.glob("*/*"))
    tbl = Table("file", "format", "rows", "full laps", "best s", "track", "import ms", "warnings")
    with tempfile.TemporaryDirectory() as d:
        for f in files:
            t = time.perf_counter()
            res = import_file(f, settings_for(Path(d) / f.stem))
            ms = (time.perf_counter() - t) * 1000
            full = [lp["time_s"] for lp in res.laps if lp["kind"] == "full"]
            tbl.add_row(
                f.name,
                res.source_format,
                str(res.rows),
                f"{len(full)}" + (f" ({min(full):.2f}-{max(full):.2f})" if full else ""),
                f"{res.best_lap_s:.3f}" if res.best_lap_s else "-",
                str(res.track),
                f"{ms:.0f}",
                str(len((res.quality or {}).get("warnings", []))),
            )
    con.print(tbl)
    corners = Table("file (no track profile)", "corners", "directions L/R")
    for rel in ("vbox/sonoma_vbox0240.csv", "aim/mychron_kart_sskc_2022-06-19.csv"):
        raw = read_log(DATA / rel)
        wide, _ = load_car("generic").to_wide(raw)
        laps = detect_laps(wide, None, raw.beacons_s)
        assign_laps(wide, laps, None)
        cs = auto_corners(wide, laps)
        left = sum(c.direction == "left" for c in cs)
        corners.add_row(rel, str(len(cs)), f"{left}/{len(cs) - left}")
    con.print(corners)
    units = Table("run", "format", "top speed km/h", "distance m")
    for stem in ("scut_fsev_agx", "scut_fsev_du"):
        for ext in ("xrk", "csv"):
            wide, _ = load_car("generic").to_wide(read_log(DATA / "aim" / f"{stem}.{ext}"))
            v = wide["speed_kmh"]
            dist = float(np.trapezoid(np.nan_to_num(v) / 3.6, wide["t_s"]))
            units.add_row(stem, ext, f"{np.nanmax(v):.2f}", f"{dist:.1f}")
    con.print(units)


if __name__ == "__main__":
    main()

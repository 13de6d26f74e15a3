"""Import speed: XRK import vs libxrk's own parse, rows/s into the store, a simulated hour at 50 Hz.

python bench/import_bench.py            (uses ../shared/data/aim/*.xrk when present)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402


def _best(fn, n: int = 5) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_xrk(rows: list[tuple[str, str, str, str]]) -> None:
    from libxrk import aim_xrk

    from shared.importers import read_log
    from shared.ingest import import_file
    from shared.profiles.car import load_car
    from shared.session_build import analyse
    from shared.settings import settings_for
    from shared.store.hot import HotStore
    from shared.store.publisher import LakePublisher

    car = load_car("generic")
    for path in sorted((REPO.parent / "shared" / "data" / "aim").glob("*.xrk")):
        t_lib = _best(lambda path=path: aim_xrk(str(path)))

        def parse(path: Path = path) -> None:
            raw = read_log(path)
            wide, _ = car.to_wide(raw)
            analyse(wide, car, None, raw.beacons_s)

        t_parse = _best(parse)
        with tempfile.TemporaryDirectory() as d:
            settings = settings_for(d)
            HotStore(settings).close()  # schema exists: measure steady-state imports

            def full(path: Path = path, settings=settings) -> None:
                res = import_file(path, settings)
                store = HotStore(settings)
                LakePublisher(store.con, settings.lake_dir).remove_session(res.session_id)
                store.delete_session(res.session_id)
                store.close()

            t_imp = _best(full, 3)
        rows.append(
            (
                f"XRK read+map+laps vs libxrk parse ({path.name})",
                f"{t_parse * 1000:.0f} ms vs {t_lib * 1000:.0f} ms",
                f"ratio {t_parse / t_lib:.2f} (target <= 2.0)",
                "python bench/import_bench.py",
            )
        )
        rows.append(
            (
                f"XRK full import incl. DuckDB txn + Parquet lake ({path.name})",
                f"{t_imp * 1000:.0f} ms",
                f"ratio {t_imp / t_lib:.2f} (fixed cost of ~10 lake files dominates)",
                "python bench/import_bench.py",
            )
        )


def bench_rows(rows: list[tuple[str, str, str, str]]) -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (session_id VARCHAR, t_s DOUBLE, v DOUBLE)")
    n = 2000
    data = [("s", float(i), float(i)) for i in range(n)]
    t = time.perf_counter()
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", data)
    em = n / (time.perf_counter() - t)
    big = 500_000
    tbl = pa.table(
        {"session_id": ["s"] * big, "t_s": np.arange(big, dtype=float), "v": np.arange(big, dtype=float)}
    )
    t = time.perf_counter()
    for k in range(0, big, 5000):
        con.register("b", tbl.slice(k, 5000))
        con.execute("INSERT INTO t SELECT * FROM b")
        con.unregister("b")
    ar = big / (time.perf_counter() - t)
    rows.append(
        (
            "rows/s into DuckDB, Arrow batches of 5,000",
            f"{ar:,.0f}",
            f"{ar / em:,.0f}x executemany ({em:,.0f}/s)",
            "python bench/import_bench.py",
        )
    )


def bench_hour(rows: list[tuple[str, str, str, str]]) -> None:
    from shared.ingest import import_sim
    from shared.signals import WIDE_COLUMNS
    from shared.simulator import Scenario, simulate

    t = time.perf_counter()
    sim = simulate(laps=29, seed=1, rate_hz=50.0, scenario=Scenario.none())
    t_sim = time.perf_counter() - t
    dur = sim.wide["t_s"][-1]
    n_ch = sum(1 for c in WIDE_COLUMNS if c in sim.wide)
    with tempfile.TemporaryDirectory() as d:
        from shared.settings import settings_for

        t = time.perf_counter()
        res = import_sim(sim, settings_for(d))
        t_imp = time.perf_counter() - t
    rows.append(
        (
            f"simulated {dur / 60:.0f} min at 50 Hz x {n_ch} channels: import (store + lake)",
            f"{t_imp:.1f} s ({res.rows:,} rows)",
            f"target <= 10 s; simulate itself {t_sim:.1f} s",
            "python bench/import_bench.py",
        )
    )


def main() -> None:
    rows: list[tuple[str, str, str, str]] = []
    bench_xrk(rows)
    bench_rows(rows)
    bench_hour(rows)
    tbl = Table("measure", "result", "ratio / target", "command")
    for r in rows:
        tbl.add_row(*r)
    Console(width=200).print(tbl)


if __name__ == "__main__":
    main()

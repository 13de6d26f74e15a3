"""The store writer inserts the Arrow batches of one table queued together as one insert (one commit),
yet a bad batch among them costs only its own rows, as when each was inserted alone."""

from __future__ import annotations

import errno
from pathlib import Path

from services.hotpath import records
from shared.settings import settings_for
from shared.signals import telemetry_schema
from shared.store.hot import open_hot_db
from shared.store.writer import StoreWriter

SCHEMA = telemetry_schema().remove(0)


def _rows(lap: int | None, t0: float, n: int) -> list[dict[str, float | int | None]]:
    return [{"lap": lap, "t_s": t0 + i * 0.02, "dist_m": float(i), "speed_kmh": 100.0} for i in range(n)]


def test_batches_queued_together_are_all_stored(tmp_path: Path) -> None:
    con = open_hot_db(settings_for(tmp_path / "data"))
    w = StoreWriter(con, flush_interval_s=1.0)
    for k in range(6):
        w.submit(*records.telemetry("s1", _rows(k, 10.0 * k, 50), SCHEMA))
    assert w.flush()
    got = con.execute("SELECT count(*), count(DISTINCT lap), min(t_s), max(t_s) FROM telemetry").fetchone()
    assert got == (300, 6, 0.0, 50.0 + 49 * 0.02)
    assert w.rows_written == 300 and w.errors == 0
    w.close()
    con.close()


def test_a_bad_batch_among_others_loses_only_its_rows(tmp_path: Path) -> None:
    con = open_hot_db(settings_for(tmp_path / "data"))
    w = StoreWriter(con, flush_interval_s=1.0)
    w.submit(*records.telemetry("s1", _rows(0, 0.0, 40), SCHEMA))
    w.submit(*records.telemetry("s1", _rows(None, 1.0, 30), SCHEMA))  # lap is NOT NULL: refused
    w.submit(*records.telemetry("s1", _rows(2, 2.0, 20), SCHEMA))
    assert w.flush()
    assert con.execute("SELECT count(*) FROM telemetry").fetchone() == (60,)
    assert con.execute("SELECT count(*) FROM telemetry WHERE lap = 2").fetchone() == (20,)
    assert w.errors == 1 and w.rows_written == 60
    assert w.last_error is not None and w.last_error.startswith("telemetry:")
    w.close()
    con.close()


class _FullOnce:
    """A DuckDB connection whose first insert fails as on a full disk (ENOSPC)."""

    def __init__(self, con: object) -> None:
        self._con, self.failed = con, 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._con, name)

    def execute(self, sql: str, *args: object) -> object:
        if sql.startswith("INSERT") and not self.failed:
            self.failed += 1
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._con.execute(sql, *args)  # type: ignore[attr-defined]


def test_after_a_full_disk_marks_and_jobs_still_wait_for_the_rows_before_them(tmp_path: Path) -> None:
    con = open_hot_db(settings_for(tmp_path / "data"))
    full = _FullOnce(con)
    w = StoreWriter(full, flush_interval_s=1.0)  # type: ignore[arg-type]
    seen: list[tuple[str, int]] = []

    def count() -> int:
        return int(con.execute("SELECT count(*) FROM telemetry").fetchone()[0])  # type: ignore[index]

    w.submit(*records.telemetry("s1", _rows(0, 0.0, 40), SCHEMA))
    w.mark(lambda: seen.append(("mark", count())))
    w.submit(*records.telemetry("s1", _rows(1, 1.0, 30), SCHEMA))
    w.call(lambda c: seen.append(("job", count())))
    w.mark(lambda: seen.append(("mark", count())))
    assert w.flush(timeout=10.0)
    assert full.failed == 1 and w.retries >= 1  # the first write did fail, and was retried
    assert seen == [("mark", 70), ("job", 70), ("mark", 70)]  # never before the rows they follow
    assert w.rows_written == 70 and w.errors == 0
    w.close()
    con.close()

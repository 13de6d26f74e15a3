"""Cars publishing to one S3 lake prefix: real uploaders (their own spools) against a real SeaweedFS.

The catalog is one Delta table: every publication is a commit, a conditional PUT of the next log entry.
The race is forced, not hoped for: the uploaders start their drains at a barrier, and 8 writers append to
the catalog at once, so commits collide on the same version and the losers must commit again. Every
session must be in the catalog, every key they name in the bucket, and the paddock must read them all.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from services.paddock.lake import Lake
from shared.ingest import import_sim
from shared.lake_url import s3_target
from shared.settings import Settings, settings_for
from shared.simulator import simulate
from shared.store.lake_catalog import merge_into_catalog, read_catalog
from shared.store.lake_mirror import mirror_for
from shared.store.lake_tables import LakeTables
from shared.store.uploader import Uploader


def _car(d: Path, w: Any) -> Settings:
    e = w.env("shared-prefix")
    return settings_for(
        d, lake_url=e["PITWALL_LAKE_URL"], s3_endpoint=w.endpoint,
        s3_access_key=e["PITWALL_S3_ACCESS_KEY"], s3_secret_key=e["PITWALL_S3_SECRET_KEY"],
    )  # fmt: skip


def test_two_cars_publishing_to_one_prefix_lose_nothing(weed: Any, tmp_path: Path) -> None:
    barrier = threading.Barrier(2)
    cars = []
    for i, driver in enumerate(("ana", "ben")):
        st = _car(tmp_path / f"car{i}", weed)
        st.ensure_dirs()
        sids = [import_sim(simulate(laps=1, seed=10 + i * 5 + k, rate_hz=10), st, driver_id=driver).session_id
                for k in range(2)]  # fmt: skip
        mirror = mirror_for(st)
        assert mirror is not None
        cars.append((st, sids, Uploader(mirror.spool, weed.filesystem(), s3_target(st), grace_s=0)))
    assert cars[0][2].writer != cars[1][2].writer  # each spool is its own writer
    errors: list[BaseException] = []

    def drain(up: Uploader) -> None:
        try:
            barrier.wait(timeout=20)
            up.drain()
        except BaseException as exc:  # reported below, never lost in a thread
            errors.append(exc)

    threads = [threading.Thread(target=drain, args=(up,)) for _, _, up in cars]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    st = cars[0][0]
    fs, target = weed.filesystem(), s3_target(st)
    cat = read_catalog(fs, target)
    assert cat is not None
    rows = {r["session_id"]: r for r in cat.to_pylist()}
    want = {sid: driver for (_, sids, _), driver in zip(cars, ("ana", "ben"), strict=True) for sid in sids}
    assert {sid: rows[sid]["driver_id"] for sid in want if sid in rows} == want
    for sid in want:
        for key in rows[sid]["object_keys"]:
            assert fs.get_file_info(target.path(key)).type == pafs.FileType.File, key
    # the paddock reads both cars' sessions from the one prefix
    lake = Lake(_car(tmp_path / "paddock", weed))
    cur = lake.cursor()
    got = dict(cur.execute("SELECT session_id, driver_id FROM sessions").fetchall())
    assert got == want
    for sid in want:
        scoped = lake.cursor([sid])
        n = scoped.execute("SELECT count(*) FROM laps WHERE session_id = ?", [sid]).fetchone()
        assert n is not None and n[0] > 0
        scoped.close()
    cur.close()
    # a later publish by one car does not drop the other's rows
    again = import_sim(simulate(laps=1, seed=40, rate_hz=10), st, driver_id="ana").session_id
    cars[0][2].drain()
    after = read_catalog(fs, target)
    assert after is not None and set(after.column("session_id").to_pylist()) == {*want, again}
    # a deletion on one car: gone for every reader, its objects removed, the other car's rows stay
    gone = cars[0][1][0]
    # the other car published it too, later (the same bundle imported on both): the deletion must win
    own = read_catalog(fs, target, session_ids=[gone])
    assert own is not None and own.num_rows == 1
    later = pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC"))
    merge_into_catalog(
        fs, target, own.set_column(own.schema.get_field_index("published_at"), "published_at", later)
    )
    cars[0][2].spool.add_forget(gone)
    cars[0][2].drain()
    final = read_catalog(fs, target)
    assert final is not None and set(final.column("session_id").to_pylist()) == {*want, again} - {gone}
    assert all(
        fs.get_file_info(target.path(k)).type == pafs.FileType.NotFound for k in rows[gone]["object_keys"]
    )


def test_eight_writers_committing_at_once_lose_no_row(weed: Any) -> None:
    """8 writers append 5 publications each to one catalog table at the same moment: every commit that
    lost the race for a version committed again, so all 40 rows are there, and the log has 40 versions
    after the first (each commit one version: none overwrote another)."""
    tables = LakeTables("s3://pitwall-lake/race8", dict(s3_target(_car(Path("/nonexistent"), weed)).options))
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            barrier.wait(timeout=20)
            for k in range(5):
                row = pa.table(
                    {
                        "session_id": [f"w{w}-{k}"], "published_at": pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")),
                        "track": ["t"], "date": ["2026-11-27"],
                    }
                )  # fmt: skip
                tables.append("sessions", row)
        except BaseException as exc:  # reported below
            errors.append(exc)

    tables.append(
        "sessions",
        pa.table(
            {
                "session_id": ["first"],
                "published_at": pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")),
                "track": ["t"],
                "date": ["2026-11-27"],
            }
        ),
    )
    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    got = tables.read("sessions")
    assert got is not None
    assert sorted(got.column("session_id").to_pylist()) == sorted(
        ["first", *(f"w{w}-{k}" for w in range(8) for k in range(5))]
    )
    assert tables.version("sessions") == 40

"""The lake's Delta tables (shared/store/lake_tables.py): the local lake on the same format as the S3 one,
``pitwall lake migrate`` of an older lake (local and on a real SeaweedFS) with nothing lost, and engines we
did not write reading the tables. Every figure is checked against the old per-session files read with
pyarrow alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

from shared.ingest import import_file
from shared.lake_url import s3_target
from shared.settings import settings_for
from shared.store.lake_catalog import fragment_key, legacy_fragments, read_catalog
from shared.store.lake_migrate import migrate_s3
from shared.store.lake_tables import LakeTables
from tests.support.cli import pitwall
from tests.support.seaweed import SeaweedS3

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"
VBOX = "data/vbox/sonoma_vbox0240.csv"


def _old_laps(lake_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every session's (lap, time) pairs, from the old layout's ``laps.parquet`` files read directly."""
    out = {}
    for f in sorted((lake_dir / "sessions").glob("*/laps.parquet")):
        t = pq.read_table(f)
        out[f.parent.name] = sorted(
            zip(t.column("lap").to_pylist(), t.column("time_s").to_pylist(), strict=True)
        )
    return out


def _table_laps(laps: pa.Table) -> dict[str, list[tuple[int, float]]]:
    out: dict[str, list[tuple[int, float]]] = {}
    for r in laps.select(["session_id", "lap", "time_s"]).to_pylist():
        out.setdefault(r["session_id"], []).append((r["lap"], r["time_s"]))
    return {k: sorted(v) for k, v in sorted(out.items())}


@pytest.fixture(scope="module")
def old_local(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local lake of two real imports, in the older layout: session folders only, no Delta tables."""
    data = tmp_path_factory.mktemp("oldlake") / "data"
    st = settings_for(data)
    for f in (KART, VBOX):
        import_file(shared_dir / f, st)
    assert (st.lake_dir / "_delta" / "laps").is_dir()  # an import publishes the tables
    shutil.rmtree(st.lake_dir / "_delta")  # the older layout: what a lake written before looks like
    return data


def test_migrate_converts_a_local_lake_with_nothing_lost_and_twice_adds_nothing(
    old_local: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(old_local, data)
    lake = data / "lake"
    old = _old_laps(lake)
    assert len(old) == 2 and sum(len(v) for v in old.values()) > 20
    old_rows = {s: pq.read_table(lake / "sessions" / s / "corners.parquet").num_rows for s in old}
    first = pitwall("lake", "migrate", "--data-dir", str(data), "--json")
    assert first.returncode == 0, first.stderr
    got = json.loads(first.stdout)
    assert got["sessions"] == 2
    assert got["rows"]["sessions"] == 2 and got["rows"]["laps"] == sum(len(v) for v in old.values())
    assert got["rows"]["corners"] == sum(old_rows.values())
    tables = LakeTables.local(lake)
    laps = tables.read("laps")
    assert laps is not None and _table_laps(laps) == old  # every lap, its time to the last digit
    again = pitwall("lake", "migrate", "--data-dir", str(data), "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["rows"] == got["rows"]  # nothing twice
    # the partitions: by track and date, as Hive folders
    cat = tables.read("sessions")
    assert cat is not None
    parts = {(r["track"], r["date"]) for r in cat.to_pylist()}
    assert all((lake / "_delta" / "laps" / f"track={t}" / f"date={d}").is_dir() for t, d in parts)


def test_engines_read_the_local_tables_as_the_old_files_say(old_local: Path, tmp_path: Path) -> None:
    """polars (read_delta), DuckDB (over the table's Arrow dataset) and Daft (the files of the table's
    current version) read the same laps as the old files, by the same table path as on S3."""
    import daft
    import polars as pl

    data = tmp_path / "data"
    shutil.copytree(old_local, data)
    assert pitwall("lake", "migrate", "--data-dir", str(data)).returncode == 0
    lake = data / "lake"
    old = _old_laps(lake)
    uri = str(lake / "_delta" / "laps")
    by_polars = pl.read_delta(uri).select("session_id", "lap", "time_s").to_arrow()
    con = duckdb.connect()
    con.register("laps", DeltaTable(uri).to_pyarrow_dataset())
    by_duckdb = con.sql("SELECT session_id, lap, time_s FROM laps").to_arrow_table()
    by_daft = pa.table(
        daft.read_parquet(DeltaTable(uri).file_uris()).select("session_id", "lap", "time_s").to_pydict()
    )
    for got in (by_polars, by_duckdb, by_daft):
        assert _table_laps(got) == old
    # one driver's history at one track, pruned by the partition: only that track's files are read
    vbox = next(
        s
        for s in old
        if pq.read_table(lake / "sessions" / s / "session.parquet").column("track_id")[0].as_py() == "sonoma"
    )
    files = DeltaTable(uri).file_uris(file_pruning_predicate="track = 'sonoma'")
    assert files and all("track=sonoma" in f for f in files)
    hist = con.sql("SELECT lap, time_s FROM laps WHERE track = 'sonoma' ORDER BY lap").fetchall()
    assert hist == old[vbox]


def test_a_deleted_session_leaves_the_catalog(old_local: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(old_local, data)
    assert pitwall("lake", "migrate", "--data-dir", str(data)).returncode == 0
    sid = sorted(_old_laps(data / "lake"))[0]
    gone = pitwall("delete", sid, "--yes", "--data-dir", str(data))
    assert gone.returncode == 0, gone.stderr
    from shared.store.lake_catalog import read_local_catalog

    cat = read_local_catalog(data / "lake")
    assert cat is not None and sid not in cat.column("session_id").to_pylist() and cat.num_rows == 1


def test_migrate_converts_an_s3_lake_the_old_layout_read_until_then(
    old_local: Path, tmp_path: Path, weed: SeaweedS3
) -> None:
    """An S3 lake of the older layout (a writer's ``_catalog`` fragment naming each session's objects)
    is read as it is, converted by ``migrate``, read the same afterwards, its fragments gone."""
    w = weed  # the module's server (tests/store/conftest.py); this test's own prefix
    e = w.env("old")
    st = settings_for(
        tmp_path / "reader", lake_url=e["PITWALL_LAKE_URL"], s3_endpoint=w.endpoint,
        s3_access_key=e["PITWALL_S3_ACCESS_KEY"], s3_secret_key=e["PITWALL_S3_SECRET_KEY"],
    )  # fmt: skip
    fs, target = w.filesystem(), s3_target(st)
    lake = old_local / "lake"
    rows = []
    for d in sorted((lake / "sessions").iterdir()):
        row = pq.read_table(d / "session.parquet")
        r = row.to_pylist()[0]
        base = f"track={r['track_id']}/date={str(r['started_at'])[:10]}/session={d.name}"
        keys = []
        for f in sorted(d.glob("*.parquet")):
            fs.create_dir(target.path(base))
            with fs.open_output_stream(target.path(f"{base}/{f.name}")) as out:
                out.write(f.read_bytes())
            keys.append(f"{base}/{f.name}")
        row = row.append_column("object_keys", pa.array([keys], pa.list_(pa.string())))
        rows.append(
            row.append_column("published_at", pa.array([r["created_at"]], pa.timestamp("us", tz="UTC")))
        )
    with fs.open_output_stream(target.path(fragment_key("oldcar"))) as out:
        pq.write_table(pa.concat_tables(rows), out)
    before = read_catalog(fs, target)  # the old layout, read as it is
    assert before is not None and sorted(before.column("session_id").to_pylist()) == sorted(_old_laps(lake))
    got = migrate_s3(fs, target)
    assert got["sessions"] == 2 and got["rows"]["laps"] == sum(len(v) for v in _old_laps(lake).values())
    assert legacy_fragments(fs, target) == []
    after = read_catalog(fs, target)
    assert after is not None
    same = ["session_id", "best_lap_s", "n_laps", "object_keys"]
    assert (
        after.select(same).sort_by("session_id").to_pylist()
        == before.select(same).sort_by("session_id").to_pylist()
    )
    laps = LakeTables.s3(target).read("laps")
    assert laps is not None and _table_laps(laps) == _old_laps(lake)
    assert migrate_s3(fs, target)["rows"] == got["rows"]  # again: nothing twice
    assert fs.get_file_info(target.path("_delta/sessions/_delta_log")).type == pafs.FileType.Directory
    assert (
        pc.sum(
            pc.equal(
                LakeTables.s3(target).read("sessions").column("session_id"),
                rows[0].column("session_id")[0],
            )
        ).as_py()
        == 1
    )  # type: ignore[union-attr]


def test_a_table_is_compacted_and_checkpointed_every_50_versions(tmp_path: Path) -> None:
    """60 publications, one commit each: the writer that reaches version 50 compacts the 51 files of the
    one partition into one and checkpoints; the 9 after it add a file each. Every row is still there."""
    from datetime import UTC, datetime

    tables = LakeTables.local(tmp_path / "lake")
    for i in range(60):
        tables.append(
            "sessions",
            pa.table(
                {
                    "session_id": [f"s{i:02d}"],
                    "track": ["sonoma"],
                    "date": ["2026-11-27"],
                    "published_at": pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")),
                }
            ),  # fmt: skip
        )
    dt = tables.table("sessions")
    assert dt is not None and len(dt.file_uris()) == 1 + 9
    assert sorted(dt.to_pyarrow_table().column("session_id").to_pylist()) == [f"s{i:02d}" for i in range(60)]
    assert (tmp_path / "lake" / "_delta" / "sessions" / "_delta_log" / "_last_checkpoint").is_file()

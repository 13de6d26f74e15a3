"""A catalog row records each object's size (``object_sizes``), so the paddock opens a session's telemetry
without asking the store its size first: against a real SeaweedFS server, a session published by the real
mirror and uploader, the sizes checked against the bucket's own listing, the requests against the server's
own count, the rows against the object read here with pyarrow.

A session published again puts its new objects before its new row: in between, the row held names the new
telemetry object with the old one's size. That read fails once, the session's files are read whole, and
from then on its objects are opened without the recorded sizes: the query is answered from the new object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import services.paddock.lake as lake_mod
from services.paddock.lake import Lake
from services.paddock.lake_catalog_lookup import CatalogLookup
from services.paddock.tools.base import rows
from shared.ingest import import_sim
from shared.lake_url import s3_filesystem, s3_target
from shared.settings import Settings, settings_for
from shared.simulator import simulate
from shared.store.lake_catalog import KEYS_COLUMN, SIZES_COLUMN, read_catalog
from shared.store.lake_mirror import mirror_for, uploader_for

COUNT = "SELECT count(*) AS n FROM telemetry WHERE session_id = ?"


def _car(d: Path, w: Any, prefix: str) -> Settings:
    e = w.env(prefix)
    return settings_for(
        d, lake_url=e["PITWALL_LAKE_URL"], s3_endpoint=w.endpoint,
        s3_access_key=e["PITWALL_S3_ACCESS_KEY"], s3_secret_key=e["PITWALL_S3_SECRET_KEY"],
    )  # fmt: skip


def _published(w: Any, d: Path, prefix: str, sessions: int) -> tuple[Settings, list[str]]:
    car = _car(d / "car", w, prefix)
    sids = [import_sim(simulate(laps=2, seed=s, rate_hz=10), car).session_id for s in range(sessions)]
    mirror = mirror_for(car)
    assert mirror is not None
    uploader_for(car, mirror).drain()
    return car, sids


def _telemetry_key(row: dict[str, Any]) -> str:
    return next(k for k in row[KEYS_COLUMN] if k.endswith("/telemetry.parquet"))


def test_the_row_records_each_objects_size_and_telemetry_opens_without_a_head(
    weed: Any, tmp_path: Path
) -> None:
    car, sids = _published(weed, tmp_path, "sized", 3)
    fs, target = s3_filesystem(car), s3_target(car)
    cat = read_catalog(fs, target)
    assert cat is not None and sorted(cat.column("session_id").to_pylist()) == sorted(sids)
    for row in cat.to_pylist():
        listed = {i.path: i.size for i in fs.get_file_info([target.path(k) for k in row[KEYS_COLUMN]])}
        assert row[SIZES_COLUMN] == [listed[target.path(k)] for k in row[KEYS_COLUMN]], row["session_id"]
    truth = {
        r["session_id"]: pq.read_metadata(target.path(_telemetry_key(r)), filesystem=fs).num_rows
        for r in cat.to_pylist()
    }
    pad = settings_for(tmp_path / "pad", lake_url=car.lake_url, s3_endpoint=car.s3_endpoint,
                       s3_access_key=car.s3_access_key, s3_secret_key=car.s3_secret_key)  # fmt: skip
    lake = Lake(pad, refresh_ttl_s=3600)
    lake.refresh(force=True)
    assert lake.s3 is not None
    # the same session's count, opened with the recorded sizes, then as a row without them opens it
    served = []
    for sized in (True, False):
        for sid in sids:
            if not sized:
                lake.s3.deep_problem(sid)  # its files read whole: from now on opened without the sizes
            cur = lake.cursor([sid], COUNT)
            before = weed.requests_served()
            assert cur.execute(COUNT, [sid]).fetchall() == [(truth[sid],)]
            served.append(weed.requests_served() - before)
            cur.close()
    with_sizes, without = served[: len(sids)], served[len(sids) :]
    assert [b - a for a, b in zip(with_sizes, without, strict=True)] == [1] * len(sids), served
    lake.close()


def test_an_object_republished_before_its_row_is_read_from_the_object(
    weed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    car, (sid,) = _published(weed, tmp_path, "republished", 1)
    fs, target = s3_filesystem(car), s3_target(car)
    cat = read_catalog(fs, target)
    assert cat is not None
    key = target.path(_telemetry_key(cat.to_pylist()[0]))
    pad = settings_for(tmp_path / "pad", lake_url=car.lake_url, s3_endpoint=car.s3_endpoint,
                       s3_access_key=car.s3_access_key, s3_secret_key=car.s3_secret_key)  # fmt: skip
    lake = Lake(pad, refresh_ttl_s=3600)
    monkeypatch.setattr(lake_mod, "_LAKE", lake)
    old = pq.read_table(key, filesystem=fs)
    assert rows(COUNT, [sid]) == [{"n": old.num_rows}]
    # the republished object (a repair: the first lap's samples only) is up, its new row not yet
    lap1 = old.filter(pc.equal(old.column("lap"), pc.min(old.column("lap"))))
    with fs.open_output_stream(key) as f:
        pq.write_table(lap1, f, compression="zstd")
    recorded = dict(zip(cat.column(KEYS_COLUMN)[0].as_py(), cat.column(SIZES_COLUMN)[0].as_py(), strict=True))
    assert fs.get_file_info(key).size != recorded[_telemetry_key(cat.to_pylist()[0])]
    assert 0 < lap1.num_rows < old.num_rows
    assert rows(COUNT, [sid]) == [{"n": lap1.num_rows}]
    assert lake.damaged == {}  # not damaged: the files read whole
    lake.close()


def test_a_row_without_sizes_opens_its_objects_as_before() -> None:
    """Rows written before sizes were recorded (no column, or null), or whose sizes do not pair with
    their keys: no size is taken from them."""
    keys = [["a/laps.parquet", "a/telemetry.parquet"], ["b/telemetry.parquet"], ["c/telemetry.parquet"]]
    view = CatalogLookup()
    view.catalog = pa.table({"session_id": ["a", "b", "c"], KEYS_COLUMN: keys})
    assert view.sizes("a") == {}
    view.catalog = view.catalog.append_column(
        SIZES_COLUMN, pa.array([[10, 20], None, [1, 2]], pa.list_(pa.int64()))
    )
    assert view.sizes("a") == {"a/laps.parquet": 10, "a/telemetry.parquet": 20}
    assert view.sizes("b") == {} and view.sizes("c") == {} and view.sizes("nope") == {}

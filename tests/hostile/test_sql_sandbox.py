"""The paddock's SQL sandbox: reading any file outside the lake is refused (not "fewer rows"), DuckDB's
temp directory included; the memory limit is the setting; a cut cell says ``truncated``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.paddock.lake import Lake
from services.paddock.tools.sql_guard import CELL_CAP, run_query
from shared.settings import settings_for


@pytest.fixture()
def lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lake]:
    monkeypatch.chdir(tmp_path)  # DuckDB's default temp directory is .tmp/ under the working directory
    lk = Lake(settings_for(tmp_path / "data", duckdb_memory_limit_mb=256))
    yield lk
    lk.con.close()  # no DuckDB connection outlives its test (see tests/conftest.py)


def _refused(lake: Lake, sql: str) -> None:
    out = run_query(lake.cursor(), sql)
    assert "error" in out, (sql, out)
    assert out["error"]["code"] == "permission_denied", (sql, out)


def test_files_outside_the_lake_are_refused(lake: Lake, tmp_path: Path) -> None:
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "spill.csv").write_text("secret\nhunter2\n")
    (tmp_path / "beside.csv").write_text("secret\nhunter2\n")
    lake_dir = lake.lake_dir
    for path in (
        ".tmp/spill.csv",
        str(tmp_path / ".tmp" / "spill.csv"),
        str(tmp_path / "beside.csv"),
        f"{lake_dir}/../beside.csv",
        f"{lake_dir}/../../beside.csv",
        "/etc/hostname",
        "/proc/self/environ",
    ):
        for fn in ("read_csv", "read_text", "read_blob", "glob"):
            _refused(lake, f"SELECT * FROM {fn}('{path}')")


def test_a_symlink_in_the_lake_pointing_out_is_refused(lake: Lake, tmp_path: Path) -> None:
    (tmp_path / "beside.csv").write_text("secret\nhunter2\n")
    link = lake.lake_dir / "link.csv"
    os.symlink(tmp_path / "beside.csv", link)
    _refused(lake, f"SELECT * FROM read_csv('{link}')")


def test_memory_limit_and_no_temp_directory(lake: Lake) -> None:
    out = run_query(
        lake.cursor(),
        "SELECT current_setting('memory_limit') AS m, current_setting('temp_directory') AS t",
    )
    row = out["rows"][0]
    assert row["m"].replace(" ", "") in ("256.0MiB", "244.1MiB", "256MiB", "256.0MB"), row
    assert row["t"] == ""


def test_a_cut_cell_reports_truncated(lake: Lake) -> None:
    out = run_query(lake.cursor(), f"SELECT repeat('x', {CELL_CAP + 1}) AS s")
    assert out["row_count"] == 1 and out["truncated"] is True
    assert len(out["rows"][0]["s"]) == CELL_CAP + 1  # the cut text plus the ellipsis
    out = run_query(lake.cursor(), f"SELECT repeat('x', {CELL_CAP}) AS s")
    assert out["truncated"] is False


def test_files_inside_the_lake_stay_readable(lake: Lake) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    inside = lake.lake_dir / "sessions" / "s1" / "probe.parquet"
    inside.parent.mkdir(parents=True)
    pq.write_table(pa.table({"x": [7]}), inside)
    out = run_query(lake.cursor(), f"SELECT x FROM read_parquet('{inside}')")
    assert out.get("rows") == [{"x": 7}], out


def test_a_lake_path_with_a_quote_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="contains a quote; choose another PITWALL_DATA_DIR"):
        Lake(settings_for(tmp_path / "it's"))

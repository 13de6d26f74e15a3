"""A session bundle moves a session to another Pitwall whole, with provenance; a damaged one stores
nothing. Figures are checked against the simulator's own truth file, not against the exporter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from shared.bundle import export_bundle, export_channels, import_bundle
from shared.display import lap_time
from shared.importers.errors import ImportFormatError
from shared.ingest import import_file
from shared.settings import settings_for
from shared.simulator import simulate
from shared.simulator.writers import write_aim_csv, write_ground_truth
from shared.store.hot import HotStore
from shared.store.lake_layout import session_dir, table_path

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("bundle")
    sim = simulate(laps=3, seed=8, rate_hz=10)
    csv = write_aim_csv(sim, root / "ana_sonoma.csv")
    truth = json.loads(write_ground_truth(sim, root / "truth.json").read_text())
    a = settings_for(root / "a")
    res = import_file(csv, a, driver_id="ana")
    out = root / "ana.pitwall"
    manifest = export_bundle(a, res.session_id, out)
    return {"root": root, "a": a, "sid": res.session_id, "out": out, "manifest": manifest, "truth": truth}


def _truth_lap_times(truth: dict) -> list[float]:
    """The simulator's exact times of its full laps."""
    return [float(x["time_s"]) for x in truth["laps"] if x["kind"] == "full"]


def test_a_bundle_imports_whole_into_another_pitwall_with_provenance(exported, tmp_path: Path) -> None:
    b = settings_for(tmp_path / "b")
    got = import_bundle(exported["out"], b)
    sid = exported["sid"]
    assert got.session_id == sid and not got.duplicate
    laps = pq.read_table(table_path(b.lake_dir, sid, "laps")).to_pylist()
    full = sorted(r["time_s"] for r in laps if r["kind"] == "full")
    want = sorted(_truth_lap_times(exported["truth"]))
    assert len(full) == len(want) and all(abs(x - y) < 0.05 for x, y in zip(full, want, strict=True))
    a_files = sorted(
        p.relative_to(session_dir(exported["a"].lake_dir, sid))
        for p in session_dir(exported["a"].lake_dir, sid).rglob("*.parquet")
    )
    b_files = sorted(
        p.relative_to(session_dir(b.lake_dir, sid)) for p in session_dir(b.lake_dir, sid).rglob("*.parquet")
    )
    assert a_files == b_files
    for rel in a_files:
        if rel.name == "session.parquet":
            continue
        ta = pq.read_table(session_dir(exported["a"].lake_dir, sid) / rel)
        tb = pq.read_table(session_dir(b.lake_dir, sid) / rel)
        assert ta.num_rows == tb.num_rows and ta.drop_columns(
            [c for c in ta.column_names if c == "created_at"]
        ).equals(
            tb.drop_columns([c for c in tb.column_names if c == "created_at"]).select(
                [c for c in ta.column_names if c != "created_at"]
            )
        ), rel
    row = pq.read_table(table_path(b.lake_dir, sid, "session")).to_pylist()[0]
    prov = json.loads(row["meta_json"])["imported_bundle"]
    assert row["driver_id"] == "ana" and prov["bundle_file"] == "ana.pitwall"
    assert prov["original_source_file"] == "ana_sonoma.csv" and prov["exported_at"]
    # the same bundle again stores nothing new
    assert import_bundle(exported["out"], b).duplicate
    store = HotStore(b)
    try:
        assert len(store.sessions()) == 1
    finally:
        store.close()


def test_the_report_is_self_contained_and_shows_the_laps(exported) -> None:
    with zipfile.ZipFile(exported["out"]) as zf:
        report = zf.read("report.html").decode()
    assert "<script" not in report and "http://" not in report and "https://" not in report
    for t in _truth_lap_times(exported["truth"]):
        assert lap_time(t)[:-1] in report  # m:ss.ss at least: the exporter's own rounding aside
    assert report.count("<svg") >= 3 and "Turn 11" in report and "class=best" in report


def test_a_damaged_bundle_is_refused_by_name_and_stores_nothing(exported, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pitwall"
    with zipfile.ZipFile(exported["out"]) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "lake/laps.parquet":
                data = data[:-20] + b"\0" * 20
            dst.writestr(info.filename, data)
    b = settings_for(tmp_path / "b")
    with pytest.raises(ImportFormatError, match=r"lake/laps\.parquet.*SHA-256"):
        import_bundle(bad, b)
    assert not (b.lake_dir / "sessions").exists() or not any((b.lake_dir / "sessions").iterdir())
    small = settings_for(tmp_path / "c", import_max_decompressed_bytes=2**20)
    with pytest.raises(ImportFormatError, match="PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES"):
        import_bundle(exported["out"], small)


def test_pitwall_import_takes_a_bundle(exported, tmp_path: Path) -> None:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    cmd = [
        sys.executable,
        "-m",
        "shared.cli",
        "import",
        str(exported["out"]),
        "--data-dir",
        str(tmp_path / "d"),
        "--json",
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=180)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["session_id"] == exported["sid"]


def test_every_channel_exports_as_csv(exported, tmp_path: Path) -> None:
    files = export_channels(exported["a"], exported["sid"], tmp_path, "csv")
    names = {f.name.split("_", 1)[1] for f in files}
    assert names == {"telemetry.csv", "signals.csv"}
    tel = pacsv.read_csv(next(f for f in files if f.name.endswith("telemetry.csv")))
    lake = session_dir(exported["a"].lake_dir, exported["sid"]) / "telemetry"
    assert tel.num_rows == sum(pq.read_metadata(p).num_rows for p in lake.glob("lap_*.parquet"))
    assert {"speed_kmh", "throttle_pct", "brake_bar", "lat", "lon"} <= set(tel.column_names)

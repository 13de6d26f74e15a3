"""The single-writer store, the Parquet lake, imports and the data CLI, on real files and real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest

from shared.importers import ImportFormatError
from shared.ingest import import_file, import_sim
from shared.settings import settings_for
from shared.store.hot import HotStore, StoreLockedError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def settings(tmp_path: Path):
    return settings_for(tmp_path / "data")


def test_real_files_import_with_laps(shared_dir: Path, settings) -> None:
    v = import_file(shared_dir / "data/vbox/sonoma_vbox0240.csv", settings)
    assert v.track == "sonoma" and v.source_format == "vbox_csv"
    assert sum(1 for lp in v.laps if lp["kind"] == "full") >= 8
    assert 106 < (v.best_lap_s or 0) < 108
    m = import_file(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv", settings)
    assert len(m.laps) == 16 and (m.track or "").startswith("auto-")  # a kart track found from its line
    x = import_file(shared_dir / "data/aim/scut_fsev_agx.xrk", settings)
    c = import_file(shared_dir / "data/aim/scut_fsev_agx.csv", settings)
    assert [lp["kind"] for lp in x.laps] == [lp["kind"] for lp in c.laps]
    store = HotStore(settings)
    try:
        counts = store.counts()
        assert (
            counts["sessions"] == 4
            and counts["signal_registry"] > 100
            and counts["telemetry_signals"] > 10_000
        )
        unmapped = store.con.execute(
            "SELECT count(*) FROM signal_registry WHERE session_id = ? AND canonical IS NULL", [v.session_id]
        ).fetchone()
        assert unmapped and unmapped[0] > 10  # unmapped channels are kept too
    finally:
        store.close()


def test_reimport_is_detected(shared_dir: Path, settings) -> None:
    a = import_file(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv", settings)
    b = import_file(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv", settings)
    assert b.duplicate and b.session_id == a.session_id
    store = HotStore(settings)
    try:
        assert store.counts()["sessions"] == 1
    finally:
        store.close()


def test_failed_import_leaves_store_and_lake_unchanged(shared_dir: Path, settings, tmp_path: Path) -> None:
    import_file(shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv", settings)
    store = HotStore(settings)
    before = store.counts()
    store.close()
    lake_before = sorted(p.relative_to(settings.lake_dir) for p in settings.lake_dir.rglob("*"))
    bad = tmp_path / "broken.csv"
    text = (shared_dir / "data/aim/mychron_kart_sskc_2022-06-19.csv").read_text()
    bad.write_text(text[: len(text) // 2] + "\n1.0,oops,,,\n" + text[len(text) // 2 :])
    with pytest.raises(ImportFormatError) as ei:
        import_file(bad, settings)
    assert "line" in str(ei.value)
    store = HotStore(settings)
    assert store.counts() == before
    store.close()
    assert sorted(p.relative_to(settings.lake_dir) for p in settings.lake_dir.rglob("*")) == lake_before


def test_lake_is_readable_by_another_process_while_the_writer_holds_the_db(settings) -> None:
    from shared.simulator import simulate

    res = import_sim(simulate(laps=2, seed=3, rate_hz=10), settings)
    store = HotStore(settings)  # this process holds the hot DB read-write
    try:
        code = textwrap.dedent(
            f"""
            import duckdb, json, sys
            from pathlib import Path
            from shared.store.publisher import lake_reader_views
            con = duckdb.connect()
            lake_reader_views(con, Path({str(settings.lake_dir)!r}))
            n = con.execute("SELECT count(*) FROM laps WHERE session_id = ?", [{res.session_id!r}]).fetchone()[0]
            rows = con.execute("SELECT count(*) FROM telemetry").fetchone()[0]
            try:
                duckdb.connect({str(settings.hot_db_path)!r}, read_only=True)
                locked = False
            except duckdb.IOException:
                locked = True
            print(json.dumps({{"laps": n, "rows": rows, "locked": locked}}))
            """
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
        )
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        assert got["laps"] == len(res.laps) and got["rows"] == res.rows
        assert got["locked"]  # the hot DB file itself is not readable from a second process: hence the lake
        with pytest.raises(StoreLockedError):
            subprocess_lock_probe(settings)
    finally:
        store.close()
    assert not list(settings.lake_dir.rglob("*.tmp"))


def subprocess_lock_probe(settings) -> None:
    code = f"from shared.settings import settings_for; from shared.store.hot import HotStore; HotStore(settings_for({str(settings.data_dir)!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    if "StoreLockedError" in out.stderr:
        raise StoreLockedError(out.stderr.strip().splitlines()[-1])


def test_kill_9_loses_at_most_one_flush_interval(settings) -> None:
    """A writer process is SIGKILLed mid-session; the file reopens and nearly everything is there."""
    code = textwrap.dedent(
        f"""
        import sys, time
        from shared.settings import settings_for
        from shared.store.hot import HotStore
        from shared.store.writer import StoreWriter
        s = settings_for({str(settings.data_dir)!r}, flush_interval_s=0.2)
        store = HotStore(s)
        sid = store.start_live_session({{"driver_id": "d", "car_id": "generic"}})
        w = StoreWriter(store.con, s.flush_interval_s)
        i = 0
        while True:
            w.submit("telemetry", [{{"session_id": sid, "lap": 0, "t_s": i * 0.01, "speed_kmh": 100.0}}])
            i += 1
            if i % 100 == 0:
                sys.stdout.write(f"{{i}}\\n"); sys.stdout.flush()
            time.sleep(0.001)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert p.stdout is not None
    sent = 0
    t0 = time.monotonic()
    while sent < 1500 and time.monotonic() - t0 < 60:
        line = p.stdout.readline()
        if line:
            sent = int(line)
    t_kill = time.monotonic()
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert sent >= 1500
    con = duckdb.connect(str(settings.hot_db_path))  # reopens cleanly after the crash
    (rows,) = con.execute("SELECT count(*) FROM telemetry").fetchone() or (0,)
    (live,) = con.execute("SELECT count(*) FROM sessions WHERE status = 'live'").fetchone() or (0,)
    con.close()
    # the producer submits ~1 row per ms at most; one 0.2 s flush interval (+ slack for the kill) is ~400 rows
    assert rows >= sent - 600, (rows, sent)
    assert live == 1  # a restart sees the session and must close or resume it explicitly
    del t_kill
    store = HotStore(settings)
    try:
        assert store.open_live_sessions()
        store.close_session(store.open_live_sessions()[0], status="aborted")
        assert store.open_live_sessions() == []
    finally:
        store.close()


def test_cli_import_json_in_a_real_process(shared_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PITWALL_DATA_DIR": str(tmp_path / "d")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "shared.cli",
            "import",
            str(shared_dir / "data/vbox/sonoma_vbox0240.csv"),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert set(got) == {
        "session_id",
        "source_format",
        "track",
        "car",
        "laps",
        "best_lap_s",
        "rows",
        "channels",
        "quality",  # the data-quality report
        "track_name",  # names as people read them (the file's, or the profile's)
        "driver_name",
        "car_name",
        "remapped",  # imported again into the same session because the channel mapping changed
    }
    assert got["remapped"] is False
    assert got["track"] == "sonoma" and got["rows"] == 11_539
    assert got["track_name"] == "Sonoma Raceway" and got["car_name"] == "Generic car (AiM or VBOX logger)"
    assert [lp["kind"] for lp in got["laps"]].count("full") == 8  # the out lap is not a flying lap
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x00\x01garbage")
    out = subprocess.run(
        [sys.executable, "-m", "shared.cli", "import", str(bad)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert out.returncode == 1 and "bad.bin" in out.stderr and "expected" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "shared.cli", "laps", got["session_id"], "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert out.returncode == 0 and len(json.loads(out.stdout)) == len(got["laps"])


def test_gold_lap_save_and_load(settings) -> None:
    from shared.simulator import simulate
    from shared.store.gold import load_gold_lap, save_gold_lap

    res = import_sim(simulate(laps=2, seed=4, rate_hz=10), settings)
    save_gold_lap(settings, "sonoma", "driver", res.session_id, 1)
    got = load_gold_lap(settings, "sonoma", "driver")
    assert got is not None
    trace, meta = got
    assert meta["lap"] == 1 and len(trace["dist_m"]) > 500
    with pytest.raises(ValueError):
        save_gold_lap(settings, "../etc", "driver", res.session_id, 1)


def test_a_hot_file_from_an_older_version_gains_the_columns_added_since(settings) -> None:
    """A coaching_notes table made before ``superseded_by`` existed is migrated when the store opens it,
    and keeps its rows; opening it again changes nothing."""
    from shared.store.hot import open_hot_db
    from shared.store.schema import ADDED_COLUMNS, NOTES_DDL

    settings.ensure_dirs()
    old_ddl = "\n".join(line.split("--")[0] for line in NOTES_DDL.splitlines() if "superseded_by" not in line)
    old_ddl = old_ddl.replace("source_lap INTEGER,", "source_lap INTEGER")
    con = duckdb.connect(str(settings.hot_db_path))
    con.execute(old_ddl)
    con.execute(
        "INSERT INTO coaching_notes VALUES ('s', now(), 1.0, 1, 2.0, 't1', 'r', 'p', 'x', 1, 'spoken', NULL, 1.0, 1)"
    )
    assert "superseded_by" not in [r[0] for r in con.execute("DESCRIBE coaching_notes").fetchall()]
    con.close()
    for _ in range(2):
        con = open_hot_db(settings)
        cols = [r[0] for r in con.execute("DESCRIBE coaching_notes").fetchall()]
        assert cols.count("superseded_by") == 1
        assert con.execute("SELECT rule, superseded_by FROM coaching_notes").fetchall() == [("r", None)]
        con.close()
    assert ("coaching_notes", "superseded_by", "VARCHAR") in ADDED_COLUMNS


def test_a_hot_telemetry_table_from_before_the_throttle_body_gains_it_last(settings) -> None:
    """A telemetry table made before ``throttle_body_pct`` existed gains it when the store opens it, at the
    end, so its column order is the storage order of shared.signals (what the lake files are written in)."""
    from shared.signals import WIDE_COLUMNS
    from shared.store.hot import open_hot_db

    settings.ensure_dirs()
    old = [c for c in WIDE_COLUMNS if c != "throttle_body_pct"]
    assert len(old) == len(WIDE_COLUMNS) - 1
    con = duckdb.connect(str(settings.hot_db_path))
    con.execute(
        "CREATE TABLE telemetry (session_id VARCHAR, lap INTEGER, "
        + ", ".join(f"{c} DOUBLE" for c in old)
        + ")"
    )
    con.execute("INSERT INTO telemetry (session_id, lap, rpm) VALUES ('s', 1, 6800)")
    con.close()
    con = open_hot_db(settings)
    try:
        cols = [r[0] for r in con.execute("DESCRIBE telemetry").fetchall()]
        assert cols == ["session_id", "lap", *WIDE_COLUMNS] and cols[-1] == "throttle_body_pct"
        assert con.execute("SELECT rpm, throttle_body_pct FROM telemetry").fetchall() == [(6800.0, None)]
    finally:
        con.close()

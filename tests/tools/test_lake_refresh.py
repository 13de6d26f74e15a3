"""The paddock's lake view (services/paddock/lake.py) follows the lake: a session published after the
paddock started appears, a lap file added or rewritten is noticed, and nothing is re-read while the lake
is unchanged or while the refresh TTL has not passed. A real lake written by ``import_sim``."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from services.paddock import lake as lake_mod
from services.paddock.lake import Lake, configure_lake, get_lake
from shared.ingest import import_sim
from shared.settings import Settings, settings_for
from shared.simulator.fixtures import cached_sim

HOUR = 3600.0  # a TTL no test run comes near: "not yet expired" without measuring time


def _settings(tmp_path: Path) -> Settings:
    return settings_for(tmp_path / "data", duckdb_memory_limit_mb=256)


def _import(settings: Settings, seed: int = 7) -> str:
    return import_sim(cached_sim(laps=2, seed=seed, rate_hz=10), settings, driver_id="ana").session_id


def _sessions(lake: Lake) -> set[str]:
    return {r[0] for r in lake.cursor().execute("SELECT session_id FROM sessions").fetchall()}


def _lake_files(lake: Lake) -> list[Path]:
    d = lake.lake_dir
    return list(d.glob("sessions/*/*.parquet")) + list(d.glob("sessions/*/telemetry/*.parquet"))


@pytest.fixture()
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every (re)creation of the views, recorded; the real function still runs."""
    calls: list[Path] = []
    real = lake_mod.lake_reader_views

    def counting(con, lake_dir, *rest):  # type: ignore[no-untyped-def]
        calls.append(lake_dir)
        return real(con, lake_dir, *rest)

    monkeypatch.setattr(lake_mod, "lake_reader_views", counting)
    return calls


def test_a_session_published_after_start_appears(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    lake = Lake(settings, refresh_ttl_s=0.0)
    assert _sessions(lake) == set()
    assert lake.signature == (0, 0.0) and lake.newest_file_mtime == 0.0
    first = _import(settings)
    assert _sessions(lake) == {first}
    files = _lake_files(lake)
    newest = max(f.stat().st_mtime for f in files)
    assert lake.signature == (len(files), newest) and newest > 0.0
    assert lake.newest_file_mtime == newest
    second = _import(settings, seed=11)
    assert _sessions(lake) == {first, second}
    assert lake.signature[0] == len(_lake_files(lake)) > len(files)
    laps = lake.cursor().execute("SELECT count(DISTINCT session_id) FROM laps").fetchone()
    assert laps == (2,)


def test_within_the_ttl_the_lake_is_not_reread(tmp_path: Path, reads: list[Path]) -> None:
    settings = _settings(tmp_path)
    lake = Lake(settings, refresh_ttl_s=HOUR)
    assert len(reads) == 1  # the start-up read
    sid = _import(settings)
    assert _sessions(lake) == set()  # the TTL has not passed: the old views stand
    lake.refresh()
    assert len(reads) == 1 and lake.signature == (0, 0.0)
    lake.refresh(force=True)
    assert len(reads) == 2 and _sessions(lake) == {sid}


def test_a_query_naming_a_session_published_within_the_ttl_sees_it(tmp_path: Path, reads: list[Path]) -> None:
    """The cause of the flaky overlapping-debriefs test: a session imported less than the TTL after the
    last look was invisible to a query naming it. A query naming it now looks at once; one that names no
    new session (or a session that does not exist, or a path) keeps the old views and re-reads nothing."""
    settings = _settings(tmp_path)
    first = _import(settings)
    lake = Lake(settings, refresh_ttl_s=HOUR)
    second = _import(settings, seed=11)
    assert _sessions(lake) == {first}  # named nowhere: the TTL stands
    for params in (["ana"], [first], ["no-such-session"], ["../sessions"], [".."], [2]):
        got = lake.cursor(params).execute("SELECT count(*) FROM sessions WHERE session_id = ?", [second])
        assert got.fetchone() == (0,) and len(reads) == 1, params
    q = "SELECT session_id, driver_id FROM sessions WHERE session_id = ?"
    assert lake.cursor([second], q).execute(q, [second]).fetchall() == [(second, "ana")]
    assert len(reads) == 2 and _sessions(lake) == {first, second}
    lake.cursor([second]).close()  # known now: no second read
    assert len(reads) == 2


def test_an_unchanged_lake_is_not_reread(tmp_path: Path, reads: list[Path]) -> None:
    settings = _settings(tmp_path)
    sid = _import(settings)
    lake = Lake(settings, refresh_ttl_s=0.0)
    assert reads == [lake.lake_dir]
    sig = lake.signature
    for _ in range(3):
        assert _sessions(lake) == {sid}
        lake.refresh()
    assert len(reads) == 1 and lake.signature == sig
    lake.refresh(force=True)  # force re-reads even when nothing changed
    assert len(reads) == 2


def test_a_new_lap_file_or_a_rewritten_file_is_noticed(tmp_path: Path, reads: list[Path]) -> None:
    settings = _settings(tmp_path)
    _import(settings)
    lake = Lake(settings, refresh_ttl_s=0.0)
    n0, m0 = lake.signature
    before = lake.cursor().execute("SELECT count(*) FROM telemetry").fetchone()[0]
    lap_files = sorted(lake.lake_dir.glob("sessions/*/telemetry/lap_*.parquet"))
    assert lap_files
    # a lap file with the same mtime as one already there: only the file count changes
    shutil.copy2(lap_files[0], lap_files[0].with_name("lap_0999.parquet"))
    after = lake.cursor().execute("SELECT count(*) FROM telemetry").fetchone()[0]
    assert len(reads) == 2 and lake.signature == (n0 + 1, m0)
    assert after > before
    # a file rewritten in place (same count, newer mtime) is noticed too
    target = sorted(lake.lake_dir.glob("sessions/*/laps.parquet"))[0]
    os.utime(target, (m0 + 10.0, m0 + 10.0))
    lake.refresh()
    assert len(reads) == 3 and lake.signature == (n0 + 1, m0 + 10.0)
    assert lake.newest_file_mtime == m0 + 10.0


def test_a_lake_path_with_a_quote_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="quote"):
        Lake(settings_for(tmp_path / "it's"))


def test_a_sibling_directory_sharing_the_lake_prefix_is_outside(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    lake = Lake(settings)
    sibling = Path(str(lake.lake_dir.resolve()) + "_beside")
    sibling.mkdir()
    (sibling / "secret.csv").write_text("secret\nhunter2\n")
    with pytest.raises(Exception, match="(?i)permission|not allowed|disabled"):
        lake.cursor().execute(f"SELECT * FROM read_csv('{sibling / 'secret.csv'}')").fetchall()


def test_the_connection_uses_two_threads_and_locks_its_settings(tmp_path: Path) -> None:
    lake = Lake(_settings(tmp_path))
    cur = lake.cursor()
    assert cur.execute("SELECT current_setting('threads')").fetchone() == (2,)
    with pytest.raises(Exception, match="(?i)lock"):
        cur.execute("SET enable_external_access=true")


class _Clock:
    """A hand-moved monotonic clock: the TTL is checked without measuring time."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:  # the wall clock of the lake's status (when it was last read)
        return 1_000_000.0 + self.now


def test_the_default_ttl_is_one_second_and_ends_exactly_there(
    tmp_path: Path, reads: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = _Clock()
    monkeypatch.setattr(lake_mod, "time", clock)
    settings = _settings(tmp_path)
    lake = Lake(settings)  # the start-up read happens at clock 0, whatever the TTL
    assert lake.settings is settings and len(reads) == 1
    sid = _import(settings)
    clock.now = 0.999
    assert _sessions(lake) == set() and len(reads) == 1
    clock.now = 1.0  # one second after the last check: the lake is looked at again
    assert _sessions(lake) == {sid} and len(reads) == 2
    clock.now = 1.5  # checked at 1.0: not again before 2.0, even though nothing would change
    lake.refresh()
    clock.now = 2.0
    lake.refresh()
    assert len(reads) == 2


def test_get_lake_configures_once_from_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lake_mod, "_LAKE", None)
    made = configure_lake(_settings(tmp_path))
    assert get_lake() is made and get_lake() is made
    assert made.lake_dir == _settings(tmp_path).lake_dir


def test_get_lake_without_configuration_reads_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shared.settings import get_settings

    monkeypatch.setattr(lake_mod, "_LAKE", None)
    monkeypatch.setenv("PITWALL_DATA_DIR", str(tmp_path / "env-data"))
    get_settings.cache_clear()
    try:
        lake = get_lake()
        assert lake.lake_dir == settings_for(tmp_path / "env-data").lake_dir
        assert lake.lake_dir.is_dir()
    finally:
        get_settings.cache_clear()


def _as_json(v: object) -> object:
    return v.isoformat() if isinstance(v, datetime) else v


def test_sessions_lists_each_stored_row_newest_first_without_its_meta(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    ids = [_import(settings, seed) for seed in (7, 8, 9)]
    stored = {
        sid: pq.read_table(settings.lake_dir / "sessions" / sid / "session.parquet").to_pylist()[0]
        for sid in ids
    }
    newest_first = sorted(
        ids, key=lambda s: (stored[s]["started_at"] is not None, stored[s]["started_at"] or 0, s)
    )
    newest_first.reverse()
    lake = Lake(settings, refresh_ttl_s=HOUR)
    page = json.loads(lake.sessions_page(100))
    assert [r["session_id"] for r in page] == newest_first
    for got in page:
        row = stored[got["session_id"]]
        assert "meta_json" not in got
        assert {k: got[k] for k in row if k != "meta_json"} == {
            k: _as_json(v) for k, v in row.items() if k != "meta_json"
        }
    assert json.loads(lake.sessions_page(2)) == page[:2]
    _import(settings, 10)  # published after: listed once the lake is looked at again
    lake.refresh(force=True)
    assert len(json.loads(lake.sessions_page(100))) == 4

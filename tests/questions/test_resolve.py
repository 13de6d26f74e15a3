"""``resolve`` on a real lake: the real VBOX at Sonoma imported with the CLI, two more sessions of the same
driver there (a simulated log dated in January and in November) and a friend's session under the same
driver name, shared as a bundle and dated newest of all. The truth is read from the lake's own Parquet
files with DuckDB (laps and session start), never through ``resolve``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from services.paddock.lake import configure_lake
from services.paddock.questions.model import LapRef, Question
from services.paddock.questions.parse import parse
from services.paddock.questions.resolve import corner_names, lap_numbers, other_session
from shared.bundle import export_bundle, import_bundle
from shared.ingest import import_file
from shared.settings import settings_for
from shared.simulator import simulate
from shared.simulator.writers import write_aim_csv
from shared.store.lake_layout import table_path
from tests.support.cli import pitwall

PICKS = ("fastest", "slowest", "first", "last")


def _dated(csv: Path, day: str, out: Path) -> Path:
    out.write_text(csv.read_text().replace("Saturday, November 21, 2026", day, 1))
    return out


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("resolve")
    mine = tmp / "mine"
    got = pitwall(
        "import",
        str(shared_dir / "data/vbox/sonoma_vbox0240.csv"),
        "--data-dir",
        str(mine),
        "--driver",
        "ana",
        "--json",
    )
    assert got.returncode == 0, got.stderr
    vbox = json.loads(got.stdout)["session_id"]
    csv = write_aim_csv(simulate(laps=4, seed=4, rate_hz=20), tmp / "sim.csv")
    settings = settings_for(mine)
    new = import_file(csv, settings, driver_id="ana", track_id="sonoma").session_id
    old_csv = _dated(csv, "Saturday, January 10, 2026", tmp / "old.csv")
    old = import_file(old_csv, settings, driver_id="ana", track_id="sonoma").session_id
    theirs = settings_for(tmp / "bo")
    bo_csv = _dated(csv, "Tuesday, December 1, 2026", tmp / "bo.csv")
    friend = import_file(bo_csv, theirs, driver_id="ana", track_id="sonoma").session_id
    export_bundle(theirs, friend, tmp / "bo.pitwall")
    assert import_bundle(tmp / "bo.pitwall", settings).session_id == friend
    configure_lake(settings)
    return {"settings": settings, "vbox": vbox, "new": new, "old": old, "friend": friend}


def _laps(lake: dict[str, Any], sid: str) -> list[dict[str, Any]]:
    path = table_path(lake["settings"].lake_dir, sid, "laps")
    got = _read(f"SELECT lap, kind, valid, time_s FROM read_parquet('{path}') ORDER BY lap")
    return [dict(zip(("lap", "kind", "valid", "time_s"), r, strict=True)) for r in got]


def _started(lake: dict[str, Any], sid: str) -> Any:
    path = table_path(lake["settings"].lake_dir, sid, "session")
    return _read(f"SELECT started_at FROM read_parquet('{path}')")[0][0]


def _read(sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect()
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _truth(lake: dict[str, Any], sid: str) -> dict[str, int]:
    laps = _laps(lake, sid)
    full = [x for x in laps if x["kind"] == "full"]
    timed = [x for x in full if x["valid"] and x["time_s"] is not None]
    return {
        "fastest": int(min(timed, key=lambda x: x["time_s"])["lap"]),
        "slowest": int(max(timed, key=lambda x: x["time_s"])["lap"]),
        "first": int(full[0]["lap"]),
        "last": int(full[-1]["lap"]),
    }


def test_picks_are_the_sessions_own_laps(lake: dict[str, Any]) -> None:
    truths = {sid: _truth(lake, sid) for sid in (lake["vbox"], lake["new"])}
    # every two picks differ in one of the sessions, so any swapped pick shows
    assert all(any(t[a] != t[b] for t in truths.values()) for a in PICKS for b in PICKS if a != b)
    for sid, t in truths.items():
        for pick, lap in t.items():
            q = Question("", "lap_time", (LapRef(pick=pick),))  # type: ignore[arg-type]
            assert lap_numbers(q, sid) == [lap], (sid, pick)


def test_parsed_question_resolves_in_order(lake: dict[str, Any]) -> None:
    t = _truth(lake, lake["vbox"])
    q = parse("how much faster was my best lap than lap 3 and my slowest", corner_names(lake["vbox"]))
    assert lap_numbers(q, lake["vbox"]) == [t["fastest"], 3, t["slowest"]]
    q = parse("lap 42 vs my last lap")  # a lap the session lacks keeps its number: the family says so
    assert lap_numbers(q, lake["vbox"]) == [42, t["last"]]


def test_other_session_is_the_newest_own_one(lake: dict[str, Any]) -> None:
    own = [lake["vbox"], lake["new"], lake["old"]]
    dated = [_started(lake, s) for s in own if _started(lake, s) is not None]
    assert len(dated) >= 2 and _started(lake, lake["friend"]) > max(dated)  # the friend's is the newest

    def newest(s: str) -> tuple[bool, Any]:  # a session without a start date counts as the oldest
        return _started(lake, s) is not None, _started(lake, s) or 0

    for sid in own:
        want = max((s for s in own if s != sid), key=newest)
        assert other_session(sid) == want, sid
    assert other_session(lake["friend"]) is None  # a friend's session is compared only with itself
    assert other_session("no-such-session") is None


def test_other_sessions_lap(lake: dict[str, Any]) -> None:
    other = other_session(lake["vbox"])
    assert other is not None
    t = _truth(lake, other)
    q = parse("compare my best lap with my best lap in my other session")
    assert q.laps == (LapRef(pick="fastest"), LapRef(pick="fastest", session="other"))
    assert lap_numbers(q, lake["vbox"]) == [_truth(lake, lake["vbox"])["fastest"], t["fastest"]]
    by_id = Question("", "compare", (LapRef(pick="slowest", session=lake["old"]),))
    assert lap_numbers(by_id, lake["vbox"]) == [_truth(lake, lake["old"])["slowest"]]
    unknown = Question("", "compare", (LapRef(pick="fastest", session="20000101-000000-abcdef"), LapRef(2)))
    assert lap_numbers(unknown, lake["vbox"]) == [2]


def test_corner_names_come_from_the_track(lake: dict[str, Any]) -> None:
    names = corner_names(lake["vbox"])
    assert "hairpin" in names["t7"] and "carousel" in names["t6"]
    assert parse("min speed at the hairpin on lap 4", names).corner == "t7"
    assert parse("and the carousel?", names).corner == "t6"
    assert corner_names("no-such-session") == {}

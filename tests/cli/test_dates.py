"""A file that carries no date (the real VBOX CSV) has its date said as guessed wherever a date is shown:
``pitwall sessions``, the tablet's session rows, ``report.html`` in the exported bundle and the threads,
which then follow import order and say so. The file's modification time is set by the test, so the
guessed date is known independently of the code."""

from __future__ import annotations

import os
import shutil
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from services.paddock.agents.coaching_lines import IMPORT_ORDER, thread_lines
from services.paddock.lake import configure_lake
from services.paddock.tools.registry import run_tool
from shared.ingest import import_file
from shared.session_date import dated
from shared.settings import settings_for
from shared.store.lake_read import open_session
from tests.support.cli import pitwall

VBOX = Path(__file__).resolve().parents[3] / "shared" / "data" / "vbox" / "sonoma_vbox0240.csv"
KART = Path(__file__).resolve().parents[3] / "shared" / "data" / "aim" / "mychron_kart_sskc_2022-06-19.csv"
WHEN = datetime(2025, 6, 14, 9, 30)  # local time, as a logger keeps it


def _copy(src: Path, dst: Path, drop_last: int = 0) -> Path:
    lines = src.read_bytes().splitlines(keepends=True)
    dst.write_bytes(b"".join(lines[: len(lines) - drop_last]))
    os.utime(dst, (WHEN.timestamp(), WHEN.timestamp()))
    return dst


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    for f in (VBOX, KART):
        if not f.is_file():
            pytest.fail(f"{f} is missing: the real logger files are part of the test data")
    d = tmp_path_factory.mktemp("dates")
    settings = settings_for(d / "data")
    a = import_file(_copy(VBOX, d / "morning.csv"), settings, driver_id="ana", track_id="sonoma")
    b = import_file(_copy(VBOX, d / "afternoon.csv", 400), settings, driver_id="ana", track_id="sonoma")
    kart = import_file(shutil.copy(KART, d / "kart.csv"), settings, driver_id="ana")
    return {"d": d, "settings": settings, "a": a.session_id, "b": b.session_id, "kart": kart.session_id}


def test_sessions_says_the_date_was_guessed_and_from_what(lake: dict[str, object]) -> None:
    r = pitwall("sessions", "--data-dir", str(lake["settings"].data_dir))  # type: ignore[attr-defined]
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line for line in r.stdout.splitlines() if line[:8].isdigit()}
    assert "14 Jun 2025 09:30 (guess: file time)" in rows[str(lake["a"])]
    assert "14 Jun 2025 09:30 (guess: file time)" in rows[str(lake["b"])]
    kart = rows[str(lake["kart"])]  # the AiM CSV carries its date: said as it is, no guess
    assert "19 Jun 2022" in kart and "guess" not in kart
    assert "guess: the file carries no date; file time is when the file was last changed" in r.stdout


def test_the_tablet_rows_and_the_report_say_the_date_was_guessed(lake: dict[str, object]) -> None:
    settings = lake["settings"]
    files = open_session(settings, str(lake["a"]))  # type: ignore[arg-type]
    assert files is not None
    row = files.row()
    assert row["started_at"] is None  # the file has no date: none is stored as if it had
    assert dated(row) == {"date_at": "2025-06-14T09:30", "date_guessed": "from the file's modification time"}
    out = Path(str(lake["d"])) / "coach.pitwall"
    r = pitwall("export", str(lake["a"]), "-o", str(out), "--data-dir", str(settings.data_dir))  # type: ignore[attr-defined]
    assert r.returncode == 0, r.stderr
    page = zipfile.ZipFile(out).read("report.html").decode()
    assert "14 Jun 2025 09:30 (no date in the file: guessed from the file&#x27;s modification time)" in page
    assert "car not named in the file" in page and "generic" not in page.lower()  # a VBOX CSV names no car


def test_threads_follow_import_order_when_a_file_has_no_date_and_say_so(lake: dict[str, object]) -> None:
    configure_lake(lake["settings"])  # type: ignore[arg-type]
    got = run_tool("get_threads", {"session_id": str(lake["b"])})
    assert got["previous_session_id"] == lake["a"]  # imported before it: both files carry no date
    assert got["order"].startswith("import order (this session's file carries no date)")
    assert (
        "14 Jun 2025 09:30 (no date in the file: guessed from the file's modification time)" in got["order"]
    )
    first = run_tool("get_threads", {"session_id": str(lake["a"])})
    assert first["threads"] == [] and "no earlier session" in first["reason"]


def test_the_debrief_says_last_session_means_the_one_imported_before() -> None:
    thread = {
        "corner": "T6",
        "corner_id": "t6",
        "status": "new",
        "now": {"time_to_find_s": 0.3, "laps_lost": 2, "valid_laps": 9},
    }
    undated = {"order": "import order (this session's file carries no date): ...", "threads": [thread]}
    assert thread_lines(undated) == [IMPORT_ORDER, "New this session at T6: 0.3 s a lap on 2 of 9 laps."]
    dated_ = {"order": "by date: the previous session was driven ...", "threads": [thread]}
    assert thread_lines(dated_) == ["New this session at T6: 0.3 s a lap on 2 of 9 laps."]
    assert thread_lines({**undated, "threads": []}) == []  # nothing to follow: nothing to explain

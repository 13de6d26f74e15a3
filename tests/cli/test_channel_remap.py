"""Channel mapping a driver can do: `pitwall channels --signals` (the option the mapping error points to)
lists the signals with their units, and importing a file again after its mapping changed applies the new
mapping to the same session (same id, one session stored), while an unchanged mapping is "already
imported". The real kart file; the mapping written here is the expected outcome."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import pitwall

KART = "data/aim/mychron_kart_sskc_2022-06-19.csv"


def test_signals_lists_what_a_channel_can_feed_and_the_error_points_there(tmp_path: Path) -> None:
    r = pitwall("channels", "--signals", "--json")
    assert r.returncode == 0, r.stderr
    rows = {s["signal"]: s["unit"] for s in json.loads(r.stdout)}
    assert rows["brake_bar"] == "bar" and rows["speed_kmh"] == "km/h" and rows["throttle_pct"] == "%"
    assert "t_s" not in rows and "dist_m" not in rows  # computed by Pitwall, never mapped from a file
    bad = tmp_path / "map.yaml"
    bad.write_text("channels:\n  RPM: engine_speed\n", encoding="utf-8")
    r = pitwall("channels", str(tmp_path / "nofile.csv"), "--map", str(bad))
    assert r.returncode == 1 and "see `pitwall channels --signals`" in r.stderr.replace("\n", "")
    assert "Traceback" not in r.stderr
    r = pitwall("channels")
    assert r.returncode == 2 and "--signals" in r.stderr and "Traceback" not in r.stderr


def _rpm(res: dict) -> str | None:
    return next(c["canonical"] for c in res["quality"]["channels"] if c["name"] == "RPM")


def test_reimport_after_a_mapping_change_applies_it_to_the_same_session(
    shared_dir: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    first = pitwall("import", str(shared_dir / KART), "--json", "--data-dir", str(data))
    assert first.returncode == 0, first.stderr
    sid = json.loads(first.stdout)["session_id"]
    assert _rpm(json.loads(first.stdout)) == "rpm"
    data.joinpath("channels.yaml").write_text("channels:\n  rpm: ignore\n", encoding="utf-8")  # any case
    r = pitwall("import", str(shared_dir / KART), "--data-dir", str(data))
    assert r.returncode == 0, r.stderr
    assert f"-> {sid} (imported again into the same session: the channel mapping changed)" in r.stderr
    again = pitwall("import", str(shared_dir / KART), "--json", "--data-dir", str(data))
    res = json.loads(again.stdout)
    assert res["session_id"] == sid and _rpm(res) is None and res["remapped"] is False
    assert f"already imported as {sid}" in again.stderr
    listed = json.loads(pitwall("sessions", "--json", "--data-dir", str(data)).stdout)
    assert [s["session_id"] for s in listed] == [sid]
    laps = json.loads(pitwall("laps", sid, "--json", "--data-dir", str(data)).stdout)
    assert len(laps) == 16  # the file's 16 segments, as before: the session is whole again

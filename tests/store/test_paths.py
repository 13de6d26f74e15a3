"""The one id pattern and the one resolved-path check: what they refuse, and that delete, repair and gold
never follow a session folder that links out of the data directory (real CLI, real files)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from shared.ids import BadIdError, check_id, is_id
from shared.paths import PathEscapeError, inside
from shared.settings import settings_for
from shared.store.gold import gold_path
from tests.support.cli import pitwall


@pytest.mark.parametrize(
    "bad",
    [
        "",
        ".",
        "..",
        "../..",
        "/etc",
        "a/b",
        "a\\b",
        "a\x00b",
        "a" * 81,
        "abc\n",
        ".hidden",
        "é",
        " a",
        7,
        None,
    ],
)
def test_what_is_not_an_id(bad: object) -> None:
    assert not is_id(bad)
    with pytest.raises(BadIdError, match="session id .* is not an id"):
        check_id(bad, "session id")


@pytest.mark.parametrize(
    "good", ["20261127-064455-abcdef", "auto-1a2b", "a..b", "-x", "_", "a" * 80, "sonoma"]
)
def test_what_is_an_id(good: str) -> None:
    assert check_id(good) == good


def test_inside_refuses_every_way_out(tmp_path: Path) -> None:
    root, out = tmp_path / "data", tmp_path / "out"
    (root / "lake").mkdir(parents=True)
    out.mkdir()
    (root / "lake" / "link").symlink_to(out, target_is_directory=True)
    assert inside(root, "lake", "sessions", "x") == root / "lake" / "sessions" / "x"
    for parts in [
        ("..",),
        ("lake", "..", ".."),
        (str(out),),
        ("lake", "link", "x"),
        ("lake", "a\x00"),
        ("",),
    ]:
        with pytest.raises(PathEscapeError):
            inside(root, *parts)
    with pytest.raises(PathEscapeError):  # the root itself is not inside it
        inside(root, "lake", "..")


def test_gold_paths_stay_in_the_gold_folder(tmp_path: Path) -> None:
    s = settings_for(tmp_path / "d")
    assert gold_path(s, "sonoma", "Zoë/../x") == s.gold_dir / "sonoma" / "Zo%C3%AB%2F%2E%2E%2Fx.parquet"
    for track in ("../..", "/tmp", "a/b"):
        with pytest.raises(BadIdError):
            gold_path(s, track, "me")


def _hash(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
    }


def test_delete_and_repair_never_follow_a_session_folder_linking_out(tmp_path: Path) -> None:
    sentinel = tmp_path / "sentinel"
    (sentinel / "inner").mkdir(parents=True)
    (sentinel / "inner" / "session.parquet").write_bytes(b"not yours")
    data = tmp_path / "data"
    (data / "lake" / "sessions").mkdir(parents=True)
    (data / "lake" / "sessions" / "evil").symlink_to(sentinel, target_is_directory=True)
    (data / "lake" / "deleted").mkdir()
    (data / "lake" / "deleted" / "evil.json").write_text("{}")  # an interrupted deletion of it
    want = _hash(sentinel)
    r = pitwall("delete", "evil", "--yes", "--data-dir", str(data))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "'evil'" in lines[0], lines[0]  # the CLI finds no stored session of that name first
    # the deletion itself, asked for the linked folder, refuses it before anything moves
    from shared.settings import settings_for
    from shared.store.deletion import delete_session
    from shared.store.hot import HotStore

    store = HotStore(settings_for(data))
    try:
        with pytest.raises(PathEscapeError, match="evil would leave"):
            delete_session(store, data / "lake", "evil")
    finally:
        store.close()
    r = pitwall("repair", "--data-dir", str(data), "--json")
    assert "Traceback" not in r.stderr, r.stderr
    assert _hash(sentinel) == want and (data / "lake" / "sessions" / "evil").is_symlink()


def test_a_tool_argument_naming_a_session_is_an_id() -> None:
    from services.paddock.tools.registry import ToolArgError, validate_args

    assert validate_args("get_goal_targets", {"session_id": "20261127-064455-abcdef"})["session_id"]
    for bad in ("../..", "/etc/passwd", "a\x00b"):
        with pytest.raises(ToolArgError, match="session_id: session id .* is not an id"):
            validate_args("get_goal_targets", {"session_id": bad})


def test_repair_never_publishes_a_stored_session_whose_id_is_a_path(tmp_path: Path) -> None:
    """A hot store holding a session id that is a path (an import of before ids were checked): repair
    says so and writes nothing outside the lake."""
    from shared.store.hot import HotStore

    data = tmp_path / "data"
    store = HotStore(settings_for(data))
    try:
        store.con.execute(
            "INSERT INTO sessions (session_id, driver_id, car_id, source_format, status) "
            "VALUES ('../../../escaped', 'me', 'car', 'aim_csv', 'closed')"
        )
    finally:
        store.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    r = pitwall("repair", "--data-dir", str(data), "--json")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert json.loads(r.stdout) == {"repaired": [], "still_damaged": {}}
    assert "'../../../escaped' has an id that is not one" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before and not (data / "lake" / "sessions").exists()

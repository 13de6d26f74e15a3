"""Voices are kept per track: building one track's voices never removes another's (espeak-ng, for real)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from services.hotpath.voices import build, load_manifest, phrases_for, voices_dir
from shared.profiles.track import load_track, save_track
from tests.support import require
from tests.support.require import missing


@pytest.fixture(autouse=True)
def _needs_espeak() -> None:
    """Skip, or fail when PITWALL_REQUIRE_VOICE=1 (scripts/check installs espeak-ng as root)."""
    if not shutil.which("espeak-ng"):
        missing(require.VOICE, "espeak-ng is not installed")


def _second_track(data_dir: Path) -> str:
    """A detected track stored in the data dir, with corner names Sonoma does not have."""
    son = load_track("sonoma")
    corners = [
        c.model_copy(update={"name": f"Kart {i + 1}", "landmark": None})
        for i, c in enumerate(son.corners[:3])
    ]
    tr = son.model_copy(update={"id": "auto-0badf00d", "name": "Test Kart", "corners": corners})
    save_track(data_dir, tr)
    return tr.id


def _texts(track_id: str) -> set[str]:
    return {p.text for p in phrases_for(load_track(track_id))}


def _served(data_dir: Path, track_id: str) -> set[str]:
    m = load_manifest(data_dir)
    assert m is not None
    out = voices_dir(data_dir)
    return {
        t
        for t, e in m["entries"].items()
        if (out / e["file"]).is_file() and any(str(p).startswith(f"{track_id}:") for p in e["phrase_ids"])
    }


def test_a_second_track_keeps_the_first_tracks_voices(data_dir: Path) -> None:
    kart = _second_track(data_dir)
    build(data_dir, ["sonoma"])
    sonoma = _texts("sonoma")
    assert _served(data_dir, "sonoma") == sonoma

    m = build(data_dir, [kart])
    assert m["tracks"] == sorted(["sonoma", kart])
    assert _served(data_dir, "sonoma") == sonoma  # still there, files and all
    assert _served(data_dir, kart) == _texts(kart)
    assert set(m["entries"]) == sonoma | _texts(kart)

    # a new speaking rate renders every track built so far again, never a mix of rates
    m = build(data_dir, ["sonoma"], wpm=360)
    assert m["wpm"] == 360 and m["tracks"] == sorted(["sonoma", kart])
    assert _served(data_dir, kart) == _texts(kart) and _served(data_dir, "sonoma") == sonoma
    files = {p.name for p in voices_dir(data_dir).glob("*.wav")}
    assert files == {e["file"] for e in m["entries"].values()}  # the 300 wpm files are gone


def test_rebuilding_a_track_drops_only_its_own_stale_phrases(data_dir: Path) -> None:
    kart = _second_track(data_dir)
    build(data_dir, ["sonoma", kart])
    before = load_manifest(data_dir)
    assert before is not None
    m = build(data_dir, [kart])
    assert set(m["entries"]) == set(before["entries"])
    # a phrase shared by both tracks names both
    shared_text = next(iter(_texts("sonoma") & _texts(kart)))
    ids = m["entries"][shared_text]["phrase_ids"]
    assert {str(i).split(":")[0] for i in ids} == {"sonoma", kart}

"""Pre-rendered cue audio: every phrase x corner of the phrase library, spoken by a local engine.

``pitwall voices build`` renders each distinct cue text once with Debian's ``espeak-ng`` into a small
mono WAV (silence trimmed, so sound starts with the first sample) under ``<data>/voices/``, with a
``manifest.json`` that maps the exact cue text to its file. The hot path serves both; the drive screen
caches them and plays the file whose text equals the cue's ``text`` (so a changed phrase can never play
stale audio), else falls back to the browser's ``speechSynthesis``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from services.hotpath.phrases import TEMPLATES, WHEEL_WORDS, Phrase, render
from shared.profiles.track import TrackProfile, list_tracks, load_track

ENGINE = "espeak-ng"
DEFAULT_WPM = 300  # the arbiter budgets 150 ms a word; espeak's default 175 wpm is ~340 ms a word
DEFAULT_VOICE = "en-us"
MANIFEST = "manifest.json"
TARGET_RATE_HZ = 11025
_SILENCE = 0.02  # of full scale: quieter than this at either end is trimmed


class VoiceEngineMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class VoiceLine:
    text: str
    phrase_ids: tuple[str, ...]


def voices_dir(data_dir: Path) -> Path:
    return data_dir / "voices"


def file_name(text: str, wpm: int = DEFAULT_WPM, voice: str = DEFAULT_VOICE) -> str:
    """Named by what it says and how: a served file never changes (cached as immutable)."""
    return hashlib.sha1(f"{voice}|{wpm}|{text}".encode()).hexdigest()[:16] + ".wav"


def phrases_for(track: TrackProfile) -> Iterator[Phrase]:
    """Every phrase the rules can produce on ``track``: each template for each corner and wheel."""
    wheels: list[str | None] = [None, *WHEEL_WORDS]
    for tid, tpl in TEMPLATES.items():
        corners = track.corners if ("{corner}" in tpl or "{marker}" in tpl) else [None]
        for corner in corners:
            for wheel in wheels if "{wheel}" in tpl else [None]:
                yield render(tid, corner, wheel)


def library(tracks: list[str] | None = None) -> list[VoiceLine]:
    """The distinct cue texts over the given tracks (all bundled tracks by default), in a stable order."""
    by_text: dict[str, list[str]] = {}
    for tid in tracks or list_tracks():
        for p in phrases_for(load_track(tid)):
            ids = by_text.setdefault(p.text, [])
            pid = f"{tid}:{p.id}"
            if pid not in ids:
                ids.append(pid)
    return [VoiceLine(t, tuple(ids)) for t, ids in by_text.items()]


def engine_path() -> str:
    exe = shutil.which(ENGINE)
    if exe is None:
        raise VoiceEngineMissing(
            f"{ENGINE} is not installed (Debian: apt-get install espeak-ng); "
            "the drive screen falls back to the browser's speechSynthesis"
        )
    return exe


def _trim(wav_bytes: bytes) -> tuple[bytes, float]:
    """The same WAV with leading and trailing silence cut; and its duration in seconds."""
    with wave.open(io.BytesIO(wav_bytes)) as w:
        rate, width, ch = w.getframerate(), w.getsampwidth(), w.getnchannels()
        frames = w.readframes(w.getnframes())
    if width != 2:
        raise ValueError(f"{ENGINE} wrote {width * 8}-bit audio; expected 16-bit")
    pcm = np.frombuffer(frames, dtype="<i2").reshape(-1, ch).astype(np.float64)
    if rate >= 2 * TARGET_RATE_HZ:  # speech needs < 5 kHz: halve the rate (1-2-1 low-pass, then every 2nd)
        k = rate // TARGET_RATE_HZ
        padded = np.vstack([pcm[:1], pcm, pcm[-1:]])
        pcm = (0.25 * padded[:-2] + 0.5 * padded[1:-1] + 0.25 * padded[2:])[::k]
        rate //= k
    loud = np.flatnonzero(np.abs(pcm).max(axis=1) > _SILENCE * 32767)
    if loud.size:
        pad = int(0.01 * rate)
        pcm = pcm[max(int(loud[0]) - pad, 0) : int(loud[-1]) + pad]
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(ch)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.clip(np.round(pcm), -32768, 32767).astype("<i2").tobytes())
    return out.getvalue(), len(pcm) / rate


def render_line(text: str, wpm: int = DEFAULT_WPM, voice: str = DEFAULT_VOICE) -> tuple[bytes, float]:
    exe = engine_path()
    r = subprocess.run(
        [exe, "-v", voice, "-s", str(wpm), "--stdout", text], capture_output=True, timeout=30, check=False
    )
    if r.returncode != 0 or not r.stdout:
        raise RuntimeError(f"{ENGINE} failed on {text!r}: {r.stderr.decode(errors='replace').strip()}")
    return _trim(r.stdout)


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _tracks_of(entry: dict[str, Any]) -> set[str]:
    return {str(pid).split(":", 1)[0] for pid in entry.get("phrase_ids", []) if ":" in str(pid)}


def build(
    data_dir: Path,
    tracks: list[str] | None = None,
    wpm: int = DEFAULT_WPM,
    voice: str = DEFAULT_VOICE,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Render the library of ``tracks`` into ``<data>/voices``, keeping every other track's voices.

    Files already rendered with the same settings are kept. Tracks built earlier and not named now stay
    in the manifest side by side; with a new rate or voice they are rendered again with it, so the
    manifest never mixes settings and never loses a track."""
    exe = engine_path()
    out = voices_dir(data_dir)
    out.mkdir(parents=True, exist_ok=True)
    old = load_manifest(data_dir) or {}
    same = old.get("wpm") == wpm and old.get("voice") == voice
    old_entries: dict[str, Any] = old.get("entries", {})
    wanted = list(dict.fromkeys(tracks or list_tracks()))
    earlier = sorted(set().union(*(_tracks_of(e) for e in old_entries.values())) - set(wanted))
    kept: dict[str, Any] = {}
    if same:  # other tracks' voices stay as they are
        for text, e in old_entries.items():
            others = [pid for pid in e.get("phrase_ids", []) if str(pid).split(":", 1)[0] in earlier]
            if others and (out / e["file"]).is_file():
                kept[text] = {**e, "phrase_ids": others}
    else:  # rendered again with the new settings, side by side with the named tracks
        wanted += earlier
    reusable = old_entries if same else {}
    lines = library(wanted)
    entries: dict[str, Any] = dict(kept)
    for i, line in enumerate(lines):
        name = file_name(line.text, wpm, voice)
        prev = reusable.get(line.text)
        ids = list(dict.fromkeys([*kept.get(line.text, {}).get("phrase_ids", []), *line.phrase_ids]))
        if prev is not None and (out / name).is_file():
            entries[line.text] = {**prev, "phrase_ids": ids}
        else:
            audio, dur = render_line(line.text, wpm, voice)
            _write_atomic(out / name, audio)
            entries[line.text] = {
                "file": name,
                "ms": round(dur * 1000),
                "bytes": len(audio),
                "phrase_ids": ids,
            }
        if progress is not None:
            progress(i + 1, len(lines))
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False).stdout
    version = version.split("  Data at")[0].strip()
    built = sorted(set().union(*(_tracks_of(e) for e in entries.values())))
    manifest = {"engine": version or ENGINE, "voice": voice, "wpm": wpm, "tracks": built, "entries": entries}
    _write_atomic(out / MANIFEST, json.dumps(manifest, indent=1).encode())
    keep = {e["file"] for e in entries.values()} | {MANIFEST}
    for f in out.iterdir():  # files of phrases that no longer exist
        if f.is_file() and f.name not in keep:
            f.unlink()
    return manifest


def load_manifest(data_dir: Path) -> dict[str, Any] | None:
    p = voices_dir(data_dir) / MANIFEST
    if not p.is_file():
        return None
    try:
        m = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return m if isinstance(m, dict) and isinstance(m.get("entries"), dict) else None


def audio_lengths(data_dir: Path) -> dict[str, float]:
    """Cue text -> seconds of its rendered audio, for the hot path's deadlines (empty when none built)."""
    m = load_manifest(data_dir)
    if m is None:
        return {}
    out: dict[str, float] = {}
    for text, e in m["entries"].items():
        ms = e.get("ms") if isinstance(e, dict) else None
        if isinstance(ms, int | float) and ms > 0:
            out[str(text)] = float(ms) / 1000
    return out

"""Is a session's copy in the lake readable? One damaged or missing file marks that session damaged;
readers leave it out (every other session keeps working) and the hot path republishes it from the hot
store (:meth:`shared.store.publisher.LakePublisher.repair`, at start-up and ``pitwall repair``).

A file is damaged when its Parquet footer cannot be read (a truncated, empty or overwritten file); a
session is missing a file when it has ``session.parquet`` but no ``laps.parquet`` (the two every publish
writes). Checks are cached by (size, mtime), so a refresh only opens new or changed files.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow.parquet as pq

from shared.store.lake_layout import session_dir, table_path

_cache: dict[tuple[str, int, int], str | None] = {}
_lock = threading.Lock()
_REQUIRED = ("laps",)  # beside session.parquet, always written by a publish


def file_problem(path: Path) -> str | None:
    """None when ``path`` is a readable Parquet file, else why not (one line)."""
    try:
        st = path.stat()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    key = (str(path), st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _cache:
            return _cache[key]
    try:
        pq.read_metadata(path)
        problem = None
    except Exception as exc:
        problem = f"not a readable Parquet file ({str(exc).splitlines()[0][:200] or type(exc).__name__})"
    with _lock:
        if len(_cache) > 100_000:
            _cache.clear()
        _cache[key] = problem
    return problem


def session_files(lake_dir: Path, session_id: str) -> list[Path]:
    d = session_dir(lake_dir, session_id)
    return sorted(d.glob("*.parquet")) + sorted(d.glob("telemetry/lap_*.parquet"))


def session_problem(lake_dir: Path, session_id: str) -> dict[str, str] | None:
    """``{"file": <path under the lake>, "reason": ...}`` for the session's first damaged or missing file,
    or None when it reads (or is not published at all)."""
    try:
        head = table_path(lake_dir, session_id, "session")
    except ValueError as exc:  # not an id, or a link out of the lake: never read, listed as damaged
        return {"file": f"sessions/{ascii(session_id)[1:-1]}", "reason": str(exc)}
    if not head.exists():
        return None  # not published (or half-published: the publisher's repair handles it)
    for stem in _REQUIRED:
        p = table_path(lake_dir, session_id, stem)
        if not p.exists():
            return {"file": _rel(lake_dir, p), "reason": "missing"}
    for p in session_files(lake_dir, session_id):
        problem = file_problem(p)
        if problem is not None:
            return {"file": _rel(lake_dir, p), "reason": problem}
    return None


def deep_problem(lake_dir: Path, session_id: str) -> dict[str, str] | None:
    """Like :func:`session_problem`, but every file is read whole (a damaged data page behind an intact
    footer): for a reader whose query on this session failed, never on a healthy path."""
    problem = session_problem(lake_dir, session_id)
    if problem is not None:
        return problem
    for p in session_files(lake_dir, session_id):
        try:
            pq.read_table(p)
        except Exception as exc:  # whatever pyarrow raises, the file does not read
            why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            return {"file": _rel(lake_dir, p), "reason": f"data does not read ({why})"}
    return None


def files_signature(lake_dir: Path, session_id: str) -> tuple[tuple[str, int, int], ...]:
    """(name, size, mtime) of the session's files: a republished copy changes it."""
    out = []
    for p in session_files(lake_dir, session_id):
        try:
            st = p.stat()
        except OSError:
            continue
        out.append((p.name, st.st_size, st.st_mtime_ns))
    return tuple(out)


def damaged_sessions(lake_dir: Path) -> dict[str, dict[str, str]]:
    """Every damaged session in the lake, with its first bad file."""
    out = {}
    for d in sorted((lake_dir / "sessions").glob("*")):
        if d.is_dir():
            problem = session_problem(lake_dir, d.name)
            if problem is not None:
                out[d.name] = problem
    return out


def _rel(lake_dir: Path, p: Path) -> str:
    try:
        return str(p.relative_to(lake_dir))
    except ValueError:
        return str(p)

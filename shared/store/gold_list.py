"""Every saved gold lap (``<data>/gold/<track>/<driver>.parquet``, shared.store.gold), read from the files'
own metadata: listed, found by the session they came from, and cleared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from shared.paths import inside
from shared.settings import Settings


def gold_laps(settings: Settings) -> list[dict[str, Any]]:
    """One entry per gold lap file: its metadata (track, driver, session, lap, time, source, car) and
    ``path``; a file that cannot be read is listed with ``damaged`` and its path, never skipped."""
    out: list[dict[str, Any]] = []
    for p in sorted(settings.gold_dir.glob("*/*.parquet")):
        try:
            raw = (pq.read_schema(p).metadata or {}).get(b"pitwall_gold", b"{}")
            meta = json.loads(raw)
            if not isinstance(meta, dict):
                raise ValueError("not an object")
        except (OSError, ValueError) as exc:
            out.append({"track_id": p.parent.name, "path": str(p), "damaged": str(exc).splitlines()[0]})
            continue
        out.append({**meta, "path": str(p)})
    return out


def gold_from_session(settings: Settings, session_id: str) -> list[dict[str, Any]]:
    """The gold laps that were driven in ``session_id``."""
    return [g for g in gold_laps(settings) if g.get("session_id") == session_id]


def clear_gold(settings: Settings, entry: dict[str, Any]) -> None:
    """Remove the gold lap file of ``entry`` (one of ``gold_laps``): only ever a file in the gold folder."""
    try:
        rel = Path(entry["path"]).resolve().relative_to(settings.gold_dir.resolve())
    except ValueError:
        rel = Path()
    if len(rel.parts) != 2 or rel.suffix != ".parquet":
        raise ValueError(f"{entry['path']} is not a gold lap file")
    inside(settings.gold_dir, *rel.parts).unlink(missing_ok=True)  # the one inside-the-data-dir check

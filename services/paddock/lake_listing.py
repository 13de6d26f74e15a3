"""What ``/sessions`` serves: the newest sessions, rendered to JSON once per catalog version.

A request takes the listing the last refresh made (one immutable object, swapped whole: no lock, no query,
no conversion of rows) and joins the first ``limit`` rows' bytes. A refresh whose newest sessions and
damaged sessions are those of the listing it holds keeps it as it is (a publication of an older session,
the usual case in a fleet, renders nothing).
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa
from pydantic_core import to_json

from services.paddock.lake_s3 import LISTED_AT_MOST
from shared.display import car_shown
from shared.session_date import dated

NEWEST_SQL = "SELECT * FROM sessions ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT ?"


def shown(row: dict[str, Any]) -> dict[str, Any]:
    """What the tablet shows of a session row: its date (``date_at``, ``date_guessed`` when the file had
    none) and its car by name (``car_shown``; None when no car is named)."""
    return {**dated(row), "car_shown": car_shown(row.get("car_id"), row.get("car_name"))}


def _order(row: dict[str, Any]) -> tuple[bool, str, str]:
    at = row.get("started_at")
    return (at is not None, str(at or ""), str(row["session_id"]))


class Listing:
    """The newest sessions (``newest``, already in ``/sessions``' order) with the damaged ones (``damaged``:
    their rows as ``/sessions`` lists them) sorted in, each row's JSON rendered once."""

    def __init__(self, newest: pa.Table, damaged: list[dict[str, Any]], at_most: int) -> None:
        self.newest, self.damaged = newest, damaged
        good = [{**{k: v for k, v in r.items() if k != "meta_json"}, **shown(r)} for r in newest.to_pylist()]
        rows = sorted(good + damaged, key=_order, reverse=True) if damaged else good
        self._json = tuple(to_json(r) for r in rows[:at_most])

    def same(self, newest: pa.Table, damaged: list[dict[str, Any]]) -> bool:
        return self.damaged == damaged and self.newest.equals(newest)

    def page(self, limit: int) -> bytes:
        """The JSON array of the first ``limit`` rows."""
        return b"[" + b",".join(self._json[:limit]) + b"]"


def relisted(
    held: Listing | None,
    cur: duckdb.DuckDBPyConnection,
    damaged: dict[str, dict[str, str]],
    listed: dict[str, dict[str, Any]],
) -> Listing:
    """The listing from the ``sessions`` a cursor sees, the damaged sessions (their damage, and ``listed``:
    what their catalog rows or session files still say); ``held`` when nothing it shows changed."""
    newest = cur.sql(NEWEST_SQL, params=[LISTED_AT_MOST]).to_arrow_table()
    bad = [
        {k: v for k, v in listed.get(sid, {}).items() if k != "meta_json"}
        | {"session_id": sid, "status": "damaged", "damage": dict(problem)}
        for sid, problem in sorted(damaged.items())
    ]
    return held if held is not None and held.same(newest, bad) else Listing(newest, bad, LISTED_AT_MOST)

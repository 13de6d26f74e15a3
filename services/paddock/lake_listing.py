"""What ``/sessions`` serves: the newest sessions, rendered to JSON once per catalog version.

A request takes the listing the last refresh made (one immutable object, swapped whole: no lock, no query,
no conversion of rows) and joins the first ``limit`` rows' bytes. A refresh whose newest sessions and
damaged sessions are those of the listing it holds keeps it as it is (a publication of an older session
renders nothing); one that only adds sessions above the held ones (a fleet's new sessions) renders those
rows alone and keeps the others' JSON. Rows are converted a few at a time (``CONVERT_ROWS``): no single call holds
the GIL long while requests wait for it.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from pydantic_core import to_json

from services.paddock.lake_s3 import LISTED_AT_MOST
from shared.display import car_shown
from shared.session_date import dated

CONVERT_ROWS = 64  # rows converted by one call (pyarrow's to_pylist holds the GIL for the whole call)
NEWEST_SQL = "SELECT * FROM sessions ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT ?"


def shown(row: dict[str, Any]) -> dict[str, Any]:
    """What the tablet shows of a session row: its date (``date_at``, ``date_guessed`` when the file had
    none) and its car by name (``car_shown``; None when no car is named)."""
    return {**dated(row), "car_shown": car_shown(row.get("car_id"), row.get("car_name"))}


def _order(row: dict[str, Any]) -> tuple[bool, str, str]:
    at = row.get("started_at")
    return (at is not None, str(at or ""), str(row["session_id"]))


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    """Each row as ``/sessions`` lists it, converted ``CONVERT_ROWS`` rows at a time."""
    out = []
    for at in range(0, table.num_rows, CONVERT_ROWS):
        for r in table.slice(at, CONVERT_ROWS).to_pylist():
            out.append({**{k: v for k, v in r.items() if k != "meta_json"}, **shown(r)})
    return out


def _rendered(table: pa.Table) -> list[bytes]:
    return [to_json(r) for r in _rows(table)]


def _above(held: Listing | None, newest: pa.Table) -> int | None:
    """How many rows ``newest`` has above the rows of ``held`` when they follow unchanged (a fleet's new
    sessions), else None (the rows are rendered again)."""
    if held is None or held.damaged or held.newest.num_rows == 0:
        return None
    m = pc.index(newest.column("session_id"), held.newest.column("session_id")[0]).as_py()
    n = min(newest.num_rows - m, held.newest.num_rows)
    return m if m >= 0 and newest.slice(m, n).equals(held.newest.slice(0, n)) else None


class Listing:
    """The newest sessions (``newest``, already in ``/sessions``' order) with the damaged ones (``damaged``:
    their rows as ``/sessions`` lists them) sorted in, each row's JSON rendered once (``held``: the listing
    before, whose rows' JSON is kept when only new sessions came above them)."""

    def __init__(
        self, newest: pa.Table, damaged: list[dict[str, Any]], at_most: int, held: Listing | None = None
    ) -> None:
        self.newest, self.damaged = newest, damaged
        self._json: tuple[bytes, ...] = ()
        m = None if damaged else _above(held, newest)
        if held is not None and m is not None:
            n = min(newest.num_rows - m, len(held._json))
            fresh = _rendered(newest.slice(0, min(m, at_most))) + list(held._json[:n])
            fresh += _rendered(newest.slice(m + n, max(0, at_most - m - n)))
            self._json = tuple(fresh[:at_most])
            return
        good = _rows(newest if damaged else newest.slice(0, at_most))
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
    if held is not None and held.same(newest, bad):
        return held
    return Listing(newest, bad, LISTED_AT_MOST, held)

"""Which sessions the SQL tool's query reads on an S3 lake: those it names, never the whole fleet."""

from __future__ import annotations

import re

from services.paddock.lake_s3 import S3Lake

SQL_ALL_SESSIONS = 1000  # beyond this, the SQL tool reads the data of the sessions its query names only


class ScopeNeeded(ValueError):
    """A SQL query over a large lake's data names no session and no driver."""


def sql_scope(s3: S3Lake, sql: str) -> list[str]:
    """The sessions a query names by a quoted literal (a session id, or a driver id: that driver's
    sessions), never more; with none named, [] (every session) while the lake holds at most
    ``SQL_ALL_SESSIONS``, else :class:`ScopeNeeded`. The ``sessions`` table is always whole (in memory)."""
    literals = [m.replace("''", "'") for m in re.findall(r"'((?:[^']|'')*)'", sql)]
    scope = s3.sessions_named(literals)
    data = {t for t in s3.table_names if t != "sessions" and re.search(rf"\b{t}\b", sql)}
    if not scope and data and s3.view.count() > SQL_ALL_SESSIONS:
        raise ScopeNeeded(
            f"the lake holds {s3.view.count():,} sessions: name the session "
            "(session_id = '...') or the driver (driver_id = '...') whose data the query reads"
        )
    return scope

"""Shared helpers for the tools: session lookup, lap arrays from the lake, structured errors."""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import duckdb
import numpy as np

from services.paddock.lake import get_lake
from shared.bundle_read import OWN_SESSION_SQL, foreign
from shared.profiles.car import CarProfile, CarProfileError, load_car
from shared.profiles.track import Corner, load_track

T = TypeVar("T")
log = logging.getLogger(__name__)


class ToolError(Exception):
    def __init__(self, code: str, message: str, hint: str = "") -> None:
        self.code, self.message, self.hint = code, message, hint
        super().__init__(message)

    def as_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "hint": self.hint}}


_NOT_A_READ = (duckdb.BinderException, duckdb.ParserException, duckdb.InterruptException)


def rows(sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """Rows of one query. Name every session it reads by a parameter (``session_id = ?``, ``IN (?, ?)``):
    on an S3 lake the query sees only the sessions its parameters name (per-session views)."""

    def read(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
        rel = cur.execute(sql, params or [])
        cols = [d[0] for d in rel.description or []]
        return [dict(zip(cols, r, strict=True)) for r in rel.fetchall()]

    return _read(params, sql, read)


def _read(params: list[Any] | None, what: str, read: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """``read`` on a lake cursor for ``params``; a failed read is read once more when
    :func:`_read_failure` says so."""
    try:
        return _on_cursor(params, what, read)
    except duckdb.Error as exc:
        failure = _read_failure(exc, params, again=True)
        if failure is not None:
            raise failure from exc
    try:
        return _on_cursor(params, what, read)
    except duckdb.Error as exc:
        raise (_read_failure(exc, params) or exc) from exc


def _on_cursor(params: list[Any] | None, what: str, read: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    cur = get_lake().cursor(params, what)
    try:
        return read(cur)
    finally:
        cur.close()


def _read_failure(exc: duckdb.Error, params: list[Any] | None, again: bool = False) -> Exception | None:
    """A failed read of a session's data: when a file of that session turns out damaged (read whole), the
    session's ``damaged_session`` error; otherwise the original error. With ``again``: None when the
    session's files all read whole while its objects were opened with the sizes its catalog row records
    (an object republished under its key before its new row): it is read again, opened without them."""
    if isinstance(exc, _NOT_A_READ):
        return exc
    lake = get_lake()
    sid = next((p for p in params or [] if isinstance(p, str)), None)  # the session id is the first text
    if sid is not None:
        s3 = lake.s3
        sized = s3 is not None and s3.known(sid) and s3.sized(sid)
        if lake.check_session(sid) is not None:
            return damaged_error(sid) or exc
        if again and sized and s3 is not None and not s3.sized(sid):  # else the store is away
            return None
    return lake_unreachable_error(exc) or exc


_STORE_FAILED = ("IOError", "AWS Error", "curlCode", "When reading", "When getting information")


def lake_unreachable_error(exc: BaseException) -> ToolError | None:
    """After a read failed on an S3 lake: the ``lake_unreachable`` error when the store does not answer
    (what is and is not available, in the driver's words), or answered this read with a failure (a store
    still starting); else None (not the store's doing)."""
    lake = get_lake()
    if lake.s3 is None:
        return None
    if lake.status.reachable:
        lake.refresh(look_now=True)  # the read failed: does the store answer at all?
    hint = "the paddock reads the session again as soon as the lake answers"
    if (said := lake.status.sentence()) is not None:
        return ToolError("lake_unreachable", said, hint)
    if isinstance(exc, OSError | duckdb.IOException) or any(k in str(exc) for k in _STORE_FAILED):
        log.warning(
            "a lake read failed: %s", str(exc).strip().splitlines()[0][:300] if str(exc).strip() else exc
        )
        return ToolError(
            "lake_unreachable", "The lake did not answer a read just now; try again shortly.", hint
        )
    return None


def damaged_error(session_id: str) -> ToolError | None:
    """The ``damaged_session`` error for a session the lake left out because a file of it is damaged or
    missing (None when it is not damaged)."""
    lake = get_lake()
    lake.refresh()
    problem = lake.damaged.get(session_id)
    return None if problem is None else damaged_session_error(session_id, problem)


def damaged_session_error(session_id: str, problem: dict[str, str]) -> ToolError:
    """The ``damaged_session`` error naming the file and the reason."""
    return ToolError(
        "damaged_session",
        f"session {session_id} is damaged in the lake: {problem['file']}: {problem['reason']}",
        "`pitwall repair` (or a hot path restart) publishes it again from the hot store; "
        "other sessions are not affected",
    )


def session_row(session_id: str) -> dict[str, Any]:
    if session_id and session_id != "latest" and (err := damaged_error(session_id)) is not None:
        raise err
    if session_id in ("latest", "", None):
        r = rows("SELECT * FROM sessions ORDER BY started_at DESC NULLS LAST, session_id DESC LIMIT 1")
    else:
        r = rows("SELECT * FROM sessions WHERE session_id = ?", [session_id])
    if not r:
        known = [
            x["session_id"] for x in rows("SELECT session_id FROM sessions ORDER BY session_id DESC LIMIT 5")
        ]
        raise ToolError(
            "unknown_session", f"no session {session_id!r} in the lake", f"recent sessions: {known}"
        )
    return r[0]


def same_origin(s: dict[str, Any]) -> tuple[str, list[Any]]:
    """A SQL condition (and its parameters) for the sessions comparable with ``s`` as one driver's own:
    ``s`` itself, and, when ``s`` is the local driver's, their other sessions. A session imported from a
    bundle (a friend's, even under the same name) is compared only with itself, unless imported with
    ``--mine``."""
    return f"(session_id = ? OR (? AND {OWN_SESSION_SQL}))", [
        s["session_id"],
        not foreign(s.get("meta_json")),
    ]


def valid_laps(session_id: str) -> list[dict[str, Any]]:
    return rows(
        "SELECT * FROM laps WHERE session_id = ? AND kind = 'full' AND valid ORDER BY lap", [session_id]
    )


def _telemetry(
    first: tuple[str, ...], channels: tuple[str, ...], where: str, params: list[Any]
) -> dict[str, np.ndarray]:
    """Telemetry columns as float arrays (NULL becomes NaN): ``first``, then the other ``channels``."""
    cols = ", ".join([*first, *[c for c in channels if c not in first]])
    query = f"SELECT {cols} FROM telemetry WHERE {where}"
    tbl = _read(params, "telemetry", lambda cur: cur.sql(query, params=params).to_arrow_table())
    assert tbl is not None
    return {c: tbl.column(c).to_numpy(zero_copy_only=False).astype(float) for c in tbl.column_names}


def lap_arrays(session_id: str, lap: int, channels: tuple[str, ...]) -> dict[str, np.ndarray]:
    out = _telemetry(
        ("t_s", "dist_m"), channels, "session_id = ? AND lap = ? ORDER BY t_s", [session_id, lap]
    )
    if len(out["t_s"]) < 2:
        raise ToolError(
            "unknown_lap", f"lap {lap} of {session_id} has no telemetry", "see the session's laps"
        )
    return out


# channels the session-wide tools read; loaded together once per session and lake version
_WHEELS = ("fl", "fr", "rl", "rr")
SESSION_CHANNELS: tuple[str, ...] = (
    "speed_kmh",
    "throttle_pct",
    "brake_bar",
    "steer_deg",
    "g_lat",
    "g_long",
    "yaw_rate_dps",
    "rpm",
    "oil_press_bar",
    "water_temp_c",
    "oil_temp_c",
    "fuel_press_bar",
    "abs_active",
    "dsc_active",
    "mil",
    "brake_switch",
    *(f"wheel_speed_{w}_kmh" for w in _WHEELS),
    *(f"tpms_{k}_{w}{u}" for w in _WHEELS for k, u in (("press", "_bar"), ("temp", "_c"), ("alarm", ""))),
)
_CACHE_SESSIONS = 2
_cache: OrderedDict[tuple[str, tuple[Any, ...]], dict[str, np.ndarray]] = OrderedDict()
_cache_lock = threading.Lock()
_load_locks: dict[str, threading.Lock] = {}


def _load_session(session_id: str, channels: tuple[str, ...]) -> dict[str, np.ndarray]:
    # no ORDER BY: DuckDB's sort costs more than the read; numpy orders the rows only if needed
    out = _telemetry(("t_s", "lap", "dist_m"), channels, "session_id = ?", [session_id])
    t = out["t_s"]
    if len(t) > 1 and bool((np.diff(t) < 0).any()):
        order = np.argsort(t, kind="stable")
        out = {c: v[order] for c, v in out.items()}
    return out


def session_arrays(session_id: str, channels: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Whole-session arrays. The data phase runs several tools on one session at once, so the session is
    read once (all of ``SESSION_CHANNELS``) and shared; the key includes the lake's file signature, so a
    newly published lap is never hidden by the cache. Callers must not modify the arrays."""
    lake = get_lake()
    lake.refresh()
    key = (session_id, lake.version_of(session_id))
    with _cache_lock:
        lock = _load_locks.setdefault(session_id, threading.Lock())
    with lock:  # concurrent callers for one session wait for one read instead of each reading
        with _cache_lock:
            got = _cache.get(key)
            if got is not None:
                _cache.move_to_end(key)
        missing = [c for c in channels if got is None or c not in got]
        if got is None:
            got = _load_session(session_id, tuple(dict.fromkeys((*SESSION_CHANNELS, *channels))))
        elif missing:
            got = {**got, **_load_session(session_id, tuple(missing))}
        with _cache_lock:
            _cache[key] = got
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SESSIONS:
                _cache.popitem(last=False)
    return {c: got[c] for c in ("t_s", "lap", "dist_m", *channels)}


def car_profile(car_id: str | None) -> CarProfile:
    """A session's car profile: shipped, or the driver's own in the lake's data directory; else the
    generic one (a profile no longer installed, or an invalid one)."""
    try:
        return load_car(car_id or "generic", get_lake().settings.data_dir)
    except (KeyError, CarProfileError):
        return load_car("generic")


def track_corners(track_id: str | None) -> list[Corner]:
    if not track_id:
        return []
    try:
        return load_track(track_id).corners
    except KeyError:
        return []


def corner_of(track_id: str | None, dist_m: float) -> str | None:
    for c in track_corners(track_id):
        if c.start_m - 100 <= dist_m <= c.end_m + 50:
            return c.id
    return None


def find_corner(track_id: str | None, name: str) -> Corner:
    """The corner ``name`` names, in any case (``T3a``, ``t3A``, ``turn 3a``, ``Carousel``)."""
    if track_id:
        try:
            c = load_track(track_id).find_corner(name)
        except KeyError:
            c = None
        if c is not None:
            return c
        key = " ".join(str(name).split()).lower()
        for c in track_corners(track_id):
            if key in (c.id.lower(), c.short.lower(), c.name.lower(), f"turn {c.id[1:].lower()}"):
                return c
    names = [c.short for c in track_corners(track_id)]
    raise ToolError(
        "unknown_corner", f"no corner {name!r} on {track_id or 'this track'}", f"corners: {names}"
    )


def r(x: Any, nd: int = 3) -> Any:
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return x
    return None if math.isnan(f) else round(f, nd)


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    m = np.concatenate([[False], mask, [False]]).astype(np.int8)
    d = np.diff(m)
    return list(zip(np.where(d == 1)[0].tolist(), np.where(d == -1)[0].tolist(), strict=True))

"""What the command line reads back (heavy imports inside the functions: every command loads this): rows from the hot store (or, while the running hot path holds it, from
the published lake), and the session a driver means by an id, a unique start of one, or a typo of one."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)


class UnknownSession(LookupError):
    """No stored session matches what was typed: the message says what was meant, if it can tell."""


def read_rows(
    settings: Any,
    sql: str,
    params: list[Any],
    hot_call: Callable[[Any], Any],
    note: bool = True,
) -> list[dict[str, Any]]:
    """Rows from the hot store; while another process (the running hot path) holds it, from the
    published lake instead, with a one-line note (never a traceback)."""
    from shared.store.hot import HotStore, StoreLockedError

    try:
        store = HotStore(settings)
    except StoreLockedError:
        import duckdb

        from shared.store.publisher import lake_reader_views

        if note:
            err.print(
                "[yellow]note[/yellow]: the hot path holds the store; showing what it has published to the "
                "lake (live laps may lag)"
            )
        con = duckdb.connect()
        try:
            lake_reader_views(con, settings.lake_dir)
            rel = con.execute(sql, params)
            cols = [d[0] for d in rel.description or []]
            return [dict(zip(cols, r, strict=True)) for r in rel.fetchall()]
        finally:
            con.close()
    try:
        return hot_call(store)  # type: ignore[no-any-return]
    finally:
        store.close()


def match_session(given: str, known: list[str]) -> str:
    """``given`` itself, or the one known id it is the start of; else UnknownSession naming the closest
    ids (a typo) or every id it starts (not unique)."""
    if given in known:
        return given
    starts = sorted(s for s in known if given and s.startswith(given))
    if len(starts) == 1:
        return starts[0]
    if starts:
        shown = ", ".join(starts[:4]) + (" …" if len(starts) > 4 else "")
        raise UnknownSession(
            f"{given!r} is the start of {len(starts)} sessions ({shown}): give more of the id"
        )
    # the closest ids only: ids of one import second share their start, so a one-character typo of one is
    # also "close" to the others; only those as close as the best are offered
    scored = sorted(
        ((difflib.SequenceMatcher(None, given, k).ratio(), k) for k in known), key=lambda x: (-x[0], x[1])
    )
    best = scored[0][0] if scored else 0.0
    close = [k for r, k in scored if r >= 0.8 and r >= best - 1e-9][:3]
    hint = f"; did you mean {' or '.join(close)}?" if close else "; see `pitwall sessions`"
    raise UnknownSession(f"no session {given!r}{hint}")


def resolve_session(settings: Any, given: str) -> str:
    """The stored session a driver means by ``given`` (see ``match_session``)."""
    ids = [
        str(r["session_id"])
        for r in read_rows(
            settings,
            "SELECT session_id FROM sessions",
            [],
            lambda store: [{"session_id": s["session_id"]} for s in store.sessions()],
            note=False,
        )
    ]
    return match_session(given, ids)


def session_or_exit(settings: Any, given: str) -> str:
    """``resolve_session`` for a command: an unknown id is one line on stderr and exit 1."""
    try:
        return resolve_session(settings, given)
    except UnknownSession as exc:
        err.print(f"[red]error[/red]: {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from exc

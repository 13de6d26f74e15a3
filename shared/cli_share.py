"""``pitwall export | delete``: a driver's own data, shared with a coach or removed everywhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from shared.cli_data import AsJson
from shared.cli_lookup import session_or_exit

DataDir = Annotated[
    Path | None, typer.Option("--data-dir", help="Pitwall data directory (default: PITWALL_DATA_DIR)")
]
err = Console(stderr=True)


def _settings(data_dir: Path | None) -> Any:
    from shared.settings import settings_for

    return settings_for(data_dir)


def _fail(msg: str, code: int = 1) -> typer.Exit:
    err.print(f"[red]error[/red]: {msg}")
    return typer.Exit(code)


def export_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id (see `pitwall sessions`)")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Bundle file (default: ./<session>.pitwall)")
    ] = None,
    channels: Annotated[
        str | None,
        typer.Option(
            "--channels",
            help="Instead of a bundle: every channel as 'csv' or 'parquet' files in --out (a folder)",
        ),
    ] = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Export a session: one .pitwall file (its data and an HTML report a coach opens in any browser) that
    another Pitwall imports with `pitwall import`; or every channel as CSV/Parquet."""
    from shared.bundle import SUFFIX, export_bundle, export_channels
    from shared.ids import check_id

    settings = _settings(data_dir)
    session_id = session_or_exit(settings, session_id)
    try:
        if channels is not None:
            if channels not in ("csv", "parquet"):
                raise _fail(f"--channels takes 'csv' or 'parquet', not {channels!r}", 2)
            files = export_channels(settings, session_id, out or Path("."), channels)
            if as_json:
                sys.stdout.write(json.dumps({"files": [str(f) for f in files]}) + "\n")
            else:
                typer.echo(f"wrote {len(files)} {channels} files in {out or Path('.')}")
            return
        target = out or Path(f"{check_id(session_id, 'session id')}{SUFFIX}")
        m = export_bundle(settings, session_id, target)
    except (FileNotFoundError, ValueError) as exc:  # ValueError: not an id, a path leaving its folder
        raise _fail(str(exc)) from exc
    size = target.stat().st_size
    if as_json:
        sys.stdout.write(json.dumps({"path": str(target), "bytes": size, "session_id": session_id}) + "\n")
        return
    typer.echo(
        f"wrote {target} ({size / 1e6:.1f} MB): a zip file with report.html inside (laps, corners, map and "
        f"traces; unzip it and open report.html in any browser) and the session's data ({len(m['members'])} "
        f"files). Another Pitwall takes it whole with `pitwall import {target.name}`."
    )


def delete_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id (see `pitwall sessions`)")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation")] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Delete a session everywhere: the hot store, the lake and the paddock's conversations about it.
    Through the running hot path and paddock when they hold their stores."""
    import duckdb

    from shared.hotpath_link import HotpathUnavailable, delete_via_hotpath
    from shared.paths import PathEscapeError
    from shared.store.deletion import UnknownSessionError, delete_session
    from shared.store.gold_list import gold_from_session
    from shared.store.hot import HotStore, StoreLockedError
    from shared.store.lake_mirror import mirror_for

    settings = _settings(data_dir)
    session_id = session_or_exit(settings, session_id)
    golds = gold_from_session(settings, session_id)
    if not yes:
        if not sys.stdin.isatty():
            raise _fail("deleting cannot be undone: confirm with --yes", 2)
        typer.confirm(
            f"Delete session {session_id} and everything about it"
            f"{' (its gold lap too)' if golds else ''}? This cannot be undone",
            abort=True,
        )
    try:
        store = HotStore(settings)
    except StoreLockedError:
        try:
            code, body = delete_via_hotpath(settings, session_id)
        except HotpathUnavailable as exc:
            raise _fail(f"the hot store is locked and {exc}") from exc
        if code == 404:
            raise _fail(f"no session {session_id!r}; see `pitwall sessions`") from None
        if code != 200:
            raise _fail(f"the hot path refused: {body.get('detail', body)}") from None
        done = body
    else:
        try:
            done = delete_session(store, settings.lake_dir, session_id, mirror_for(settings))
        except UnknownSessionError as exc:
            raise _fail(f"no session {session_id!r}; see `pitwall sessions`") from exc
        except PathEscapeError as exc:  # its folder links out of the data directory: not followed
            raise _fail(str(exc)) from exc
        finally:
            store.close()
    turns = 0
    if settings.paddock_db_path.is_file():
        try:
            con = duckdb.connect(str(settings.paddock_db_path))
        except duckdb.IOException:
            err.print(
                "[yellow]note[/yellow]: the paddock is running; its conversations about this session go "
                "when you delete it from the tablet (or restart the paddock and run this again)"
            )
        else:
            try:
                r = con.execute("DELETE FROM conversations WHERE session_id = ?", [session_id]).fetchone()
                turns = int(r[0]) if r else 0
            except duckdb.CatalogException:
                turns = 0
            finally:
                con.close()
    cleared = _gold_after_delete(settings, golds)
    if as_json:
        out = {**done, "conversation_turns": turns, "gold_from_session": golds, "gold_cleared": cleared}
        sys.stdout.write(json.dumps(out, default=str) + "\n")
        return
    typer.echo(f"deleted session {session_id}: {done.get('laps', 0)} laps, {turns} conversation turns")


def _gold_after_delete(settings: Any, golds: list[dict[str, Any]]) -> bool:
    """A gold lap driven in the deleted session goes with it (the drive screen no longer compares with a
    lap that is not stored): say so, and clear its file."""
    from shared.cli_gold import gold_line
    from shared.store.gold_list import clear_gold as clear_file

    for g in golds:
        clear_file(settings, g)
        err.print(
            f"{escape(gold_line(g))}: it came from this session, so it is cleared too (the drive screen no "
            "longer compares with it; save another with `pitwall gold save SESSION LAP`)",
            soft_wrap=True,
        )
    return bool(golds)


def register(app: typer.Typer) -> None:
    app.command("export")(export_cmd)
    app.command("delete")(delete_cmd)

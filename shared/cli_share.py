"""``pitwall export | delete``: a driver's own data, shared with a coach or removed everywhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

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
) -> None:
    """Export a session: one .pitwall file (its data and an HTML report a coach opens in any browser) that
    another Pitwall imports with `pitwall import`; or every channel as CSV/Parquet."""
    from shared.bundle import SUFFIX, export_bundle, export_channels

    settings = _settings(data_dir)
    session_id = session_or_exit(settings, session_id)
    try:
        if channels is not None:
            if channels not in ("csv", "parquet"):
                raise _fail(f"--channels takes 'csv' or 'parquet', not {channels!r}", 2)
            files = export_channels(settings, session_id, out or Path("."), channels)
            sys.stdout.write(json.dumps({"files": [str(f) for f in files]}) + "\n")
            return
        target = out or Path(f"{session_id}{SUFFIX}")
        m = export_bundle(settings, session_id, target)
    except FileNotFoundError as exc:
        raise _fail(str(exc)) from exc
    size = target.stat().st_size
    err.print(f"wrote {target} ({size / 1e6:.1f} MB, {len(m['members'])} files incl. report.html)")
    sys.stdout.write(json.dumps({"path": str(target), "bytes": size, "session_id": session_id}) + "\n")


def delete_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id (see `pitwall sessions`)")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation")] = False,
    data_dir: DataDir = None,
) -> None:
    """Delete a session everywhere: the hot store, the lake and the paddock's conversations about it.
    Through the running hot path and paddock when they hold their stores."""
    import duckdb

    from shared.hotpath_link import HotpathUnavailable, delete_via_hotpath
    from shared.store.deletion import UnknownSessionError, delete_session
    from shared.store.hot import HotStore, StoreLockedError
    from shared.store.lake_mirror import mirror_for

    settings = _settings(data_dir)
    session_id = session_or_exit(settings, session_id)
    if not yes:
        if not sys.stdin.isatty():
            raise _fail("deleting cannot be undone: confirm with --yes", 2)
        typer.confirm(
            f"Delete session {session_id} and everything about it? This cannot be undone", abort=True
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
    err.print(f"deleted session {session_id}: {done.get('laps', 0)} laps, {turns} conversation turns")
    sys.stdout.write(json.dumps({**done, "conversation_turns": turns}, default=str) + "\n")


def register(app: typer.Typer) -> None:
    app.command("export")(export_cmd)
    app.command("delete")(delete_cmd)

"""``pitwall lake migrate`` and ``pitwall lake maintain``: the lake's Delta tables (local or S3)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)
lake_app = typer.Typer(
    help="The lake's tables: migrate an older lake, compact and vacuum them.", no_args_is_help=True
)
DataDir = Annotated[
    Path | None, typer.Option("--data-dir", help="Pitwall data directory (default: PITWALL_DATA_DIR)")
]


def _settings(data_dir: Path | None):  # type: ignore[no-untyped-def]
    from pydantic import ValidationError

    from shared.settings import settings_for

    try:
        return settings_for(data_dir)
    except ValueError as exc:  # a bad PITWALL_LAKE_URL or S3 setting: one line naming it
        msg = "; ".join(e["msg"] for e in exc.errors()) if isinstance(exc, ValidationError) else str(exc)
        err.print(f"[red]error[/red]: {msg.splitlines()[0]}")
        raise typer.Exit(2) from exc


def _say(result: object, as_json: bool, line: str) -> None:
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        err.print(line)


@lake_app.command("migrate")
def migrate_cmd(
    data_dir: DataDir = None, as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False
) -> None:
    """Convert a lake of the older layout (session folders; on S3 the _catalog/ fragments) to the Delta
    tables. Safe to run again: nothing is added twice."""
    from shared.lake_url import LakeUnavailable, explain, s3_filesystem, s3_target
    from shared.store.lake_migrate import migrate_local, migrate_s3

    settings = _settings(data_dir)
    try:
        if settings.lake_is_s3:
            got = migrate_s3(s3_filesystem(settings), s3_target(settings))
        else:
            got = migrate_local(settings.lake_dir)
    except LakeUnavailable as exc:
        err.print(f"[red]error[/red]: {exc}")
        raise typer.Exit(1) from exc
    except OSError as exc:
        err.print(f"[red]error[/red]: {explain(exc, settings) if settings.lake_is_s3 else exc}")
        raise typer.Exit(1) from exc
    rows = ", ".join(f"{k} {v}" for k, v in got["rows"].items())
    _say(got, as_json, f"lake migrated: {got['sessions']} sessions converted; rows now: {rows}")


@lake_app.command("maintain")
def maintain_cmd(
    data_dir: DataDir = None,
    retention_hours: Annotated[
        int, typer.Option(help="Keep files that versions of the last N hours need")
    ] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Compact the tables' small files, write checkpoints, vacuum files no recent version needs."""
    from shared.lake_url import s3_target
    from shared.store.lake_migrate import maintain
    from shared.store.lake_tables import LakeTables

    settings = _settings(data_dir)
    tables = (
        LakeTables.s3(s3_target(settings)) if settings.lake_is_s3 else LakeTables.local(settings.lake_dir)
    )
    try:
        got = maintain(tables, retention_hours)
    except OSError as exc:
        err.print(
            f"[red]error[/red]: the lake's tables could not be maintained: {str(exc).splitlines()[0][:200]}"
        )
        raise typer.Exit(1) from exc
    done = ", ".join(
        f"{r['table']} {r.get('files_removed', 0)}→{r.get('files_added', 0)} files"
        for r in got
        if r["written"]
    )
    _say(got, as_json, f"lake maintained: {done or 'no table yet'}")


def register(app: typer.Typer) -> None:
    app.add_typer(lake_app, name="lake")

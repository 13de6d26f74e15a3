"""``pitwall repair``: publish again, from the hot store, every session the lake has damaged, missing or
half-published (what the hot path does at start-up)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)


def repair_cmd(
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Pitwall data directory (default: PITWALL_DATA_DIR)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Re-publish damaged or half-published lake sessions from the hot store; lists what stays damaged."""
    from shared.settings import settings_for
    from shared.store.hot import HotStore, StoreLockedError
    from shared.store.lake_check import damaged_sessions
    from shared.store.lake_mirror import mirror_for
    from shared.store.publisher import LakePublisher

    settings = settings_for(data_dir)
    try:
        store = HotStore(settings)
    except StoreLockedError as exc:
        err.print(
            f"[red]error[/red]: {exc}. The hot path repairs the lake when it starts: restart it, or stop it "
            "and run `pitwall repair` again"
        )
        raise typer.Exit(1) from exc
    try:
        # with the S3 mirror: a session republished here (a compaction a crash interrupted) is spooled too
        repaired = LakePublisher(store.con, settings.lake_dir, mirror_for(settings)).repair()
    finally:
        store.close()
    left = damaged_sessions(settings.lake_dir)  # not in the hot store: nothing to publish them from
    if as_json:
        sys.stdout.write(json.dumps({"repaired": repaired, "still_damaged": left}) + "\n")
    else:
        for sid in repaired:
            err.print(f"[green]{sid}[/green]: published again from the hot store")
        for sid, p in left.items():
            err.print(f"[red]{sid}[/red]: still damaged ({p['file']}: {p['reason']}); not in the hot store")
        if not repaired and not left:
            err.print("the lake is whole")
    if left:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("repair")(repair_cmd)

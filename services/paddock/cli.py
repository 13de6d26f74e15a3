"""``pitwall paddock``: the paddock HTTP service."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)


def paddock_cmd(
    host: Annotated[
        str | None, typer.Option("--host", help="Bind address (default PITWALL_PADDOCK_HOST)")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port (default PITWALL_PADDOCK_PORT)")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
) -> None:
    """Run the paddock service: tools, agents, REST and SSE for the tablet."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import uvicorn

    from services.paddock.app import create_app
    from shared.settings import settings_for

    overrides: dict[str, object] = {}
    if host:
        overrides["paddock_host"] = host
    if port:
        overrides["paddock_port"] = port
    try:
        settings = settings_for(data_dir, **overrides)
    except ValueError as exc:
        err.print(f"[red]error[/red]: {exc}")
        raise typer.Exit(2) from exc
    # open SSE streams must not hold a restart hostage: after 3 s they are cut, and clients reconnect
    uvicorn.run(
        create_app(settings),
        host=settings.paddock_host,
        port=settings.paddock_port,
        log_level="info",
        timeout_graceful_shutdown=3,
    )


def register(app: typer.Typer) -> None:
    app.command("paddock")(paddock_cmd)

"""``pitwall paddock``: the paddock HTTP service."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)

LLM_HELP = (
    "Which model server to use: 'url' (default) talks to PITWALL_ADK_OPENAI_URL; 'embedded' starts "
    "llama.cpp's server with SmolLM2-135M-Instruct on a free loopback port and stops it on exit "
    "(needs the optional 'llm' extra)"
)


def paddock_cmd(
    host: Annotated[
        str | None, typer.Option("--host", help="Bind address (default PITWALL_PADDOCK_HOST)")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port (default PITWALL_PADDOCK_PORT)")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
    llm: Annotated[str, typer.Option("--llm", help=LLM_HELP)] = "url",
) -> None:
    """Run the paddock service: tools, agents, REST and SSE for the tablet."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from services.paddock.app import create_app
    from services.paddock.llm.embedded import EmbeddedModelError, EmbeddedModelServer
    from shared.lake_url import LakeUnavailable, check_s3_lake
    from shared.profiles.track import use_data_dir
    from shared.serve import PortTaken, listen, serve
    from shared.settings import settings_for

    if llm not in ("url", "embedded"):
        err.print(f"[red]error[/red]: --llm must be 'url' or 'embedded', not {llm!r}")
        raise typer.Exit(2)
    overrides: dict[str, object] = {}
    if host:
        overrides["paddock_host"] = host
    if port:
        overrides["paddock_port"] = port
    try:
        settings = settings_for(data_dir, **overrides)
        if settings.lake_is_s3:  # the bucket answers with these credentials, or a sentence saying why not
            try:
                check_s3_lake(settings)
            except LakeUnavailable as exc:
                if exc.reachable:  # a wrong setting: refused at start
                    raise
                # the store is away: serve the last snapshot of the lake, and follow it once it answers
                err.print(
                    f"[yellow]warning[/yellow]: {escape(str(exc))}; serving the last snapshot of the lake"
                )
    except ValueError as exc:
        err.print(f"[red]error[/red]: {escape(str(exc))}")
        raise typer.Exit(2) from exc
    held = _held_by_another(settings)
    if held:
        err.print(f"[red]error[/red]: {escape(held)}", soft_wrap=True)
        raise typer.Exit(1)
    try:
        sock = listen(settings.paddock_host, settings.paddock_port, "the paddock")
    except PortTaken as exc:
        err.print(f"[red]error[/red]: {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from None
    use_data_dir(settings.data_dir)  # tracks Pitwall stored there (a corner's name on a detected track)
    server: EmbeddedModelServer | None = None
    if llm == "embedded":
        server = EmbeddedModelServer(log_path=settings.paddock_dir / "llm-server.log")
        try:
            url = server.start()
        except EmbeddedModelError as exc:
            sock.close()
            err.print(f"[red]error[/red]: --llm embedded: {escape(str(exc))}")
            raise typer.Exit(2) from exc
        err.print(f"embedded model server: {server.model} at {url} (log {server.log_path})")
        settings = settings_for(data_dir, **overrides, adk_openai_url=url, adk_openai_model=server.model)
    try:
        # open SSE streams must not hold a restart hostage: after 3 s they are cut, and clients reconnect
        serve(create_app(settings), sock, log_level="info", timeout_graceful_shutdown=3)
    finally:
        if server is not None:
            server.stop()


def _held_by_another(settings: Any) -> str | None:
    """Why this paddock cannot open its own store (another paddock on the same data folder holds it),
    or None. DuckDB allows one writing process a file."""
    import duckdb

    settings.ensure_dirs()
    try:
        duckdb.connect(str(settings.paddock_db_path)).close()
    except duckdb.IOException as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if "lock" not in first.lower():
            return f"cannot open {settings.paddock_db_path}: {first}"
        return (
            f"another paddock is already running on the data folder {settings.data_dir} (it holds "
            f"{settings.paddock_db_path.name}): one paddock per data folder; stop it, or give another --data-dir"
        )
    return None


def register(app: typer.Typer) -> None:
    app.command("paddock")(paddock_cmd)

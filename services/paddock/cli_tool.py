"""``pitwall tool NAME --args '{...}'``: run any analytics tool without an LLM."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)


def tool_cmd(
    name: Annotated[str | None, typer.Argument(help="Tool name (see --list)")] = None,
    args: Annotated[str, typer.Option("--args", help="JSON object of arguments")] = "{}",
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the tools and their parameters")] = False,
) -> None:
    """Run a paddock analytics tool over the lake and print JSON."""
    from services.paddock.lake import configure_lake
    from services.paddock.tools.registry import TOOLS, ToolArgError, run_tool, tool_schemas
    from shared.settings import settings_for

    if list_ or name is None:
        sys.stdout.write(json.dumps(tool_schemas(), indent=1) + "\n")
        return
    if name not in TOOLS:
        err.print(f"[red]error[/red]: unknown tool {name!r}; one of: {', '.join(TOOLS)}")
        raise typer.Exit(2)
    try:
        parsed = json.loads(args)
    except ValueError as exc:
        err.print(f"[red]error[/red]: --args is not JSON: {exc}")
        raise typer.Exit(2) from exc
    configure_lake(settings_for(data_dir))
    try:
        out = run_tool(name, parsed)
    except ToolArgError as exc:
        err.print(f"[red]error[/red]: bad argument {exc}")
        raise typer.Exit(2) from exc
    sys.stdout.write(json.dumps(out, default=str, indent=1) + "\n")
    if isinstance(out, dict) and "error" in out:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("tool")(tool_cmd)

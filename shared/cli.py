"""The ``pitwall`` command. Each area registers its own sub-commands; heavy imports stay inside them."""

from __future__ import annotations

import importlib
import logging
from typing import Annotated

import typer

# module path -> it exposes ``register(app: typer.Typer) -> None``
_COMMAND_MODULES = (
    "shared.cli_import",  # import
    "shared.cli_data",  # sessions, laps, simulate, gold save/import
    "shared.cli_gold",  # gold list/show/clear
    "shared.cli_share",  # export, delete
    "shared.cli_repair",  # repair
    "shared.cli_lake",  # lake migrate, lake maintain
    "shared.cli_channels",  # channels
    "services.hotpath.cli",  # hotpath, replay (services.hotpath.cli_replay), voices build
    "services.paddock.cli",  # paddock
    "services.paddock.cli_tool",  # tool
    "services.demo",  # demo
)


# libraries that log every request at INFO: heard only with -vv
_CHATTY = ("httpx", "httpcore", "websockets", "LiteLLM", "litellm", "google_adk", "google_genai", "urllib3")


def set_verbosity(verbose: int) -> None:
    """Quiet by default (warnings and errors); -v: what Pitwall does; -vv: every library's chatter too."""
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.getLogger().setLevel(level)
    for name in _CHATTY:
        logging.getLogger(name).setLevel(logging.WARNING if verbose < 2 else logging.DEBUG)


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="pitwall",
        help="Pitwall: a local-first AI race engineer for AiM-logged cars.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def _options(
        verbose: Annotated[
            int, typer.Option("--verbose", "-v", count=True, help="More log output (-v, -vv)")
        ] = 0,
    ) -> None:
        set_verbosity(verbose)

    for mod_name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:  # an area not built yet (the module or its package)
            if exc.name is None or not mod_name.startswith(exc.name):
                raise
            continue
        mod.register(app)
    return app


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    build_app()()


if __name__ == "__main__":
    main()

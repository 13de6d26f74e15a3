"""The ``pitwall`` command. Each area registers its own sub-commands; heavy imports stay inside them."""

from __future__ import annotations

import importlib
import logging

import typer

# module path -> it exposes ``register(app: typer.Typer) -> None``
_COMMAND_MODULES = (
    "shared.cli_data",  # import, sessions, laps, simulate, gold
    "services.hotpath.cli",  # hotpath, replay
    "services.paddock.cli",  # paddock
    "services.paddock.cli_tool",  # tool
    "services.demo",  # demo
)


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="pitwall",
        help="Pitwall: a local-first AI race engineer for AiM-logged cars.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
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
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    build_app()()


if __name__ == "__main__":
    main()

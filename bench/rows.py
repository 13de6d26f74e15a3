"""The benches' result table: (measure, result, target / notes, command) rows, printed with rich."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

Row = tuple[str, str, str, str]


def print_rows(rows: list[Row]) -> None:
    tbl = Table("measure", "result", "target / notes", "command")
    for r in rows:
        tbl.add_row(*r)
    Console(width=220).print(tbl)

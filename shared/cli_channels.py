"""``pitwall channels FILE``: every channel of a logger file, what it feeds and why (or why not)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from shared.cli_data import AsJson, DataDir, _emit, _settings, err

MapFile = Annotated[
    Path | None,
    typer.Option("--map", help="Channel mapping YAML; overrides <data>/channels.yaml entry by entry"),
]


def channel_report(path: Path, settings: Any, car_id: str | None, map_file: Path | None) -> dict[str, Any]:
    """The mapping of one file as plain data (what ``pitwall channels --json`` prints)."""
    from shared.channel_user import load_user_map
    from shared.importers import read_log
    from shared.profiles.car import guess_car, load_car

    user = load_user_map(settings.data_dir, map_file)
    raw = read_log(path, car_id=car_id)
    car = load_car(car_id or guess_car(raw))
    _, registry = car.to_wide(raw, user=user)  # signs checked against the GPS track: notes in mapped_by
    rows = [
        {
            "channel": r["name"],
            "unit": r["unit"],
            "canonical": r["canonical"],
            "canonical_unit": _unit(r["canonical"]),
            "function": raw.channels[r["name"]].function,
            "valid_pct": round(100.0 * r["valid_share"], 1),
            "why": r["mapped_by"],
        }
        for r in registry
    ]
    mapped = [r for r in rows if r["canonical"]]
    return {
        "file": str(path),
        "source_format": raw.source_format,
        "car": car.id,
        "mapping_files": user.sources,
        "mapped": len(mapped),
        "total": len(rows),
        "canonical": sorted(r["canonical"] for r in mapped),
        "channels": rows,
    }


def _unit(canonical: str | None) -> str | None:
    from shared.signals import CHANNEL_BY_NAME

    return CHANNEL_BY_NAME[canonical].unit if canonical else None


def channels_cmd(
    path: Annotated[
        Path | None, typer.Argument(help="A logger file: AiM XRK/XRZ/CSV, VBOX CSV/.vbo, candump")
    ] = None,
    signals: Annotated[
        bool, typer.Option("--signals", help="List the signals a channel can be mapped to, with their units")
    ] = False,
    map_file: MapFile = None,
    car: Annotated[str | None, typer.Option("--car", help="Car profile id (default: guessed)")] = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Show every channel of a file: the signal it feeds (with unit conversion) and why, or why not; or,
    with --signals, every signal a channel can be mapped to in channels.yaml."""
    if signals:
        _print_signals(as_json)
        return
    if path is None:
        err.print("[red]error[/red]: give a logger FILE, or --signals for the signals a channel can map to")
        raise typer.Exit(2)
    from shared.channel_user import ChannelMapError
    from shared.importers import ImportFormatError
    from shared.importers.limits import printable

    try:
        rep = channel_report(path, _settings(data_dir), car, map_file)
    except (ImportFormatError, ChannelMapError, KeyError, ValueError, OSError) as exc:
        err.print(f"[red]error[/red]: {escape(printable(str(exc).strip(chr(34)), 600))}", soft_wrap=True)
        raise typer.Exit(1) from exc
    if as_json:
        _emit(rep)
        return
    tbl = Table(
        "channel",
        "unit",
        "function",
        "signal",
        "readings %",
        "why",
        title=f"{path.name}: {rep['source_format']}",
    )
    for r in rep["channels"]:
        sig = f"{r['canonical']} ({r['canonical_unit'] or '-'})" if r["canonical"] else "-"
        tbl.add_row(
            escape(r["channel"]),
            escape(r["unit"] or "-"),
            escape(r["function"] or "-"),
            sig,
            f"{r['valid_pct']:.0f}",
            escape(r["why"] or ""),
        )
    Console().print(tbl)
    via = f" (mapping: {', '.join(rep['mapping_files'])})" if rep["mapping_files"] else ""
    err.print(
        f"{rep['mapped']} of {rep['total']} channels mapped{via}: {', '.join(rep['canonical']) or 'none'}. "
        "Unmapped channels are stored by their own name in telemetry_signals."
    )


def _print_signals(as_json: bool) -> None:
    """The canonical signals a mapping entry may name (not those Pitwall computes itself)."""
    from shared.channel_user import NOT_MAPPABLE
    from shared.signals import CHANNEL_BY_NAME

    rows = [
        {"signal": c.name, "unit": c.unit, "what": c.description}
        for c in CHANNEL_BY_NAME.values()
        if c.name not in NOT_MAPPABLE
    ]
    if as_json:
        _emit(rows)
        return
    tbl = Table("signal", "unit", "what it is", title="signals a channel can feed (channels.yaml)")
    for r in rows:
        tbl.add_row(r["signal"], r["unit"] or "-", r["what"])
    Console().print(tbl)
    err.print(
        "Map a channel in <data>/channels.yaml (format: docs/REFERENCE.md, 'Your own channel mapping')."
    )


def register(app: typer.Typer) -> None:
    app.command("channels")(channels_cmd)

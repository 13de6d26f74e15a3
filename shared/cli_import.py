"""``pitwall import``: logger files into the store and the lake, with the data-quality report in a
driver's words; Ctrl-C says which files were stored and which were not."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from shared.cli_data import AsJson, DataDir, _emit, _fmt_time, _settings, err

MapOption = Annotated[
    Path | None,
    typer.Option(
        "--map", help="Channel mapping YAML; overrides <data>/channels.yaml (see `pitwall channels`)"
    ),
]


def import_cmd(
    paths: Annotated[
        list[Path], typer.Argument(help="Logger files: AiM XRK/XRZ/CSV, VBOX CSV/.vbo, candump")
    ],
    data_dir: DataDir = None,
    driver: Annotated[
        str | None, typer.Option("--driver", help="Driver id (default: driver; the file names the driver)")
    ] = None,
    car: Annotated[str | None, typer.Option("--car", help="Car profile id (default: guessed)")] = None,
    track: Annotated[
        str | None, typer.Option("--track", help="Track id (default: detected from GPS)")
    ] = None,
    map_file: MapOption = None,
    mine: Annotated[
        bool,
        typer.Option(
            "--mine",
            help="A .pitwall bundle of your own (from another Pitwall): count it in your personal bests, as "
            "--driver. Without it a bundle keeps its driver and never counts as yours",
        ),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Import logger files into the store and the lake."""
    from shared.channel_user import ChannelMapError
    from shared.hotpath_link import HotpathUnavailable
    from shared.importers import ImportFormatError
    from shared.importers.errors import printable
    from shared.store.hot import StoreLockedError

    named = (ImportFormatError, StoreLockedError, HotpathUnavailable, ChannelMapError)  # they name the file
    settings = _settings(data_dir)
    results: list[dict[str, Any]] = []
    stored: list[tuple[Path, str]] = []
    failed = 0
    for i, p in enumerate(paths):
        try:
            try:
                res = _one(p, settings, driver, car, track, map_file, mine, progress=not as_json)
            except Exception as exc:  # Ctrl-C inside a DuckDB query: DuckDB stops it and says so
                if type(exc).__name__ in ("RuntimeError", "InterruptException") and "interrupted" in str(exc):
                    raise KeyboardInterrupt from None
                raise
        except (*named, KeyError, ValueError, OSError, MemoryError) as exc:
            failed += 1
            msg = printable(str(exc).strip('"'), 600)  # file content never reaches the terminal raw
            where = "" if isinstance(exc, named) else f"{printable(str(p))}: "
            err.print(f"[red]error[/red]: {escape(where + msg)}", soft_wrap=True)
            continue
        except KeyboardInterrupt:
            _say_interrupted(settings, stored, p, paths[i + 1 :])
            raise typer.Exit(130) from None
        stored.append((p, res.session_id))
        d = res.as_json()
        if d.pop("duplicate") and as_json:
            err.print(f"{p.name}: already imported as {res.session_id}")
        if d.get("quality") is None:
            d.pop("quality", None)
        d["laps"] = [{k: lp[k] for k in ("lap", "time_s", "kind")} for lp in d["laps"]]
        results.append(d)
        if not as_json:
            dup = " (already imported)" if res.duplicate else ""
            dup = (
                " (imported again into the same session: the channel mapping changed)"
                if res.remapped
                else dup
            )
            err.print(
                f"[green]{escape(p.name)}[/green] -> {res.session_id}{dup}: {res.source_format}, "
                f"track {escape(res.track_name or res.track or 'unknown')}, "
                f"{sum(1 for lp in res.laps if lp['kind'] == 'full')} full laps, best {_fmt_time(res.best_lap_s)}",
                soft_wrap=True,
            )
            _print_quality(res.quality)
    if as_json:
        _emit(results[0] if len(results) == 1 and len(paths) == 1 else results)
    if failed:
        raise typer.Exit(1)


def _one(
    p: Path,
    settings: Any,
    driver: str | None,
    car: str | None,
    track: str | None,
    map_file: Path | None,
    mine: bool,
    progress: bool,
) -> Any:
    from shared.hotpath_link import import_anywhere as import_file

    if not (progress and p.is_file() and p.stat().st_size > 2_000_000):
        return import_file(p, settings, driver, car, track, channel_map=map_file, mine=mine)
    with Progress(console=err, transient=True) as prog:
        task = prog.add_task(f"reading {p.name}", total=1.0)
        return import_file(
            p,
            settings,
            driver,
            car,
            track,
            progress=lambda f: prog.update(task, completed=f),
            channel_map=map_file,
            mine=mine,
        )


def _say_interrupted(settings: Any, stored: list[tuple[Path, str]], current: Path, rest: list[Path]) -> None:
    """After Ctrl-C: what is stored, what happens to the file being imported, what was not started."""
    from shared.importers.base import file_sha256
    from shared.store.hot import HotStore, StoreLockedError

    err.print("[yellow]stopped[/yellow] (Ctrl-C)", soft_wrap=True)
    for p, sid in stored:
        err.print(f"  stored: {escape(p.name)} as session {sid}", soft_wrap=True)
    try:
        store = HotStore(settings)
    except StoreLockedError:  # the running hot path has the file and finishes it on its own
        err.print(
            f"  {escape(current.name)}: handed to the running hot path, which goes on with it: once it has "
            "the whole file it stores it; `pitwall sessions` lists it when it is done (`pitwall delete` removes it)",
            soft_wrap=True,
        )
    else:
        try:  # an import is stored whole or not at all (shared.ingest): ask the store which
            found = store.session_by_sha(file_sha256(current)) if current.is_file() else None
        finally:
            store.close()
        what = f"stored as session {found}" if found else "not stored (nothing of it was kept)"
        err.print(f"  {escape(current.name)}: {what}", soft_wrap=True)
    if rest:
        err.print(f"  not imported: {escape(', '.join(p.name for p in rest))}", soft_wrap=True)


def _print_quality(q: dict[str, Any] | None) -> None:
    """The data-quality report, short: every finding in a driver's words (gaps and untrusted laps
    included), then the channels with their rate, unit and coverage."""
    from shared.quality_words import quality_lines

    if not q:
        return
    for line in quality_lines(q):
        err.print(f"  [yellow]note[/yellow]: {escape(line)}", soft_wrap=True)
    tbl = Table("channel", "signal", "unit", "Hz", "coverage %", title="data quality", title_justify="left")
    for c in q.get("channels", []):
        rate = c.get("rate_hz")
        tbl.add_row(
            escape(str(c["name"])),
            str(c.get("canonical") or "-"),
            escape(str(c.get("unit") or "-")),
            f"{rate:g}" if rate else "-",
            f"{c['coverage_pct']:.0f}",
        )
    err.print(tbl)


def register(app: typer.Typer) -> None:
    app.command("import")(import_cmd)

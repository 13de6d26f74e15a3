"""``pitwall sessions | laps | simulate | sample | gold``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from shared.cli_lookup import read_rows, session_or_exit
from shared.session_date import date_text, session_date

DataDir = Annotated[
    Path | None, typer.Option("--data-dir", help="Pitwall data directory (default: PITWALL_DATA_DIR)")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table")]

err = Console(stderr=True)


def _settings(data_dir: Path | None) -> Any:
    from shared.settings import settings_for

    return settings_for(data_dir)


def _fmt_time(s: float | None) -> str:
    from shared.display import lap_time

    return lap_time(s)


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, default=str, indent=1) + "\n")


def sessions_cmd(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """List stored sessions."""
    rows = read_rows(
        _settings(data_dir),
        "SELECT * FROM sessions ORDER BY created_at DESC, session_id DESC",
        [],
        lambda store: store.sessions(),
    )
    if as_json:
        _emit(rows)
        return
    console = Console()
    wide = console.width >= 120  # driver, car and status only where they fit without wrapping
    tbl = Table(pad_edge=False, box=None, header_style="bold", collapse_padding=True, padding=(0, 1, 0, 0))
    # the id is what every other command takes: never cut, whatever the terminal's width
    tbl.add_column("session", no_wrap=True, min_width=max((len(r["session_id"]) for r in rows), default=7))
    tbl.add_column("date", no_wrap=True)
    tbl.add_column("track", no_wrap=True, overflow="ellipsis", max_width=18 if wide else 12)
    tbl.add_column("file", no_wrap=True, overflow="ellipsis", max_width=40 if wide else 15)
    tbl.add_column("laps", no_wrap=True, justify="right")
    tbl.add_column("best", no_wrap=True, justify="right")
    if wide:
        for name in ("driver", "car", "status"):
            tbl.add_column(name, no_wrap=True, overflow="ellipsis", max_width=24)
    for r in rows:
        cells = [
            r["session_id"],
            date_text(r, with_time=wide, short=True),
            escape(r.get("track_name") or r["track_id"] or "-"),
            escape(Path(str(r.get("source_path") or "")).name or r["source_format"]),
            str(r["n_laps"] or 0),
            _fmt_time(r["best_lap_s"]),
        ]
        if wide:  # the names the file gave, else the ids
            cells += [
                escape(r.get("driver_name") or r["driver_id"]),
                escape(r.get("car_name") or r["car_id"]),
                r["status"],
            ]
        tbl.add_row(*cells)
    console.print(tbl)
    if any(session_date(r)[1] for r in rows):
        console.print(
            "guess: the file carries no date; file time is when the file was last changed, import time when "
            "it was imported",
            soft_wrap=True,
        )


def laps_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id")],
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """List a session's laps."""
    settings = _settings(data_dir)
    session_id = session_or_exit(settings, session_id)
    rows = read_rows(
        settings,
        "SELECT * FROM laps WHERE session_id = ? ORDER BY lap",
        [session_id],
        lambda store: store.laps(session_id),
    )
    if as_json:
        _emit(rows)
        return
    tbl = Table("lap", "time", "kind", "valid", "distance m", "note")
    for r in rows:
        mark = " ★" if r["is_best"] else ""
        tbl.add_row(
            str(r["lap"]),
            _fmt_time(r["time_s"]) + mark,
            r["kind"],
            "yes" if r["valid"] else "no",
            f"{r['dist_m']:.0f}" if r["dist_m"] else "-",
            r["invalid_reason"] or "",
        )
    Console().print(tbl)


def simulate_cmd(
    track: Annotated[str, typer.Option("--track")] = "sonoma",
    laps: Annotated[int, typer.Option("--laps", min=1, max=200)] = 10,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    rate: Annotated[float, typer.Option("--rate", help="Sample rate, Hz (AiM-like: 10, 20, 50)")] = 50.0,
    out: Annotated[Path, typer.Option("--out", help="Output directory")] = Path("pitwall-sim"),
    clean: Annotated[bool, typer.Option("--clean", help="No injected mistakes: every lap clean")] = False,
    kinds: Annotated[
        str | None,
        typer.Option(
            "--kinds",
            help="Inject exactly these kinds (comma-separated, or 'all'), as far as the laps and corners allow; "
            "default: the seed draws them",
        ),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Simulate a session with injected mistakes: AiM CSV, candump log and ground-truth JSON."""
    from shared.simulator import Scenario, simulate, write_aim_csv, write_candump, write_ground_truth
    from shared.simulator.scenario import ALL_KINDS

    chosen = None if kinds is None else ALL_KINDS if kinds == "all" else [k.strip() for k in kinds.split(",")]
    bad = sorted(set(chosen or ()) - set(ALL_KINDS))
    if bad:
        raise typer.BadParameter(
            f"unknown kinds {bad}; known: {', '.join(ALL_KINDS)} or 'all'", param_hint="--kinds"
        )
    out.mkdir(parents=True, exist_ok=True)
    scenario = Scenario.clean(laps) if clean else None
    sim = simulate(track_id=track, laps=laps, seed=seed, rate_hz=rate, scenario=scenario, kinds=chosen)
    stem = f"sim_{track}_{laps}laps_seed{seed}{'_clean' if clean else ''}"
    files = {
        "aim_csv": write_aim_csv(sim, out / f"{stem}.csv"),
        "candump": write_candump(sim, out / f"{stem}.log"),
        "truth": write_ground_truth(sim, out / f"{stem}.truth.json"),
    }
    if as_json:
        _emit({k: str(v) for k, v in files.items()})
        return
    typer.echo(
        f"wrote {files['aim_csv']} (an AiM CSV to import or replay), {files['candump']} (the same as a CAN log)"
    )
    typer.echo(f"and {files['truth']} (what was injected where: brake points, minimum speeds, time lost)")


def sample_cmd(out: Annotated[Path, typer.Option("--out")] = Path("pitwall-sample")) -> None:
    """Write the bundled sample session (generated by the simulator) and print its path."""
    from shared.simulator import simulate, write_aim_csv

    out.mkdir(parents=True, exist_ok=True)
    p = write_aim_csv(simulate(laps=5, seed=1, rate_hz=20.0), out / "sample_sonoma.csv")
    sys.stdout.write(f"{p}\n")


gold_app = typer.Typer(help="Gold (reference) laps.", no_args_is_help=True)


@gold_app.command("save")
def gold_save(
    session_id: str,
    lap: int,
    track: Annotated[
        str | None, typer.Option("--track", help="Only to confirm: the session's own track is used")
    ] = None,
    driver: Annotated[str, typer.Option("--driver")] = "driver",
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace a faster gold lap or one from another car, save an out/in/invalid lap, or override the track",
        ),
    ] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Save a stored lap as the driver's gold lap for the session's track."""
    from shared.store.gold import save_gold_lap

    settings = _settings(data_dir)
    try:
        res = save_gold_lap(settings, track, driver, session_or_exit(settings, session_id), lap, force=force)
    except (FileNotFoundError, ValueError) as exc:
        err.print(f"[red]error[/red]: {exc}")
        raise typer.Exit(1) from exc
    if as_json:
        _emit(res.summary())
    else:
        typer.echo(res.summary()["message"])


@gold_app.command("import")
def gold_import(
    path: Path,
    track: Annotated[
        str | None, typer.Option("--track", help="Default: detected from the file's GPS")
    ] = None,
    driver: Annotated[str, typer.Option("--driver")] = "driver",
    lap: Annotated[int | None, typer.Option("--lap")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace your own gold lap, a faster one or one from another car")
    ] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Import a coach's lap from a logger file as the gold lap (through the running hot path, when one
    holds the store)."""
    from shared.hotpath_link import HotpathUnavailable
    from shared.importers import ImportFormatError
    from shared.store.gold import import_gold_lap
    from shared.store.hot import StoreLockedError

    try:
        res = import_gold_lap(_settings(data_dir), path, track, driver, lap, force=force)
    except (
        ImportFormatError,
        ValueError,
        FileNotFoundError,
        StoreLockedError,
        HotpathUnavailable,
    ) as exc:
        err.print(f"[red]error[/red]: {exc}")
        raise typer.Exit(1) from exc
    if as_json:
        _emit(res.summary())
    else:
        typer.echo(res.summary()["message"])


def register(app: typer.Typer) -> None:
    app.command("sessions")(sessions_cmd)
    app.command("laps")(laps_cmd)
    app.command("simulate")(simulate_cmd)
    app.command("sample")(sample_cmd)
    app.add_typer(gold_app, name="gold")

"""``pitwall gold list | show | clear``: the saved gold (reference) laps a driver can see and remove."""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

import typer
from rich.markup import escape

from shared.cli_data import AsJson, DataDir, _emit, _settings, err

Track = Annotated[str | None, typer.Option("--track", help="Track id (default: the driver's only gold lap)")]
Driver = Annotated[str, typer.Option("--driver", help="Driver id, as given to `gold save`")]


def gold_line(g: dict[str, Any]) -> str:
    """One gold lap in a driver's words: where, whose, which lap of which session, how fast, from what."""
    from shared.display import lap_time
    from shared.profiles.track import load_track

    where = str(g.get("track_id") or "?")
    with contextlib.suppress(KeyError, ValueError, OSError):  # a track this machine does not know: its id
        where = load_track(where).name
    if g.get("damaged"):
        return f"{where}: a gold lap file that cannot be read ({g['path']}); `pitwall gold clear` removes it"
    t = g.get("time_s")
    took = f" ({lap_time(float(t))})" if isinstance(t, int | float) else ""
    return (
        f"{where}: {g.get('driver_id')}'s gold lap is lap {g.get('lap')} of session {g.get('session_id')}"
        f"{took}, {g.get('source', 'own lap')}"
    )


def _pick(settings: Any, track: str | None, driver: str) -> dict[str, Any]:
    from shared.store.gold_list import gold_laps

    mine = [g for g in gold_laps(settings) if g.get("driver_id", driver) == driver or g.get("damaged")]
    if track is not None:
        mine = [g for g in mine if g.get("track_id") == track]
    if len(mine) == 1:
        return mine[0]
    if not mine:
        at = f" at {track}" if track else ""
        err.print(
            f"[red]error[/red]: {escape(driver)} has no gold lap{at}; see `pitwall gold list`", soft_wrap=True
        )
    else:
        tracks = ", ".join(sorted({str(g.get("track_id")) for g in mine}))
        err.print(
            f"[red]error[/red]: {escape(driver)} has gold laps at {tracks}: give --track", soft_wrap=True
        )
    raise typer.Exit(1)


def gold_list(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """List every gold lap: track, driver, the lap and session it came from, its time."""
    from shared.store.gold_list import gold_laps

    rows = gold_laps(_settings(data_dir))
    if as_json:
        _emit(rows)
        return
    if not rows:
        typer.echo("No gold laps yet: save one with `pitwall gold save SESSION LAP`.")
    for g in rows:
        typer.echo(gold_line(g))


def gold_show(
    track: Track = None, driver: Driver = "driver", data_dir: DataDir = None, as_json: AsJson = False
) -> None:
    """Show one gold lap: which lap of which session, its time and source, and whether that session is
    still stored."""
    from shared.store.gold import session_facts

    settings = _settings(data_dir)
    g = _pick(settings, track, driver)
    try:
        kept = bool(g.get("session_id")) and bool(session_facts(settings, str(g["session_id"])))
    except FileNotFoundError:
        kept = False
    if as_json:
        _emit({**g, "session_stored": kept})
        return
    typer.echo(gold_line(g))
    if not g.get("damaged"):
        typer.echo(
            "its session is stored (see `pitwall laps " + str(g.get("session_id")) + "`)"
            if kept
            else "its session was deleted, so the drive screen no longer compares with it (`pitwall gold clear` removes it)"
        )


def gold_clear(
    track: Track = None,
    driver: Driver = "driver",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation")] = False,
    data_dir: DataDir = None,
) -> None:
    """Remove a gold lap: the drive screen and the coach then use the session's own best lap."""
    import sys

    from shared.store.gold_list import clear_gold

    settings = _settings(data_dir)
    g = _pick(settings, track, driver)
    if not yes:
        if not sys.stdin.isatty():
            err.print("[red]error[/red]: confirm with --yes")
            raise typer.Exit(2)
        typer.confirm(f"Clear {gold_line(g)}?", abort=True)
    clear_gold(settings, g)
    typer.echo(f"cleared: {gold_line(g)}")


def register(app: typer.Typer) -> None:
    from shared.cli_data import gold_app

    gold_app.command("list")(gold_list)
    gold_app.command("show")(gold_show)
    gold_app.command("clear")(gold_clear)

"""``pitwall hotpath`` and ``pitwall voices build`` (``pitwall replay``: ``services.hotpath.cli_replay``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from services.hotpath.cli_replay import replay_cmd

err = Console(stderr=True)


def hotpath_cmd(
    host: Annotated[
        str | None, typer.Option("--host", help="Bind address (default PITWALL_HOTPATH_HOST)")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port (default PITWALL_HOTPATH_PORT)")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
    can: Annotated[
        str | None, typer.Option("--can", help="slcan:/dev/ttyACM0 | socketcan:can0 | virtual:NAME")
    ] = None,
) -> None:
    """Run the in-car hot path service (live ingest, RuleCoach, CoachArbiter, cue stream)."""
    from services.hotpath.app import create_app
    from shared.profiles.track import use_data_dir
    from shared.serve import PortTaken, listen, serve
    from shared.settings import settings_for

    overrides: dict[str, object] = {}
    if host:
        overrides["hotpath_host"] = host
    if port:
        overrides["hotpath_port"] = port
    try:
        settings = settings_for(data_dir, **overrides)
        if can:
            from services.hotpath.can_reader import parse_can_spec

            parse_can_spec(can)
    except ValueError as exc:
        err.print(f"[red]error[/red]: {exc}")
        raise typer.Exit(2) from exc
    if settings.lake_is_s3:
        from shared.lake_url import LakeUnavailable, check_s3_lake

        try:
            check_s3_lake(settings)
        except LakeUnavailable as exc:
            if exc.reachable:  # the server answered and refused: nothing could ever be uploaded
                err.print(f"[red]error[/red]: {escape(str(exc))}", soft_wrap=True)
                raise typer.Exit(2) from exc
            # no signal (a car in the paddock): the spool keeps every file until the server answers
            err.print(f"[yellow]warning[/yellow]: {escape(str(exc))}; files wait in {settings.spool_dir}")
    settings.ensure_dirs()
    from shared.store.hot import store_locked

    if store_locked(settings):
        from shared.hotpath_link import hotpath_url

        url = hotpath_url(settings)
        where = f" (a hot path at {url})" if url else ""
        err.print(
            f"[red]error[/red]: {settings.hot_db_path} is already in use by another process{where}: "
            "one hot path per data directory; stop it or give another --data-dir",
            soft_wrap=True,
        )
        raise typer.Exit(1) from None
    try:
        sock = listen(settings.hotpath_host, settings.hotpath_port, "the hot path")
    except PortTaken as exc:
        err.print(f"[red]error[/red]: {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from None
    use_data_dir(settings.data_dir)  # stored tracks: this service's, whatever code asks for one
    err.print(f"drive screen: {drive_address(settings.hotpath_host, settings.hotpath_port)}", soft_wrap=True)
    serve(
        create_app(settings, can=can),
        sock,
        log_level="info",
        ws_max_size=16 * 1024 * 1024,
        timeout_graceful_shutdown=3,
        ws_per_message_deflate=False,
    )  # deflate costs more CPU than loopback/LAN bandwidth


def drive_address(host: str, port: int) -> str:
    """The drive screen's address as a phone or this machine opens it."""
    if host in ("0.0.0.0", "::", ""):  # every interface: the phone uses this machine's own address
        return f"http://127.0.0.1:{port}/drive on this machine, http://<this machine's address>:{port}/drive on a phone"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/drive"


def voices_build_cmd(
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
    track: Annotated[
        list[str] | None,
        typer.Option(
            "--track",
            help="Only these tracks (default: every bundled track); voices of other tracks built earlier are kept",
        ),
    ] = None,
    wpm: Annotated[int, typer.Option("--wpm", min=80, max=450, help="Speaking rate, words a minute")] = 300,
    voice: Annotated[str, typer.Option("--voice", help="espeak-ng voice")] = "en-us",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a summary")] = False,
) -> None:
    """Pre-render every phrase x corner of the phrase library to audio the drive screen plays."""
    from rich.progress import Progress

    from services.hotpath.voices import VoiceEngineMissing, build
    from shared.settings import settings_for

    try:
        settings = settings_for(data_dir)
        with Progress(console=err, transient=True) as bar:
            task = bar.add_task("rendering phrases", total=None)
            m = build(
                settings.data_dir,
                track or None,
                wpm,
                voice,
                progress=lambda i, n: bar.update(task, completed=i, total=n),
            )
    except VoiceEngineMissing as exc:
        err.print(f"[red]error[/red]: {exc}")
        raise typer.Exit(1) from exc
    except (KeyError, ValueError, RuntimeError) as exc:
        err.print(f"[red]error[/red]: {str(exc).strip(chr(34))}")
        raise typer.Exit(2) from exc
    from services.hotpath.phrases import Phrase

    entries = m["entries"].values()
    ms = sorted(e["ms"] for e in entries)
    # the arbiter times cues with its own speaking budget (Phrase.speak_s); audio longer than that ends later
    over = [e["ms"] - 1000 * Phrase("", t).speak_s for t, e in m["entries"].items()]
    over = [x for x in over if x > 0]
    summary = {
        "phrases": len(ms),
        "bytes": sum(e["bytes"] for e in entries),
        "ms_median": ms[len(ms) // 2] if ms else None,
        "ms_max": ms[-1] if ms else None,
        "longer_than_arbiter_budget": len(over),
        "max_ms_over_budget": round(max(over)) if over else 0,
        "engine": m["engine"],
        "tracks": m["tracks"],
        "dir": str(settings.data_dir / "voices"),
    }
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
        return
    typer.echo(
        f"{len(ms)} phrases rendered with {str(m['engine']).split(':')[0]} into {summary['dir']} "
        f"({summary['bytes'] / 1e6:.1f} MB; median {summary['ms_median']} ms, longest {summary['ms_max']} ms)"
    )
    if over:
        typer.echo(
            f"{len(over)} take longer to say than the coach allows for them (up to {summary['max_ms_over_budget']} ms "
            "more): those cues end that much later than planned; a higher --wpm shortens them"
        )


def register(app: typer.Typer) -> None:
    app.command("hotpath")(hotpath_cmd)
    app.command("replay")(replay_cmd)
    voices = typer.Typer(help="Pre-rendered cue audio for the drive screen.", no_args_is_help=True)
    voices.command("build")(voices_build_cmd)
    app.add_typer(voices, name="voices")

"""``pitwall replay``: a logger file or a simulated session played as live frames to a hot path."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

err = Console(stderr=True)


def _clock(s: float) -> str:
    m, sec = divmod(int(s), 60)
    return f"{m}:{sec:02d}"


def replay_cmd(
    file: Annotated[Path | None, typer.Argument(help="Any importable logger file (omit with --sim)")] = None,
    speed: Annotated[float, typer.Option("--speed", help="N x real time (0 = as fast as possible)")] = 1.0,
    to: Annotated[
        str, typer.Option("--to", help="ws://HOST:PORT/ingest/ws or can:INTERFACE:CHANNEL")
    ] = "ws://127.0.0.1:8710/ingest/ws",
    sim: Annotated[bool, typer.Option("--sim", help="Replay a simulated session instead of a file")] = False,
    laps: Annotated[int, typer.Option("--laps")] = 5,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    car: Annotated[str | None, typer.Option("--car")] = None,
    driver: Annotated[str, typer.Option("--driver")] = "driver",
    track: Annotated[
        str | None,
        typer.Option(
            "--track",
            help="Track id (default: detected from the file's GPS, as pitwall import does; --sim: sonoma)",
        ),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Where detected tracks are stored (default: data dir)")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token", envvar="PITWALL_API_TOKEN", help="Bearer token for a hot path beyond loopback"
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a summary")] = False,
) -> None:
    """Play a logger file or a simulated session as live frames at N x real time."""
    from services.hotpath.replay import load_for_replay, replay_can, replay_ws, session_start
    from shared.profiles.track import TrackProfile, load_track
    from shared.settings import settings_for

    track_p: TrackProfile | None
    try:
        settings = settings_for(data_dir)
        if sim:
            from shared.simulator import simulate

            s = simulate(track_id=track or "sonoma", laps=laps, seed=seed, rate_hz=50.0)
            wide, car_id = s.wide, s.meta["car_id"]
            track_p = s.track or load_track(s.meta["track_id"], settings.data_dir)
        elif file is not None:
            from shared.importers import ImportFormatError

            try:
                wide, car_id, track_p = load_for_replay(file, car, settings.data_dir, track)
            except ImportFormatError as exc:
                err.print(f"[red]error[/red]: {exc}")
                raise typer.Exit(1) from exc
        else:
            err.print("[red]error[/red]: give a FILE or --sim")
            raise typer.Exit(2)
    except (KeyError, ValueError) as exc:
        err.print(f"[red]error[/red]: {str(exc).strip(chr(34))}")
        raise typer.Exit(2) from exc
    if to.startswith("can:"):
        n = replay_can(wide, to[4:], speed)
        if as_json:
            sys.stdout.write(json.dumps({"can_frames_sent": n}) + "\n")
        else:
            typer.echo(f"sent {n:,} CAN frames to {to[4:]}")
        return
    err.print(
        f"track: {track_p.name} ({track_p.id})" if track_p else "track: none (no GPS lap to find it from)"
    )
    start = session_start(driver, car_id, track_p)
    import httpx
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
    from websockets.exceptions import WebSocketException

    t0 = float(wide["t_s"][0])
    total = max(float(wide["t_s"][-1]) - t0, 1e-3)
    progress = Progress(
        TextColumn("replay {task.fields[speed]}"),
        BarColumn(),
        TextColumn("{task.fields[clock]} of {task.fields[length]}  {task.fields[frames]} frames"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    task = progress.add_task(
        "replay", total=total, speed=f"{speed:g}x", clock="0:00", length=_clock(total), frames=0
    )
    sent = {"frames": 0}

    def on_batch(b: dict[str, Any]) -> None:
        sent["frames"] += int(b["ack"].get("accepted", 0))
        done = float(b["last"]["t_s"]) - t0
        progress.update(task, completed=done, clock=_clock(done), frames=f"{sent['frames']:,}")

    try:
        with progress:
            res = asyncio.run(replay_ws(wide, to, speed, start=start, on_batch=on_batch, token=token))
    except httpx.HTTPStatusError as exc:
        code = exc.response.status_code
        hint = " (give --token or set PITWALL_API_TOKEN)" if code in (401, 403) else ""
        err.print(f"[red]error[/red]: the hot path at {to} answered {code}{hint}")
        raise typer.Exit(1) from exc
    except (OSError, httpx.TransportError, WebSocketException) as exc:
        err.print(f"[red]error[/red]: cannot stream to {to}: {exc}")
        raise typer.Exit(1) from exc
    if as_json:
        out = {k: v for k, v in res.items() if k != "live"} | {"laps": res["live"]["laps"]}
        sys.stdout.write(json.dumps(out, default=str) + "\n")
        return
    typer.echo(replay_summary(res))


def replay_summary(res: dict[str, Any]) -> str:
    """What a replay did, in a line or two: the session, frames taken and refused, laps and the best."""
    from shared.display import lap_time

    laps = res["live"].get("laps") or []
    full = [lp for lp in laps if lp.get("kind") == "full"]
    times = [
        lp["time_s"] for lp in full if lp.get("valid", True) and isinstance(lp.get("time_s"), int | float)
    ]
    refused = sum(int(v) for v in (res.get("rejected") or {}).values())
    line = f"session {res['session_id']}: {res['accepted']:,} frames taken"
    line += f", {refused:,} refused ({', '.join(sorted(res['rejected']))})" if refused else ""
    line += f"; {len(full)} full lap{'s' * (len(full) != 1)} of {len(laps)}"
    return line + (f", best {lap_time(min(times))}" if times else "")

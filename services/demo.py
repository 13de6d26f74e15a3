"""``pitwall demo``: the hot path and the paddock as two processes, a simulated session (or --file) replayed
live at 20x with a terminal view of laps, corners and cues, then the debrief streamed over SSE. No LLM needed; ``--llm embedded`` starts a small local one."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from services.demo_live import run_replay, stream_debrief, wait_healthy
from services.demo_view import print_summary

# kinds that fit a short session's mistake window (laps 3-4 of 5): the demo always has something to find
DEMO_KINDS = ("late_brake", "coasting", "oil_pressure_drop")


def demo_cmd(
    file: Annotated[
        Path | None, typer.Option("--file", help="Replay a real logger file instead of a simulation")
    ] = None,
    laps: Annotated[int, typer.Option("--laps", min=1, max=30)] = 5,
    speed: Annotated[float, typer.Option("--speed", help="Replay speed, x real time")] = 20.0,
    seed: Annotated[int, typer.Option("--seed")] = 7,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Keep the data here (default: a temp dir)")
    ] = None,
    keep: Annotated[
        bool,
        typer.Option(
            "--keep", help="Leave the hot path and the paddock running (the summary says how to stop them)"
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
    llm: Annotated[
        str,
        typer.Option(
            "--llm",
            help="'url' (default): the model server at PITWALL_ADK_OPENAI_URL, else the template narrator; "
            "'embedded': the paddock starts llama.cpp's server with SmolLM2-135M itself (needs the optional 'llm' extra)",
        ),
    ] = "url",
) -> None:
    """See Pitwall work: hot path process, live replay with cues, debrief and summary."""
    from services.hotpath.replay import load_for_replay, replay_ws, session_start
    from shared.importers import ImportFormatError
    from shared.netutil import free_port
    from shared.profiles.track import load_track
    from shared.simulator import injected_lines, simulate

    console = Console(stderr=as_json)
    if llm not in ("url", "embedded"):
        console.print(f"[red]error[/red]: --llm must be 'url' or 'embedded', not {llm!r}")
        raise typer.Exit(2)
    if llm == "embedded":
        from rich.markup import escape

        from services.paddock.llm.embedded import missing_reason

        reason = missing_reason()
        if reason:
            console.print(f"[red]error[/red]: --llm embedded: {escape(reason)}")
            raise typer.Exit(2)
    tmp = None
    injected: list[str] = []  # a real file: nothing injected
    if data_dir is None:
        tmp = tempfile.mkdtemp(prefix="pitwall-demo-")
        data_dir = Path(tmp)
    try:  # a --data-dir that does not exist yet is created, as `pitwall hotpath --data-dir` does
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        console.print(f"[red]error[/red]: --data-dir {data_dir}: {exc.strerror or exc}")
        raise typer.Exit(2) from exc
    t_start = time.monotonic()
    if file is not None:
        try:  # the track as pitwall import finds it (stored in the demo's data dir), never a default
            wide, car, track = load_for_replay(file, None, data_dir)
        except ImportFormatError as exc:
            console.print(f"[red]error[/red]: {exc}")
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
            raise typer.Exit(1) from exc
        where = f"{track.name} ({track.id})" if track else "no track found (no GPS lap)"
        title = f"{file.name} at {where}"
    else:
        # mistakes that fit a short session's mistake window (two laps in five), so the demo has
        # something to find; the title says what was injected, or that every lap is clean
        sim = simulate(laps=laps, seed=seed, rate_hz=20.0, kinds=DEMO_KINDS)
        wide, car, track = sim.wide, sim.meta["car_id"], sim.track or load_track(sim.meta["track_id"])
        injected = injected_lines(sim.scenario.events if sim.scenario else [])
        title = f"simulated {track.name}, {laps} laps, " + (
            "injected: " + "; ".join(injected)
            if injected
            else "every lap clean (no mistake fits so few laps)"
        )
    start = session_start("demo", car, track)
    port, pport = free_port(), free_port()
    import subprocess

    log = (data_dir / "hotpath.log").open("w")
    proc = subprocess.Popen(
        # -P: the current directory is not searched first, so a folder named like a module (a
        # ``shared`` data folder beside the repo) cannot stand in for Pitwall's own package
        [
            sys.executable,
            "-P",
            "-m",
            "shared.cli",
            "hotpath",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    plog = (data_dir / "paddock.log").open("w")
    pproc = subprocess.Popen(
        [
            sys.executable,
            "-P",
            "-m",
            "shared.cli",
            "paddock",
            "--port",
            str(pport),
            "--data-dir",
            str(data_dir),
            "--llm",
            llm,
        ],
        stdout=plog,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    purl = f"http://127.0.0.1:{pport}"
    try:
        wait_healthy(url, proc, data_dir / "hotpath.log", "hot path")
        try:
            wait_healthy(
                purl, pproc, data_dir / "paddock.log", "paddock", 300 if llm == "embedded" else 120
            )  # the embedded model loads first
        except typer.Exit:
            plog.flush()
            tail = (data_dir / "paddock.log").read_text(errors="replace").strip().splitlines()[-3:]
            console.print("[red]the paddock did not start[/red]: " + " | ".join(tail))
            raise
        console.print(
            f"[bold]Pitwall demo[/bold]: {title}; hot path at {url} (pid {proc.pid}); replay at {speed:g}x"
        )
        state: dict[str, Any] = {"cues": [], "spoken": 0, "dropped": 0, "current": {}, "best": None}
        state["names"] = {c.id: c.name for c in track.corners} if track else {}
        state["planned"] = None if file is not None else laps  # a simulated session's laps are known
        res = asyncio.run(run_replay(url, port, wide, start, speed, state, console, as_json, replay_ws))
        debrief = stream_debrief(purl, res["session_id"], console, as_json)
        live = res["live"]
        summary = {
            "session_id": res["session_id"],
            "track": {"id": track.id, "name": track.name, "corners": len(track.corners)} if track else None,
            "laps": sum(1 for lp in live["laps"] if lp["kind"] == "full"),
            "best_lap_s": live["best_lap_s"],
            "cues_spoken": state["spoken"],
            "cues_dropped": state["dropped"],
            "focus_items": debrief["focus_items"],
            "injected": injected,
            "debrief": debrief,
            "seconds": round(time.monotonic() - t_start, 1),
            "data_dir": str(data_dir),
            "services_running": keep,
        }
        if keep:  # an address only while something answers at it
            summary |= {"app_url": f"{purl}/#/session/{res['session_id']}", "drive_url": f"{url}/drive"}
        if as_json:
            sys.stdout.write(json.dumps(summary, default=str) + "\n")
        else:
            print_summary(console, summary)
        if keep:
            console.print(
                f"still running: hot path {url} (pid {proc.pid}), paddock {purl} (pid {pproc.pid}); data in {data_dir}"
            )
            console.print(f"tablet app: [bold]{summary['app_url']}[/bold]")
            console.print(f"drive screen (the phone in the car): [bold]{summary['drive_url']}[/bold]")
            console.print(f"stop them with: kill {proc.pid} {pproc.pid}")
        elif not as_json:  # the services stop with the demo: no address that would not answer
            console.print(
                "the services have stopped; run with --keep to open the tablet app and the drive screen"
            )
    finally:
        if not keep:
            for p in (proc, pproc):
                p.terminate()
            for p in (proc, pproc):
                p.wait(timeout=15)
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_cmd)

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
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

# kinds that fit a short session's mistake window (laps 3-4 of 5): the demo always has something to find
DEMO_KINDS = ("late_brake", "coasting", "oil_pressure_drop")


def _fmt(s: float | None) -> str:
    from shared.display import lap_time

    return lap_time(s)


def _corner(cid: str | None, names: dict[str, str]) -> str:
    from shared.display import corner_name

    return names.get(cid or "") or corner_name(cid)


def lap_words(lap: int, planned: int | None) -> str:
    """The lap in progress as a driver counts it: the out-lap before the first crossing, "lap 3 of 5",
    and the in-lap after the last planned lap (a simulated session's laps are known; a file's are not)."""
    if lap <= 0:
        return "out-lap"
    if planned is None:
        return f"lap {lap}"
    return "in-lap" if lap > planned else f"lap {lap} of {planned}"


def _view(state: dict[str, Any]) -> Panel:
    cur = state.get("current", {})
    names = state.get("names", {})
    # inside the panel, where it wraps at the border (a title is cut at the frame of a narrow terminal)
    status = Text.assemble(
        (lap_words(int(cur.get("lap") or 0), state.get("planned")), "bold"),
        " · ",
        (_corner(cur.get("corner"), names), "bold"),
        f" · {(cur.get('speed_kmh') or 0):.0f} km/h · best lap {_fmt(state.get('best'))}",
    )
    tbl = Table("lap", "corner", "status", "cue / reason", expand=True)
    for c in state["cues"][-12:]:
        style = "green" if c["status"] == "spoken" else "yellow"
        tbl.add_row(
            str(c["lap"]),
            _corner(c.get("corner"), names),
            f"[{style}]{c['status']}[/{style}]",
            c["text"] if c["status"] == "spoken" else f"{c['text']}  ({c.get('reason')})",
        )
    return Panel(
        Group(status, tbl),
        title="in the car",
        subtitle=f"{state['spoken']} spoken, {state['dropped']} dropped",
    )


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
        _wait(url, proc, data_dir / "hotpath.log", "hot path")
        try:
            _wait(
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
        res = asyncio.run(_run(url, port, wide, start, speed, state, console, as_json, replay_ws))
        debrief = _stream_debrief(purl, res["session_id"], console, as_json)
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
            _print_summary(console, summary)
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


def _stream_debrief(purl: str, session_id: str, console: Console, quiet: bool) -> dict[str, Any]:
    """The debrief over SSE from the paddock: the LLM if one answers, else the labelled template narrator."""
    import httpx
    from httpx_sse import connect_sse

    done: dict[str, Any] = {}
    streamed = False
    if not quiet:
        console.print("[bold]Debrief[/bold] (streamed from the paddock):")
    with (
        httpx.Client(timeout=120) as c,
        connect_sse(
            c,
            "POST",
            f"{purl}/coach/debrief",
            json={"session_id": session_id, "driver_id": "demo"},
            headers={"Accept": "text/event-stream"},
        ) as es,
    ):
        for sse in es.iter_sse():
            if not sse.data:  # a ": keepalive" comment (a real model can take longer than 15 s)
                continue
            data = json.loads(sse.data)
            if sse.event == "phase" and not quiet and data.get("status") == "finished":
                console.print(f"  [dim]the data read in {data['ms'] / 1000:.1f} s[/dim]")
            elif sse.event == "data" and not quiet:
                console.print(
                    f"  [dim]data: {str(data['key']).removesuffix('_data').replace('_', ' ')}[/dim]"
                )
            elif sse.event == "token" and not quiet:
                streamed = True
                console.print(data["text"], end="")
            elif sse.event in ("done", "error"):
                done = data
    if not quiet:  # the text once: streamed above, else printed now; then who wrote it
        if streamed:
            console.print()
        elif done.get("text"):
            console.print(done["text"])
        if done.get("narrator") not in (None, "llm"):
            console.print(f"  [yellow]written from your data, not by a model[/yellow]{_why_not_model(done)}")
    return {
        "text": done.get("text", ""),
        "focus_items": done.get("focus_items", []),
        "narrator": done.get("narrator", "none"),
        "reason": done.get("reason"),
        "emotion": done.get("emotion"),
    }


def _wait(url: str, proc: Any, log_path: Path, name: str, timeout_s: float = 60) -> None:
    """Until the service answers /health; if it stops or never answers, say so with its log's last lines."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _failed(f"the {name} stopped before it answered (exit code {proc.returncode})", log_path)
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    _failed(f"the {name} did not answer within {timeout_s:.0f} s", log_path)


def _failed(what: str, log_path: Path) -> NoReturn:
    try:
        tail = log_path.read_text(errors="replace").strip().splitlines()[-6:]
    except OSError:
        tail = []
    typer.echo(f"pitwall demo: {what}; its log: {log_path}", err=True)
    for line in tail:
        typer.echo(f"  {line}", err=True)
    raise typer.Exit(1)


async def _run(
    url: str,
    port: int,
    wide: Any,
    start: dict[str, Any],
    speed: float,
    state: dict[str, Any],
    console: Console,
    quiet: bool,
    replay_ws: Any,
) -> dict[str, Any]:
    import httpx

    async def listen() -> None:
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(5, read=None)) as c,
            c.stream("GET", f"{url}/cues/stream") as r,
        ):
            event = None
            async for line in r.aiter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and event in ("cue", "dropped"):
                    d = json.loads(line[5:])
                    state["cues"].append(d)
                    state["spoken" if d["status"] == "spoken" else "dropped"] += 1

    task = asyncio.create_task(listen())
    await asyncio.sleep(0.3)
    live_cm = (
        Live(_view(state), console=console, refresh_per_second=4, transient=False) if not quiet else None
    )

    async def poll(sid_box: dict[str, str]) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=5) as c:
            while True:
                await asyncio.sleep(0.25)
                sid = sid_box.get("sid")
                if not sid:
                    h = (await c.get("/health")).json()
                    sid_box["sid"] = h.get("active_session") or ""
                    continue
                r = await c.get(f"/sessions/{sid}/live")
                if r.status_code == 200:
                    v = r.json()
                    state["current"] = v["current"]
                    state["best"] = v["best_lap_s"]
                    if live_cm is not None:
                        live_cm.update(_view(state))

    box: dict[str, str] = {}
    poller = asyncio.create_task(poll(box))
    try:
        if live_cm is not None:
            live_cm.start()
        res: dict[str, Any] = await replay_ws(
            wide,
            f"ws://127.0.0.1:{port}/ingest/ws",
            speed,
            start=start,
        )
        await asyncio.sleep(0.5)
    finally:
        poller.cancel()
        task.cancel()
        if live_cm is not None:
            live_cm.update(_view(state))
            live_cm.stop()
    return res


def _print_summary(console: Console, s: dict[str, Any]) -> None:
    d = s["debrief"]
    tbl = Table.grid(padding=(0, 2))
    tr = s.get("track")
    tbl.add_row("track", f"{tr['name']} ({tr['id']}, {tr['corners']} corners)" if tr else "none found")
    tbl.add_row("laps", str(s["laps"]))
    tbl.add_row("best lap", _fmt(s["best_lap_s"]))
    tbl.add_row("cues", f"{s['cues_spoken']} spoken, {s['cues_dropped']} dropped")
    if s.get("injected"):
        tbl.add_row("injected", "\n".join(s["injected"]))
    tbl.add_row("focus", "\n".join(s["focus_items"]) or "-")
    tbl.add_row("written by", "the model" if d["narrator"] == "llm" else f"your data{_why_not_model(d)}")
    tbl.add_row("took", f"{s['seconds']} s")
    console.print(Panel(tbl, title="Pitwall demo summary"))


def _why_not_model(done: dict[str, Any]) -> str:
    """Why a debrief is not the model's, in a driver's words: no model server answering is said as that
    (its address and error stay in ``--json`` and the paddock's log); another reason as it is."""
    reason = str(done.get("reason") or "")
    if not reason:
        return ""
    if "model server" in reason or "ConnectError" in reason:
        return ": no model is answering (start one, or try --llm embedded)"
    return f": {reason}"


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_cmd)

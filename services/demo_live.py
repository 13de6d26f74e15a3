"""``pitwall demo`` talking to its two services: waiting until each answers (or saying why not, with its log),
the live replay over the hot path's WebSocket with the cue stream and the live state polled into the view, and
the paddock's debrief over SSE."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.live import Live

from services.demo_view import view, why_not_model


def stream_debrief(purl: str, session_id: str, console: Console, quiet: bool) -> dict[str, Any]:
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
            console.print(f"  [yellow]written from your data, not by a model[/yellow]{why_not_model(done)}")
    return {
        "text": done.get("text", ""),
        "focus_items": done.get("focus_items", []),
        "narrator": done.get("narrator", "none"),
        "reason": done.get("reason"),
        "emotion": done.get("emotion"),
    }


def wait_healthy(url: str, proc: Any, log_path: Path, name: str, timeout_s: float = 60) -> None:
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


async def run_replay(
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
    live_cm = Live(view(state), console=console, refresh_per_second=4, transient=False) if not quiet else None

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
                        live_cm.update(view(state))

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
            live_cm.update(view(state))
            live_cm.stop()
    return res

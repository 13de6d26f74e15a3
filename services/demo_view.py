"""What ``pitwall demo`` shows in the terminal: the live "in the car" panel (the lap as a driver counts it,
the corner, the cues spoken and dropped) and the closing summary, in the driver's words."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text


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


def view(state: dict[str, Any]) -> Panel:
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


def print_summary(console: Console, s: dict[str, Any]) -> None:
    d = s["debrief"]
    tbl = Table.grid(padding=(0, 2))
    tr = s.get("track")
    how = "its corners found from your laps, " if tr and str(tr["id"]).startswith("auto-") else ""
    tbl.add_row("track", f"{tr['name']} ({how}{tr['corners']} corners)" if tr else "none found")
    tbl.add_row("laps", str(s["laps"]))
    tbl.add_row("best lap", _fmt(s["best_lap_s"]))
    tbl.add_row("cues", f"{s['cues_spoken']} spoken, {s['cues_dropped']} dropped")
    if s.get("injected"):
        tbl.add_row("injected", "\n".join(s["injected"]))
    tbl.add_row("focus", "\n".join(s["focus_items"]) or "-")
    tbl.add_row("written by", "the model" if d["narrator"] == "llm" else f"your data{why_not_model(d)}")
    tbl.add_row("took", f"{s['seconds']} s")
    console.print(Panel(tbl, title="Pitwall demo summary"))


def why_not_model(done: dict[str, Any]) -> str:
    """Why a debrief is not the model's, in a driver's words: no model server answering is said as that
    (its address and error stay in ``--json`` and the paddock's log); another reason as it is."""
    reason = str(done.get("reason") or "")
    if not reason:
        return ""
    if "model server" in reason or "ConnectError" in reason:
        return ": no model is answering (start one, or try --llm embedded)"
    return f": {reason}"

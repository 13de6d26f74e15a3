"""The in-car drive screen (``GET /drive``) and the pre-rendered cue audio it plays (``/voices/*``).

Served by the hot path itself, so a phone in the car needs nothing else. The page is one HTML response
(the script, and the tablet's DOM helper ``static/dom.js``, are inlined at serve time, so a client that passes ``?token=`` needs no second authorised
request); its service worker (``/drive/sw.js``, scope ``/drive``) keeps the page and the voices for
offline use.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, Response

from services.hotpath.deps import State
from services.hotpath.voices import load_manifest, voices_dir

router = APIRouter(tags=["drive"])
_VOICE_FILE = re.compile(r"^[0-9a-f]{16}\.wav$")
_NO_STORE = {"Cache-Control": "no-cache"}


@cache
def _asset(name: str) -> str:
    return resources.files("services.hotpath.web").joinpath(name).read_text(encoding="utf-8")


@cache
def _dom_js() -> str:
    """The one DOM helper of every page (the tablet's ``static/dom.js``), inlined like the drive script."""
    return resources.files("services.paddock.web").joinpath("static/dom.js").read_text(encoding="utf-8")


def drive_html() -> str:
    html = _asset("drive.html")
    return (
        html.replace("/*DRIVE_CSS*/", _asset("drive.css"))
        .replace("/*DOM_JS*/", _dom_js())
        .replace("/*DRIVE_JS*/", _asset("drive.js"))
    )


@router.get("/drive", response_class=HTMLResponse)
def drive() -> HTMLResponse:
    """The drive screen: cues spoken before their deadline, the predictive delta, the last lap."""
    return HTMLResponse(drive_html(), headers=_NO_STORE)


@router.get("/drive/sw.js")
def drive_sw() -> Response:
    """The drive screen's service worker (scope ``/drive``): the page and the voices, offline."""
    return Response(
        _asset("drive-sw.js"),
        media_type="text/javascript",
        headers={**_NO_STORE, "Service-Worker-Allowed": "/"},
    )


@router.get("/drive/manifest.webmanifest")
def drive_manifest() -> Response:
    return Response(_asset("drive.webmanifest"), media_type="application/manifest+json")


@router.get("/voices/manifest.json")
def voices_manifest(state: State) -> dict[str, Any]:
    """Cue text -> pre-rendered audio file; ``entries`` is empty until ``pitwall voices build`` ran."""
    m = load_manifest(state.settings.data_dir)
    if m is None:
        return {"available": False, "entries": {}, "hint": "run `pitwall voices build`"}
    entries = {t: {"url": f"/voices/{e['file']}", "ms": e.get("ms")} for t, e in m["entries"].items()}
    return {"available": True, "engine": m.get("engine"), "wpm": m.get("wpm"), "entries": entries}


@router.get("/voices/{name}")
def voice_file(name: str, state: State) -> FileResponse:
    """One pre-rendered phrase (immutable: its name is a hash of its text)."""
    path = voices_dir(state.settings.data_dir) / name
    if not _VOICE_FILE.match(name) or not path.is_file():
        raise HTTPException(404, detail=f"no voice file {name!r}")
    return FileResponse(
        path, media_type="audio/wav", headers={"Cache-Control": "max-age=31536000, immutable"}
    )

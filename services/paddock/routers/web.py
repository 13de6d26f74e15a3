"""The tablet PWA at ``/``: the shell, its service worker and manifest. Static files only, no data."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).resolve().parents[1] / "web"
SHELL_PATHS = (
    "/",
    "/sw.js",
    "/manifest.webmanifest",
)  # with /static/*: open without a token (no data in them)

router = APIRouter(include_in_schema=False)


def static_files() -> StaticFiles:
    return StaticFiles(directory=WEB / "static")


@router.get("/")
def index() -> FileResponse:
    return FileResponse(WEB / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.get("/sw.js")
def service_worker() -> FileResponse:
    return FileResponse(
        WEB / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get("/manifest.webmanifest")
def manifest() -> FileResponse:
    return FileResponse(WEB / "manifest.webmanifest", media_type="application/manifest+json")


def is_shell(method: str, path: str) -> bool:
    return method in ("GET", "HEAD") and (path in SHELL_PATHS or path.startswith("/static/"))

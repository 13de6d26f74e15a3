"""Reaching the hot path that holds a data directory's DuckDB file, so a CLI import goes through it.

The hot path writes ``<data_dir>/hotpath.json`` (its URL and pid) when it starts and removes it when it
stops; ``pitwall import`` and ``pitwall gold import`` read it when the store is locked and hand the file
to ``POST /imports`` (bearer token from ``PITWALL_API_TOKEN`` when the hot path is beyond loopback).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from shared.settings import Settings

RUNTIME_FILE = "hotpath.json"


class HotpathUnavailable(RuntimeError):
    """The store is locked and no hot path for this data directory takes the import."""


def runtime_path(settings: Settings) -> Path:
    return settings.data_dir / RUNTIME_FILE


def announce(settings: Settings) -> Path:
    """Called by the hot path at start-up: where it listens, for CLI commands on the same data dir."""
    host = settings.hotpath_host
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    if ":" in host:
        host = f"[{host}]"
    p = runtime_path(settings)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps({"url": f"http://{host}:{settings.hotpath_port}", "pid": os.getpid()}))
    tmp.replace(p)
    return p


def withdraw(settings: Settings) -> None:
    p = runtime_path(settings)
    try:
        if json.loads(p.read_text()).get("pid") == os.getpid():
            p.unlink()
    except (OSError, ValueError):
        return


def hotpath_url(settings: Settings) -> str | None:
    try:
        info = json.loads(runtime_path(settings).read_text())
    except (OSError, ValueError):
        return settings.hotpath_url
    url = info.get("url") if isinstance(info, dict) else None
    return str(url) if url else settings.hotpath_url


def import_through_hotpath(
    settings: Settings, path: Path, driver: str | None, car: str | None, track: str | None, mine: bool = False
) -> dict[str, Any]:
    """``pitwall import`` of one file by the running hot path; its JSON answer (as ``--json``)."""
    import httpx

    url = hotpath_url(settings)
    held = f"{settings.hot_db_path} is held by another process"
    if not url:
        raise HotpathUnavailable(f"{held}, and no running hot path announced itself in {settings.data_dir}")
    params = {"name": path.name, "source": str(path.resolve())}
    params |= {k: v for k, v in (("driver", driver), ("car", car), ("track", track)) if v}
    params |= {"mine": "true"} if mine else {}
    token = settings.api_token.get_secret_value() if settings.api_token else None
    headers = {"Content-Type": "application/octet-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        r = httpx.post(
            f"{url}/imports",
            params=params,
            content=path.read_bytes(),
            headers=headers,
            timeout=httpx.Timeout(10, read=settings.import_time_budget_s + 60),
        )
    except httpx.HTTPError as exc:
        raise HotpathUnavailable(f"{held}; the hot path at {url} did not take the import: {exc}") from None
    if r.status_code == 200:
        return dict(r.json())
    try:
        body = r.json()
        detail = body.get("detail") or body.get("error") or body
        msg = detail.get("message") if isinstance(detail, dict) else str(detail)
    except ValueError:
        msg = r.text[:300]
    hint = " (set PITWALL_API_TOKEN)" if r.status_code in (401, 403) else ""
    raise HotpathUnavailable(
        f"{msg}{hint}" if r.status_code == 422 else f"the hot path at {url}: {msg}{hint}"
    )


def import_anywhere(
    path: Path,
    settings: Settings,
    driver: str | None = None,
    car: str | None = None,
    track: str | None = None,
    progress: Any = None,
    channel_map: Path | None = None,
    mine: bool = False,
) -> Any:
    """``shared.ingest.import_file``, or, while a running hot path holds the store, the same import
    through it (``POST /imports``, with the hot path's own ``<data>/channels.yaml``). Returns an
    ImportResult either way."""
    from shared.ingest import ImportResult, import_file
    from shared.store.hot import StoreLockedError, store_locked

    if not store_locked(settings):
        try:
            return import_file(
                path, settings, driver, car, track, progress=progress, channel_map=channel_map, mine=mine
            )
        except StoreLockedError:  # a hot path started meanwhile
            pass
    from shared.importers.limits import checked_path

    if channel_map is not None:
        raise HotpathUnavailable(
            f"{settings.hot_db_path} is held by the running hot path, which maps channels with "
            f"{settings.data_dir / 'channels.yaml'}: put --map's entries there, or stop the hot path"
        )
    d = import_through_hotpath(settings, checked_path(path), driver, car, track, mine)
    fields: dict[str, Any] = {k: d[k] for k in ImportResult.__dataclass_fields__ if k in d}
    return ImportResult(**fields)


def delete_via_hotpath(settings: Settings, session_id: str, timeout_s: float = 60.0) -> tuple[int, Any]:
    """``DELETE /sessions/{id}`` on the running hot path (the one that announced itself, else
    ``PITWALL_HOTPATH_URL``, else this machine's hot path port): (status code, JSON body)."""
    import httpx

    url = (hotpath_url(settings) or f"http://127.0.0.1:{settings.hotpath_port}").rstrip("/")
    token = settings.api_token.get_secret_value() if settings.api_token else None
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        r = httpx.delete(f"{url}/sessions/{session_id}", headers=headers, timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise HotpathUnavailable(f"the hot path does not answer at {url}: {exc}") from None
    try:
        body = r.json()
    except ValueError:
        body = {"detail": r.text[:200]}
    return r.status_code, body

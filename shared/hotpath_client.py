"""Asking the running hot path (the single writer of the hot store and the lake) to change data."""

from __future__ import annotations

from typing import Any

import httpx

from shared.settings import Settings


class HotpathUnavailable(RuntimeError):
    """No hot path answers at the configured address."""


def hotpath_url(settings: Settings) -> str:
    return (settings.hotpath_url or f"http://127.0.0.1:{settings.hotpath_port}").rstrip("/")


def _headers(settings: Settings) -> dict[str, str]:
    tok = settings.api_token.get_secret_value() if settings.api_token is not None else None
    return {"Authorization": f"Bearer {tok}"} if tok else {}


def delete_via_hotpath(settings: Settings, session_id: str, timeout_s: float = 60.0) -> tuple[int, Any]:
    """``DELETE /sessions/{id}`` on the hot path: (status code, JSON body)."""
    url = f"{hotpath_url(settings)}/sessions/{session_id}"
    try:
        r = httpx.delete(url, headers=_headers(settings), timeout=timeout_s)
    except httpx.TransportError as exc:
        raise HotpathUnavailable(f"the hot path does not answer at {hotpath_url(settings)}: {exc}") from exc
    try:
        body = r.json()
    except ValueError:
        body = {"detail": r.text[:200]}
    return r.status_code, body

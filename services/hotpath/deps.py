"""Dependency aliases for the hot path routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from services.hotpath.state import HotpathState


def get_state(request: Request) -> HotpathState:
    return request.app.state.hot  # type: ignore[no-any-return]


State = Annotated[HotpathState, Depends(get_state)]

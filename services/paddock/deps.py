"""Dependency aliases for the paddock routers, defined once."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from services.paddock.agents.service import CoachService
from services.paddock.store import PaddockStore
from shared.settings import Settings


def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def get_coach(request: Request) -> CoachService:
    return request.app.state.coach  # type: ignore[no-any-return]


def get_store(request: Request) -> PaddockStore:
    return request.app.state.store  # type: ignore[no-any-return]


def get_gate(request: Request) -> Any:
    return request.app.state.gate


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
Coach = Annotated[CoachService, Depends(get_coach)]
Store = Annotated[PaddockStore, Depends(get_store)]
Gate = Annotated[Any, Depends(get_gate)]

"""Which lake session a request is about, and each driver's persistent ADK session (a stable prompt
prefix), rotated after 50 turns, past the character budget, or when a new driving session appears."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from services.paddock.agents.stream import UnknownSession
from shared.settings import Settings

log = logging.getLogger(__name__)
MAX_TURNS = 50
NO_SESSION = "(no session yet)"  # a driver with no session: every tool answers "unknown session"


class AdkSessionsMixin:
    settings: Settings
    sessions: Any

    def _init_sessions(self) -> None:
        self._adk_sessions: dict[str, str] = {}
        self._usage: dict[str, dict[str, Any]] = {}  # driver -> {turns, chars, driving_session}
        self.rotations = 0

    def _newest_driving_session(self, driver_id: str) -> str | None:
        from services.paddock.tools.base import rows

        try:
            r = rows(
                "SELECT session_id FROM sessions WHERE driver_id = ? ORDER BY started_at DESC NULLS LAST, "
                "session_id DESC LIMIT 1",
                [driver_id],
            )
        except Exception:
            return None
        return r[0]["session_id"] if r else None

    def _resolve_session(self, kind: str, session_id: str, driver_id: str) -> str:
        from services.paddock.tools.base import session_row

        if session_id not in ("latest", "", None):
            try:
                return str(session_row(session_id)["session_id"])
            except Exception as exc:  # ToolError, or a lake with no tables yet
                raise UnknownSession(f"no session {session_id!r} in the lake") from exc
        newest = self._newest_driving_session(driver_id)
        if newest is not None:
            return newest
        if kind == "debrief":
            raise UnknownSession(f"no sessions for driver {driver_id!r} in the lake")
        return NO_SESSION  # a brief or a question before the driver's first session

    def _rotation_reason(self, driver_id: str) -> str | None:
        u = self._usage.get(driver_id)
        if u is None:
            return None
        if u["turns"] >= MAX_TURNS:
            return f"{MAX_TURNS} turns"
        if u["chars"] > self.settings.adk_char_budget:
            return f"over {self.settings.adk_char_budget} characters"
        newest = self._newest_driving_session(driver_id)
        if newest is not None and u["driving_session"] is not None and newest != u["driving_session"]:
            return f"new driving session {newest}"
        return None

    def account(self, driver_id: str, chars: int) -> None:
        u = self._usage.setdefault(driver_id, {"turns": 0, "chars": 0, "driving_session": None})
        u["turns"] += 1
        u["chars"] += chars

    async def _session(self, driver_id: str, state: dict[str, Any]) -> str:
        reason = await asyncio.to_thread(self._rotation_reason, driver_id)
        if reason is not None:
            log.info("rotating the ADK session of %s: %s", driver_id, reason)
            self._adk_sessions.pop(driver_id, None)
            self._usage.pop(driver_id, None)
            self.rotations += 1
        sid = self._adk_sessions.get(driver_id)
        if sid is None:
            self._usage[driver_id] = {
                "turns": 0,
                "chars": 0,
                "driving_session": await asyncio.to_thread(self._newest_driving_session, driver_id),
            }
            s = await self.sessions.create_session(app_name="pitwall", user_id=driver_id, state=state)
            sid = s.id
            self._adk_sessions[driver_id] = sid
        return sid

    async def reset(self, driver_id: str) -> dict[str, Any]:
        self._usage.pop(driver_id, None)
        return {"driver_id": driver_id, "reset": self._adk_sessions.pop(driver_id, None) is not None}

"""Which lake session a request is about, and the persistent ADK session of each driver and lake session
(a stable prompt prefix), rotated after 50 turns or past the character budget. Keyed by the lake session:
nothing one session's requests left in the agent state (data, evidence, the question) reaches another's."""

from __future__ import annotations

import logging
from typing import Any

from services.paddock.agents.stream import UnknownSession
from shared.settings import Settings

log = logging.getLogger(__name__)
MAX_TURNS = 50
KEEP_PER_DRIVER = 4  # a driver's ADK sessions kept open (one per lake session asked about); older ones closed
NO_SESSION = "(no session yet)"  # a driver with no session: every tool answers "unknown session"


class AdkSessionsMixin:
    settings: Settings
    sessions: Any

    def _init_sessions(self) -> None:
        self._adk_sessions: dict[tuple[str, str], str] = {}  # (driver, lake session) -> ADK session id
        self._usage: dict[tuple[str, str], dict[str, int]] = {}  # the same key -> {turns, chars}
        self.rotations = 0

    @property
    def active_drivers(self) -> int:
        """Drivers with an open ADK session."""
        return len({driver for driver, _ in self._adk_sessions})

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

    def _rotation_reason(self, key: tuple[str, str]) -> str | None:
        u = self._usage.get(key)
        if u is None:
            return None
        if u["turns"] >= MAX_TURNS:
            return f"{MAX_TURNS} turns"
        if u["chars"] > self.settings.adk_char_budget:
            return f"over {self.settings.adk_char_budget} characters"
        return None

    def account(self, driver_id: str, session_id: str, chars: int) -> None:
        u = self._usage.setdefault((driver_id, session_id), {"turns": 0, "chars": 0})
        u["turns"] += 1
        u["chars"] += chars

    async def _close(self, key: tuple[str, str]) -> None:
        self._usage.pop(key, None)
        sid = self._adk_sessions.pop(key, None)
        if sid is not None:
            await self.sessions.delete_session(app_name="pitwall", user_id=key[0], session_id=sid)

    async def _session(self, driver_id: str, session_id: str, state: dict[str, Any]) -> str:
        """The ADK session of this driver's requests about this lake session (created on first use)."""
        key = (driver_id, session_id)
        reason = self._rotation_reason(key)
        if reason is not None:
            log.info("rotating the ADK session of %s on %s: %s", driver_id, session_id, reason)
            await self._close(key)
            self.rotations += 1
        sid = self._adk_sessions.get(key)
        if sid is None:
            mine = [k for k in self._adk_sessions if k[0] == driver_id]
            for old in mine[: max(0, len(mine) - KEEP_PER_DRIVER + 1)]:  # oldest first (insertion order)
                await self._close(old)
            self._usage[key] = {"turns": 0, "chars": 0}
            s = await self.sessions.create_session(app_name="pitwall", user_id=driver_id, state=state)
            sid = s.id
            self._adk_sessions[key] = sid
        return sid

    async def reset(self, driver_id: str) -> dict[str, Any]:
        mine = [k for k in self._adk_sessions if k[0] == driver_id]
        for key in mine:
            await self._close(key)
        return {"driver_id": driver_id, "reset": bool(mine)}

"""``GET /api/tools`` and ``POST /api/tools/{name}``: the analytics tools over HTTP, no LLM involved."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Body, HTTPException

from services.paddock.tools.registry import TOOLS, ToolArgError, run_tool, tool_schemas

router = APIRouter(prefix="/api/tools", tags=["tools"])


@router.get("")
def list_tools() -> list[dict[str, Any]]:
    """Every tool with its description and JSON schema."""
    return tool_schemas()


@router.post("/{name}")
async def call_tool(name: str, args: dict[str, Any] = Body(default_factory=dict)) -> dict[str, Any]:
    """Run one tool; bad arguments get a 422 naming the argument, unknown tools a 404."""
    if name not in TOOLS:
        raise HTTPException(
            404, detail={"code": "unknown_tool", "message": f"no tool {name!r}", "tools": list(TOOLS)}
        )
    try:
        return await asyncio.to_thread(run_tool, name, args)
    except ToolArgError as exc:
        raise HTTPException(
            422, detail={"code": "bad_argument", "argument": exc.arg, "message": str(exc)}
        ) from exc

"""TracePlugin: every agent run, tool call and model call, with latency and success, into the paddock store."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from google.adk.plugins import BasePlugin

from services.paddock.agents.narrative import parse_emotion
from services.paddock.questions.conversation import STATE_KEY
from services.paddock.store import PaddockStore

EVIDENCE_AGENT = "AskEvidence"  # the agent that parses and plans a question (``pipeline.EvidenceRouter``)


class TracePlugin(BasePlugin):
    def __init__(self, store: PaddockStore) -> None:
        super().__init__(name="pitwall_trace")
        self.store = store
        self._t: dict[str, float] = {}
        self._prompt: dict[str, Any] = {}
        self.llm_calls: dict[str, int] = defaultdict(int)
        self.tool_calls: dict[str, int] = defaultdict(int)
        self.prompt_tokens: dict[
            str, int
        ] = {}  # per invocation: the last model call's, as the server counted

    @staticmethod
    def _ids(ctx: Any) -> tuple[str, str | None]:
        inv = getattr(ctx, "invocation_id", "") or ""
        state = getattr(ctx, "state", {}) or {}
        return inv, state.get("session_id") if hasattr(state, "get") else None

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        inv, _ = self._ids(callback_context)
        self._t[f"a:{inv}:{agent.name}"] = time.perf_counter()
        return None

    async def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        inv, sid = self._ids(callback_context)
        t0 = self._t.pop(f"a:{inv}:{agent.name}", None)
        ms = (time.perf_counter() - t0) * 1000 if t0 else None
        detail: dict[str, Any] = {}
        if agent.name == EVIDENCE_AGENT:  # the request's question as parsed: what the plan answered
            state = getattr(callback_context, "state", None)
            detail = {STATE_KEY: state.get(STATE_KEY) if state is not None else None}
        self.store.trace(inv, sid, agent.name, "agent_run", detail, ms, True)
        return None

    @staticmethod
    def _prompt_chars(llm_request: Any) -> int | None:
        """Characters sent to the model: system instruction plus every text part of the contents."""
        try:
            n = 0
            sys_inst = getattr(getattr(llm_request, "config", None), "system_instruction", None)
            if isinstance(sys_inst, str):
                n += len(sys_inst)
            elif sys_inst is not None and getattr(sys_inst, "parts", None):
                n += sum(len(p.text or "") for p in sys_inst.parts)
            for c in llm_request.contents or []:
                n += sum(len(p.text or "") for p in (c.parts or []))
            return n
        except Exception:  # a request shape we do not know: record the call without its size
            return None

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        inv, _ = self._ids(callback_context)
        self.llm_calls[inv] += 1
        self._t[f"m:{inv}:{callback_context.agent_name}"] = time.perf_counter()
        # sized after the call: an agent's own callback may still rewrite the request (the narrative does)
        self._prompt[f"m:{inv}:{callback_context.agent_name}"] = llm_request
        return None

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        inv, sid = self._ids(callback_context)
        if getattr(llm_response, "partial", False):
            return None
        key = f"m:{inv}:{callback_context.agent_name}"
        t0 = self._t.pop(key, None)
        text = ""
        if llm_response.content and llm_response.content.parts:
            text = "".join(p.text or "" for p in llm_response.content.parts)
        finish = str(getattr(llm_response, "finish_reason", "") or "")
        emotion = parse_emotion(text)[1] if "[EMOTION:" in text else None
        usage = getattr(llm_response, "usage_metadata", None)
        if usage is not None and getattr(usage, "prompt_token_count", None):
            self.prompt_tokens[inv] = int(usage.prompt_token_count)
        self.store.friction(
            role=callback_context.agent_name,
            mode="adk",
            backend="litellm",
            prompt_chars=self._prompt_chars(self._prompt.pop(key, None)),
            completion_chars=len(text),
            latency_ms=(time.perf_counter() - t0) * 1000 if t0 else None,
            truncated="MAX_TOKENS" in finish.upper(),
            fell_back=False,
            error=llm_response.error_message or None,
            emotion=emotion,
        )
        return None

    async def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: Exception
    ) -> None:
        inv, sid = self._ids(callback_context)
        self._t.pop(f"m:{inv}:{callback_context.agent_name}", None)
        self.store.friction(
            role=callback_context.agent_name,
            mode="adk",
            backend="litellm",
            prompt_chars=self._prompt_chars(self._prompt.pop(f"m:{inv}:{callback_context.agent_name}", None)),
            completion_chars=0,
            latency_ms=None,
            truncated=False,
            fell_back=True,
            error=f"{type(error).__name__}: {str(error)[:300]}",
            emotion=None,
        )
        self.store.trace(
            inv, sid, callback_context.agent_name, "model_error", {"error": str(error)[:300]}, None, False
        )
        return None

    async def before_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any) -> None:
        inv, _ = self._ids(tool_context)
        self.tool_calls[inv] += 1
        self._t[f"t:{inv}:{tool.name}"] = time.perf_counter()
        return None

    async def after_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any
    ) -> None:
        inv, sid = self._ids(tool_context)
        t0 = self._t.pop(f"t:{inv}:{tool.name}", None)
        ok = not (isinstance(result, dict) and "error" in result)
        self.store.trace(
            inv,
            sid,
            tool.name,
            "tool_call",
            {"args": tool_args},
            (time.perf_counter() - t0) * 1000 if t0 else None,
            ok,
        )
        return None

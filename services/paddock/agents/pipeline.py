"""The deterministic agents of the tree: the question's evidence (``EvidenceRouter``) and the constrained
narrator (``NarratorAgent``), both custom ``BaseAgent``s that talk to the service through session state.

State the service sets for each request: ``session_id``, ``driver_id``, ``request`` (kind, intent,
whether a model may be called) and resets ``plan``, ``facts``, ``narration``. The router writes ``plan``
(the tool Pitwall ran for the question, its result and its sentences) and ``route`` (intent, specialist).
The narrator announces its model call (``model_call`` in a state delta: the service takes the model's
place in the queue and starts the first-token clock then), streams each checked sentence as a partial
event, and ends with ``narration``: the text, who wrote it, and the model's own reply kept for the record.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions
from google.genai import types

from services.paddock.agents import compose, factsheet
from services.paddock.agents.classifier import _classify_intent
from services.paddock.agents.evidence import fallback, plan_for, sheet_and_facts
from services.paddock.agents.grounding import grounding_check
from services.paddock.questions.conversation import STATE_KEY

NO_WORDS = "the model added no words of its own to the data answer"
NEEDS_MODEL_TOOLS = frozenset({"VoiceScriptAgent"})  # its answer is a tool call (saving the scripts)


def _event(agent: BaseAgent, ctx: InvocationContext, **kw: Any) -> Event:
    return Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch, **kw)


def _question(ctx: InvocationContext) -> str:
    if ctx.user_content and ctx.user_content.parts:
        return " ".join(p.text or "" for p in ctx.user_content.parts)
    return ""


class EvidenceRouter(BaseAgent):
    """Routes a question (keyword classifier) and runs the tool that answers it; no model. ``route.next``
    is the agent that answers: the narrator over this evidence (a question the data cannot answer gets
    what was understood and what can be answered, never a specialist's free prose), or (no evidence, or
    model-chosen tools) the routed specialist when a model may be called."""

    specialist_tools: str = "evidence"

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = ctx.session.state
        req = state.get("request") or {}
        q = _question(ctx)
        intent, agent = _classify_intent(q, req.get("intent"))
        plan, question = None, state.get(STATE_KEY)
        if agent not in NEEDS_MODEL_TOOLS:
            plan, question = await asyncio.to_thread(
                plan_for, q, str(state.get("session_id")), req.get("intent"), state.get(STATE_KEY)
            )
        nxt = "AskNarrator"  # a question the data cannot answer too: what was understood, rephrased at most
        tools_by = req.get("specialist_tools") or self.specialist_tools
        if req.get("model_ok") and (plan is None or tools_by == "model"):
            nxt = agent  # no session in the lake, or the model chooses the tools: the specialist's prose
        route = {"intent": intent, "agent": agent, "next": nxt}
        delta = {"plan": plan, "user_question": q, "route": route, STATE_KEY: question}
        yield _event(self, ctx, actions=EventActions(state_delta=delta))


class NarratorAgent(BaseAgent):
    """One constrained model call over the fact sheet; the checked picks stream as partial events."""

    kind: str
    client: Any = None  # the WarmClient (httpx to the model server)
    max_tokens: int = 160

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = dict(ctx.session.state)
        req = state.get("request") or {}
        question = str(state.get("user_question") or _question(ctx))
        sheet, facts = sheet_and_facts(self.kind, state)
        out: dict[str, Any] = {"raw": None, "reason": None, "emotion": "neutral", "complete": True}
        if not req.get("model_ok") or self.client is None or not sheet.facts:
            why = req.get("reason") or ("no facts to narrate" if not sheet.facts else "no model")
            yield self._end(ctx, out | {"reason": why}, state)
            return
        yield _event(self, ctx, actions=EventActions(state_delta={"model_call": True}))
        reader = compose.ReplyReader(sheet, question, need_first=self.kind == "ask")
        from services.paddock.llm.warm import TokenLimit, WarmError

        try:
            async for delta in self.client.stream(
                factsheet.messages(question, sheet),
                role=self.name,
                mode=self.kind,
                max_tokens=self.max_tokens,
                response_format=factsheet.response_format(sheet),
            ):
                for text in reader.feed(delta):
                    yield _event(
                        self, ctx, partial=True, content=types.Content(parts=[types.Part(text=text)])
                    )
                yield _event(self, ctx, partial=True, custom_metadata={"heartbeat": True})
                if reader.done and reader.r.mode == "json":
                    break  # a bad pick: nothing after it is read
        except TokenLimit as exc:
            out["cut"] = str(exc)
        except WarmError as exc:
            out["error"] = str(exc)
        r = reader.finish(facts)
        out |= {"raw": reader.raw, "emotion": r.emotion, "picks": r.picks, "mode": r.mode}
        out["dropped_notes"] = r.dropped
        if r.parts and r.mode == "prose":  # checked whole: shown now
            yield _event(self, ctx, partial=True, content=types.Content(parts=[types.Part(text=r.parts[0])]))
        for text in r.added:  # the facts the reply left out, after it: the model adds, never subtracts
            yield _event(self, ctx, partial=True, content=types.Content(parts=[types.Part(text=text)]))
        text = " ".join(r.parts)
        if r.adds and not grounding_check(text, facts):
            out |= {
                "text": text,
                "narrator": "llm",
                "reason": out.get("cut") or out.get("error") or r.problem,
            }
            out["complete"] = not (out.get("cut") or out.get("error"))
            yield self._end(ctx, out, state, shown=True)
            return
        unsupported = "the reply named an unsupported figure"
        out["reason"] = out.get("error") or r.problem or (unsupported if r.adds else NO_WORDS)
        yield self._end(ctx, out, state)

    def _end(
        self, ctx: InvocationContext, out: dict[str, Any], state: dict[str, Any], shown: bool = False
    ) -> Event:
        if not shown:
            fb = fallback(self.kind, state)
            out |= fb or {"text": "", "narrator": "none"}
        return _event(self, ctx, actions=EventActions(state_delta={"narration": out}))

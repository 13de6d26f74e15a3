"""PitwallOrchestrator: routes each request with the keyword classifier to one pipeline or specialist."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions

from services.paddock.agents.classifier import _classify_intent
from services.paddock.agents.registry import QA_AGENTS, build_pipeline, build_qa_agent


class PitwallOrchestrator(BaseAgent):
    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ""
        if ctx.user_content and ctx.user_content.parts:
            text = " ".join(p.text or "" for p in ctx.user_content.parts)
        override = ctx.session.state.get("temp:intent_override")
        if isinstance(override, str) and override.startswith("data_only:"):
            intent, target = "data_only", override.split(":", 1)[1]  # no model: run a data phase alone
        else:
            intent, target = _classify_intent(text, override)
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            actions=EventActions(state_delta={"temp:intent": intent, "user_question": text}),
        )
        agent = self.find_sub_agent(target)
        if agent is None:
            return
        async for ev in agent.run_async(ctx):
            yield ev


def build_tree(model: Any, data_agents: str = "deterministic") -> PitwallOrchestrator:
    subs = [build_pipeline("debrief", model, data_agents), build_pipeline("brief", model, data_agents)]
    subs += [build_qa_agent(n, model) for n in QA_AGENTS]
    return PitwallOrchestrator(
        name="PitwallOrchestrator", description="Routes driver requests", sub_agents=subs
    )

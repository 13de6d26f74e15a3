"""PitwallOrchestrator: the one pipeline every request runs through.

A brief or debrief runs its pipeline (data agents in parallel, the digest, the narrator). A question runs
``AskEvidence`` (routing and the tool that answers it, no model), then the narrator over that evidence;
only when no evidence was found, or ``PITWALL_SPECIALIST_TOOLS=model``, does the routed specialist (an
``LlmAgent`` with its tools) answer it. ``data_only:<agent>`` runs one sub-agent alone (the warm-up).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event

from services.paddock.agents.pipeline import EvidenceRouter, NarratorAgent
from services.paddock.agents.plugin import EVIDENCE_AGENT
from services.paddock.agents.registry import QA_AGENTS, build_pipeline, build_qa_agent


class PitwallOrchestrator(BaseAgent):
    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        req = ctx.session.state.get("request") or {}
        kind = str(req.get("kind") or "ask")
        override = str(req.get("intent") or "")
        if override.startswith("data_only:"):
            targets = [override.split(":", 1)[1]]
        elif kind in ("debrief", "brief"):
            targets = [f"{kind.capitalize()}Pipeline"]
        else:
            targets = ["AskEvidence"]
        for name in targets:
            agent = self.find_sub_agent(name)
            if agent is None:
                return
            async for ev in agent.run_async(ctx):
                yield ev
        if targets != ["AskEvidence"]:
            return
        nxt = str((ctx.session.state.get("route") or {}).get("next") or "AskNarrator")
        agent = self.find_sub_agent(nxt)
        if agent is not None:
            async for ev in agent.run_async(ctx):
                yield ev


def build_tree(
    model: Any,
    data_agents: str = "deterministic",
    client: Any = None,
    specialist_tools: str = "evidence",
    max_tokens: int = 160,
) -> PitwallOrchestrator:
    subs = [
        build_pipeline("debrief", model, data_agents, client, max_tokens),
        build_pipeline("brief", model, data_agents, client, max_tokens),
        EvidenceRouter(
            name=EVIDENCE_AGENT,
            description="Routes a question and runs the tool that answers it",
            specialist_tools=specialist_tools,
        ),
        NarratorAgent(name="AskNarrator", kind="ask", client=client, max_tokens=max_tokens),
    ]
    subs += [build_qa_agent(n, model) for n in QA_AGENTS]
    return PitwallOrchestrator(
        name="PitwallOrchestrator",
        description="Routes driver requests",
        sub_agents=subs,
    )

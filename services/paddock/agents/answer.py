"""The one ending of a request: what the tree produced (or, when a deadline cut it, the fallback from the
data it had fetched) as an ``Outcome`` the service writes once and sends once.

A specialist's prose (model-chosen tools, or a question no route answers) is shown only when every lap,
corner and figure in it is in the data its tools returned and it echoes nothing of the prompt, and (a
question that asks for a figure: a time, a speed, a lap, a corner) when it states one; the data answer's
facts it does not carry follow it (``carry_every_fact``: the model adds, never subtracts); else the
question's data answer, labelled, or ``available: false``. A figure question no data answers keeps the
model's words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from services.paddock.agents import claims
from services.paddock.agents.coach_types import CoachHost, CoachRequest, Run
from services.paddock.agents.compose import carry_every_fact, prose_problem
from services.paddock.agents.evidence import fallback, sheet_and_facts
from services.paddock.agents.factsheet import FactSheet
from services.paddock.agents.grounding import grounding_check
from services.paddock.agents.narrative import parse_emotion, template_narrative
from services.paddock.questions.conversation import STATE_KEY
from services.paddock.questions.figure import asks_figure

NO_FIGURE = "the question asks for a figure and the reply has none"


@dataclass
class Outcome:
    text: str
    narrator: str  # llm | template | data | none
    emotion: str = "neutral"
    complete: bool = True
    reason: str | None = None
    ungrounded: list[str] = field(default_factory=list)
    model_text: str | None = None  # the model's own reply, kept for the record, never shown as fact
    event: str = "done"
    data: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


def _specialist(req: CoachRequest, run: Run) -> tuple[str, str, str | None, list[str]]:
    """(text, emotion, problem, ungrounded) of a specialist's held prose."""
    from services.paddock.agents.grounding import Facts

    raw = "".join(run.held)
    text, emotion = parse_emotion(raw)
    said = [json.dumps(res, default=str) for res in run.tool_results]
    text, _ = claims.drop_unsupported(text, said)  # a part of the car its data never speaks of
    facts = Facts()
    facts.add_text(req.question)
    for res in run.tool_results:
        facts.add_data(res)
    bad = grounding_check(text, facts)
    why = prose_problem(text, FactSheet(), req.question) if text.strip() else "empty model reply"
    if not [t for t in run.tools if not t.get("by")] and any(ch.isdigit() for ch in text):
        why = why or "figures without a tool call"
    if not why and asks_figure(run.state.get(STATE_KEY)) and not any(ch.isdigit() for ch in text):
        why = NO_FIGURE  # "what was my top speed?" answered in words alone
    return text, emotion, ("unsupported: " + ", ".join(bad)) if bad else why, bad


def ending(
    svc: CoachHost, req: CoachRequest, run: Run, model_ok: bool, reason: str, cancelled: bool = False
) -> Outcome:
    """The request's outcome from its run; ``cancelled``: what the client saw, marked incomplete."""
    from services.paddock.agents.stream import BudgetExceeded, LoopGuard, NoFirstToken

    if cancelled:
        out = Outcome(" ".join(run.parts), "llm" if run.parts else "none", complete=False, reason=reason)
        out.model_text = (run.narration or {}).get("raw") or "".join(run.held) or None
        _shape(svc, req, run, out)
        return out

    n = dict(run.narration or {})
    err = str(run.error) if run.error else None
    why = reason if not model_ok else err
    model_text: str | None = n.get("raw")
    ungrounded: list[str] = []
    if n.get("narrator") == "llm":  # the narrator ended with the model's words and every fact after them
        out = Outcome(str(n["text"]), "llm", n.get("emotion") or "neutral")
        out.complete = bool(n.get("complete", True)) and not err and model_ok
        out.reason = n.get("reason") or (why if not out.complete else None)
    elif run.parts and not n:  # cut mid-reply: the checked sentences stay, every fact of the data after them
        out = _cut(req, run, why)
    elif run.held and n == {}:
        text, emotion, problem, ungrounded = _specialist(req, run)
        model_text = "".join(run.held)
        fb = fallback(req.kind, run.state)
        kept = problem == NO_FIGURE and fb is None  # no data answers it either: its words are all there is
        if (problem is None or kept) and not isinstance(run.error, BudgetExceeded | LoopGuard):
            if fb is not None:  # the model adds, never subtracts: the data answer's facts follow its words
                sheet, _ = sheet_and_facts(req.kind, {**run.state, "user_question": req.question})
                text = " ".join([text, *carry_every_fact(text, sheet, [], prose=True)])
            out = Outcome(
                text, "llm", emotion, run.error is None, err or (problem if kept else None), ungrounded
            )
        else:
            out = Outcome(fb["text"], fb["narrator"]) if fb else Outcome("", "none")
            out.reason = f"{problem or err}; the model's reply was not shown"
    elif n.get("narrator"):
        out = Outcome(str(n.get("text") or ""), str(n["narrator"]), n.get("emotion") or "neutral")
        out.reason = (reason if not model_ok else None) or n.get("reason") or why
    else:  # cut before the narration: the fallback from the data fetched so far
        fb = fallback(req.kind, run.state)
        out = Outcome(fb["text"], fb["narrator"]) if fb else Outcome("", "none")
        out.reason = why or ("no data answers this question" if fb is None else None)
        if req.kind == "ask" and fb is None and model_ok and run.error is not None:
            out.event = "done" if isinstance(run.error, NoFirstToken) else "error"
        if isinstance(run.error, BudgetExceeded | LoopGuard) and fb is None:
            out.event = "error"  # with a data answer, the driver gets it, labelled, with the reason
    if out.narrator != "llm":
        out.emotion = "neutral"
    out.model_text = model_text
    if out.narrator == "llm":
        _, facts = sheet_and_facts(req.kind, {**run.state, "user_question": req.question})
        for res in run.tool_results:
            facts.add_data(res)
        out.ungrounded = grounding_check(out.text, facts)
    _shape(svc, req, run, out)
    return out


def _cut(req: CoachRequest, run: Run, why: str | None) -> Outcome:
    """A narrator's reply cut before it ended: the sentences the client saw, then the sheet's facts they
    do not carry (``carry_every_fact``); the data answer when the model's own words are not among them."""
    sheet, _ = sheet_and_facts(req.kind, {**run.state, "user_question": req.question})
    shown = " ".join(run.parts)
    if all(p.strip() in {t for _, t in sheet.facts} for p in run.parts):  # no words of the model's own
        fb = fallback(req.kind, run.state)
        out = Outcome(fb["text"], fb["narrator"]) if fb else Outcome(shown, "none")
    else:
        out = Outcome(" ".join([shown, *carry_every_fact(shown, sheet, [])]), "llm")
    out.complete, out.reason = False, why
    return out


def _shape(svc: CoachHost, req: CoachRequest, run: Run, out: Outcome) -> None:
    """The record and the client's event for an outcome."""
    tier = "warm" if req.tier == "warm" else "adk"
    plugin_calls = int(svc.plugin.llm_calls.get(run.inv, 0)) if svc.plugin and run.inv else 0
    agent = (run.state.get("route") or {}).get("agent") or run.author
    out.record = {
        "reason": out.reason,
        "ungrounded": out.ungrounded,
        "tier": tier,
        "model_text": out.model_text,
        "agent": agent,
        "tools": run.tools,
        "error": str(run.error) if run.error else None,
    }
    if out.event == "error" and run.error is not None:
        out.data = {"code": run.error.code, "message": str(run.error), "retryable": run.error.retryable}
        out.complete = False
        return
    out.data = {
        "text": out.text,
        "emotion": out.emotion,
        "narrator": out.narrator,
        "reason": out.reason,
        "complete": out.complete,
        "ungrounded": out.ungrounded,
        "conversation_id": run.conv,
        "llm_calls": plugin_calls + run.model_calls,
        "prompt_tokens": svc.plugin.prompt_tokens.get(run.inv) if svc.plugin and run.inv else None,
        "evidence_chars": len(run.state.get("evidence") or ""),
        "tier": tier,
        "ms": run.ms(),
        "focus_items": template_narrative(req.kind, run.state)[1] if req.kind != "ask" else [],
    }
    if req.kind == "ask":
        out.data |= {
            "available": out.narrator != "none",
            "agent": agent,
            "tools": run.tools,
            "question": run.state.get(STATE_KEY),  # as parsed: shown with ?debug=1
            "error": str(run.error) if run.error else None,
        }

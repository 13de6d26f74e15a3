"""A question asked on the data path, as the paddock's ``AskEvidence`` runs it without a model: read once
(``questions.parse``, with the track's corner ids and the previous question) and answered by the one plan."""

from __future__ import annotations

from typing import Any

from services.paddock.agents.evidence import plan_for
from services.paddock.questions import resolve
from services.paddock.questions.families.corners import corner_ids
from services.paddock.questions.model import Answer
from services.paddock.questions.parse import parse
from services.paddock.questions.plan import plan
from services.paddock.tools.base import session_row


def plan_of(
    question: str, session_id: str, intent: str | None = None, previous: Any = None
) -> dict[str, Any] | None:
    """The evidence ``AskEvidence`` puts in state (``plan``): tool, args, result, text."""
    return plan_for(question, session_id, intent, previous)[0]


def answer_of(question: str, session_id: str, intent: str | None = None, previous: Any = None) -> Answer:
    got = plan_of(question, session_id, intent, previous)
    assert got is not None, question
    return Answer(got["text"], got["tool"], got["args"], got["result"])


def ask_planned(sid: str, text: str) -> Answer:
    """``text`` read with the session's corner names (else its corners' ids) and answered by the one plan."""
    corners = resolve.corner_names(sid) or {c: () for c in corner_ids(session_row(sid))}
    return plan(parse(text, corners), sid)

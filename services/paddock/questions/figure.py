"""Whether a question is answered by a figure (a time, a speed, a lap, a corner): a reply without one
does not answer it. Read from the ``Question`` the agent state keeps (``conversation.STATE_KEY``)."""

from __future__ import annotations

from services.paddock.questions.conversation import from_state

FIGURE_INTENTS = frozenset(
    {
        "lap_time",
        "compare",
        "corner",
        "sector",
        "channel",
        "where_time",
        "why_slower",
        "potential",
        "consistency",
    }
)


def asks_figure(kept: object) -> bool:
    """The question kept in state (``conversation.to_state``) asks for a figure."""
    q = from_state(kept)
    return q is not None and (q.intent in FIGURE_INTENTS or (q.measure is not None and q.intent != "events"))

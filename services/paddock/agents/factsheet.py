"""What the narrator's model is asked: the data answer (or a digest) as a numbered ``FactSheet`` (Pitwall's
own sentences, each figure already formatted), the prompt, and the JSON schema of a reply (llama.cpp turns
it into a grammar): up to four picks, each a fact id and a short note in words with no digit, and an
emotion. How a reply is read and checked is ``compose``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from services.paddock.agents.narrative import EMOTIONS

# the facts the model is shown (and may pick; a digest has up to ~16 lines); the rest follow the picks
MAX_LISTED = 16
MAX_PICKS = 4
MAX_NOTE_CHARS = 140

SYSTEM = (
    "You help a track-day driver. Choose the facts that answer the driver, most important first, and "
    "for each add a short note in plain words: what it means or what to try. Never write numbers."
)


@dataclass
class FactSheet:
    """Numbered facts (``f1`` ...): Pitwall's own sentences from the evidence, figures formatted, in the
    data answer's (coaching) order. Every fact is here; the model is shown the first ``MAX_LISTED``."""

    facts: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def from_text(cls, text: str) -> FactSheet:
        """A question's data answer: one fact a sentence (or a clause after a semicolon)."""
        out: list[tuple[str, str]] = []
        for line in (text or "").splitlines():
            for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])|;\s+", line.strip()):
                s = s.strip()
                if s:
                    out.append((f"f{len(out) + 1}", sentence(s)))
        return cls(out)

    @classmethod
    def from_lines(cls, text: str) -> FactSheet:
        """A brief's or debrief's digest: one fact a line, every line (the digest is bounded already)."""
        lines = [x.strip() for x in (text or "").splitlines() if x.strip()]
        return cls([(f"f{i}", sentence(x)) for i, x in enumerate(lines, 1)])

    @property
    def ids(self) -> list[str]:
        return [i for i, _ in self.facts[:MAX_LISTED]]

    def text_of(self, fid: str) -> str | None:
        return next((t for i, t in self.facts[:MAX_LISTED] if i == fid), None)

    def listing(self) -> str:
        return "\n".join(f"{i}: {t}" for i, t in self.facts[:MAX_LISTED])


def sentence(s: str) -> str:
    """A fact or a note as the driver reads it on its own: one space between words, a capital first, a
    full stop last (a trailing comma or dash dropped); "" for no words."""
    s = re.sub(r"[\s,;:-]+$", "", re.sub(r"\s+", " ", s.strip()))
    if not s:
        return ""
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!?" else s + "."


def reply_schema(sheet: FactSheet) -> dict[str, Any]:
    """The JSON schema of a reply: the emotion, then 1-4 picks of a fact id and a note without digits."""
    note = {"type": "string", "pattern": r"^[a-zA-Z ,.'!?-]*$", "maxLength": MAX_NOTE_CHARS}
    return {
        "type": "object",
        "properties": {
            "emotion": {"enum": sorted(EMOTIONS)},
            "answer": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_PICKS,
                "items": {
                    "type": "object",
                    "properties": {"fact": {"enum": sheet.ids}, "note": note},
                    "required": ["fact", "note"],
                },
            },
        },
        "required": ["emotion", "answer"],
    }


def response_format(sheet: FactSheet) -> dict[str, Any]:
    """llama.cpp (server and llama-cpp-python) read this as a grammar; other servers may ignore it."""
    return {"type": "json_object", "schema": reply_schema(sheet)}


def messages(question: str, sheet: FactSheet) -> list[dict[str, str]]:
    """A fact list and the driver's words: no transcript a model could continue."""
    user = f"Facts:\n{sheet.listing()}\n\nThe driver asks: {question.strip()}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

"""Grounded by construction: the model picks facts, Pitwall writes every figure.

The evidence becomes a numbered ``FactSheet`` (Pitwall's own sentences, each figure already formatted).
The model answers under a JSON schema (llama.cpp turns it into a grammar): up to four picks, each a fact
id from the sheet and a short note in words, with no digit allowed by the grammar, and an emotion.
Pitwall renders each pick as the fact's sentence followed by the note. A note that names a figure in
words, a unit, an id or a label of the prompt, or echoes a fact, rejects the reply; so does a reply that
leaves out the answer's main fact (``f1`` of a question). A server that ignores the schema and writes
prose gets the same end: its text is shown only when every lap, corner, figure and unit in it passes
``grounding_check`` and it echoes nothing of the prompt. A rejected reply gives the labelled data answer;
the model's text is kept in the record, never shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from services.paddock.agents.grounding import Facts, grounding_check
from services.paddock.agents.narrative import EMOTIONS, parse_emotion
from services.paddock.agents.vocab import unknown_words

MAX_FACTS = 12
MAX_PICKS = 4
MAX_NOTE_CHARS = 140

SYSTEM = (
    "You help a track-day driver. Choose the facts that answer the driver, most important first, and "
    "for each add a short note in plain words: what it means or what to try. Never write numbers."
)
_NUMBER_WORDS = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
    r"thousand|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|half|dozen"
)
_UNIT_WORDS = (
    r"seconds?|secs?|km/?h|kph|mph|rpm|bar|psi|percent|metres?|meters?|degrees?|tenths?|hundredths?|"
    r"milliseconds?"
)
_BAD_NOTE = re.compile(
    rf"\d|\b(?:{_NUMBER_WORDS}|{_UNIT_WORDS})\b|[%°{{}}\[\]<>|=_\\]|\bf\d|\bemotion\b|\bfacts?\b\s*:|"
    r"\bquestion\s*:|\bdriver\s*:|\bdata\s*\(|\bsystem\b|\bassistant\b|\byou help\b|\bnever write\b|"
    r"\brace engineer\b|\bpitwall\b|\bspecter\b|\bjson\b|\bnotes?\b\s*:|\blaps?\b|\bcorners?\b|"
    r"[^\x00-\x7f]",
    re.IGNORECASE,
)


@dataclass
class FactSheet:
    """Numbered facts (``f1`` ...): Pitwall's own sentences from the evidence, figures formatted."""

    facts: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def from_text(cls, text: str) -> FactSheet:
        out: list[tuple[str, str]] = []
        for line in (text or "").splitlines():
            for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])|;\s+", line.strip()):
                s = s.strip()
                if s and len(out) < MAX_FACTS:
                    out.append((f"f{len(out) + 1}", s if s[-1] in ".!?" else s + "."))
        return cls(out)

    @classmethod
    def from_lines(cls, text: str) -> FactSheet:
        """A brief's or debrief's digest: one fact a line, every line (the digest is bounded already)."""
        lines = [x.strip() for x in (text or "").splitlines() if x.strip()]
        return cls([(f"f{i}", x if x[-1] in ".!?" else x + ".") for i, x in enumerate(lines, 1)])

    @property
    def ids(self) -> list[str]:
        return [i for i, _ in self.facts]

    def text_of(self, fid: str) -> str | None:
        return next((t for i, t in self.facts if i == fid), None)

    def listing(self) -> str:
        return "\n".join(f"{i}: {t}" for i, t in self.facts)


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


def note_problem(note: str, sheet: FactSheet, question: str) -> str | None:
    """Why a note cannot be shown, or None."""
    n = note.strip()
    if not n:
        return None
    m = _BAD_NOTE.search(n)
    if m:
        return f"note names {m.group(0)!r}"
    low = re.sub(r"\W+", " ", n.lower()).strip()
    for _, t in sheet.facts:
        if len(low) > 12 and low in re.sub(r"\W+", " ", t.lower()):
            return "note echoes a fact"
    if len(low) > 12 and low in re.sub(r"\W+", " ", question.lower()):
        return "note echoes the question"
    return None


def _sentence(note: str) -> str:
    n = re.sub(r"\s+", " ", note.strip())
    if not n:
        return ""
    n = n[0].upper() + n[1:]
    return n if n[-1] in ".!?" else n + "."


@dataclass
class Reading:
    """What became of a model's reply: the rendered parts shown so far, or why it was rejected."""

    parts: list[str] = field(default_factory=list)
    picks: list[str] = field(default_factory=list)
    emotion: str = "neutral"
    problem: str | None = None
    mode: str = "json"  # json (constrained picks) | prose (a server that ignored the schema)
    dropped: list[str] = field(default_factory=list)  # notes not shown: words outside the vocabulary
    added: list[str] = field(default_factory=list)  # facts Pitwall added: the figure the picks left out


class ReplyReader:
    """Reads a constrained reply as it streams: each pick is checked and rendered as soon as its object
    closes, so the driver sees it then; the first bad pick stops the reading (``problem``)."""

    def __init__(
        self,
        sheet: FactSheet,
        question: str,
        need_first: bool,
        whole: bool = False,
        need_figure: bool = False,
    ) -> None:
        """``need_first``: a question's reply must lead with its answer (``f1``); ``whole``: a brief or
        debrief, whose reading ends with every fact the model did not pick (the model adds, never
        subtracts); ``need_figure``: the question is answered by a figure (a reply without one gets the
        first fact that has one)."""
        self.sheet, self.question, self.need_first, self.whole = sheet, question, need_first, whole
        self.need_figure = need_figure
        self.raw = ""
        self.pos: int | None = None  # where the next pick may start in ``raw``
        self.done = False
        self.r = Reading()

    def feed(self, delta: str) -> list[str]:
        """New rendered sentences for the driver (may be none)."""
        self.raw += delta
        if self.done:
            return []
        if self.pos is None:
            s = self.raw.lstrip()
            if s and not s.startswith("{"):
                self.r.mode = "prose"
                self.done = True
                return []
            m = re.search(r'"answer"\s*:\s*\[', self.raw)
            if m is None:
                return []
            self.pos = m.end()
            em = re.search(r'"emotion"\s*:\s*"(\w+)"', self.raw[: m.start()])
            if em and em.group(1) in EMOTIONS:
                self.r.emotion = em.group(1)
        out: list[str] = []
        dec = json.JSONDecoder()
        while not self.done:
            rest = self.raw[self.pos :]
            stripped = rest.lstrip(" \t\r\n,")
            if not stripped or stripped.startswith("]"):
                break
            start = len(self.raw) - len(stripped)
            try:
                item, end = dec.raw_decode(self.raw, start)
            except ValueError:
                break  # not complete yet
            self.pos = end
            text = self._pick(item)
            if text:
                out.append(text)
        return out

    def _pick(self, item: Any) -> str | None:
        if not isinstance(item, dict) or not isinstance(item.get("fact"), str):
            return self._stop("a pick that is not a fact id")
        fid, note = item["fact"], str(item.get("note") or "")
        fact = self.sheet.text_of(fid)
        if fact is None:
            return self._stop(f"unknown fact id {fid!r}")
        if fid in self.r.picks:
            return None
        if self.need_first and not self.r.picks and fid != "f1":
            return self._stop("the reply did not lead with the answer (f1)")
        why = note_problem(note, self.sheet, self.question)
        if why:
            return self._stop(why)
        if unknown_words(note) or len(note.split()) < 2:  # not plain coaching words: the fact alone
            self.r.dropped.append(note)
            note = ""
        self.r.picks.append(fid)
        text = " ".join(x for x in (fact, _sentence(note)) if x)
        self.r.parts.append(text)
        return text

    def _stop(self, why: str) -> str | None:
        self.r.problem = why
        self.done = True
        return None

    def finish(self, facts: Facts) -> Reading:
        """The reading at the end of the stream; a prose reply is checked whole here."""
        if self.r.mode == "prose":
            text, emotion = parse_emotion(self.raw)
            self.r.emotion = emotion
            bad = grounding_check(text, facts)
            why = prose_problem(text, self.sheet, self.question)
            if bad:
                self.r.problem = "unsupported: " + ", ".join(bad)
            elif why:
                self.r.problem = why
            else:
                self.r.parts = [text]
                self._add_rest(text)
            return self.r
        if not self.r.parts and self.r.problem is None:
            self.r.problem = "the reply picked no fact" if self.raw.strip() else "empty model reply"
        if self.r.parts and self.need_first and self.need_figure and not _has_figure(self.r.parts):
            # a figure question whose picks hold none ("How hot did the water get?" -> "No: it held"):
            # the first fact with a figure follows, Pitwall's own sentence
            fid, fact = next(((i, t) for i, t in self.sheet.facts if _has_figure([t])), ("", ""))
            if fact:
                fact = fact[0].upper() + fact[1:]
                self.r.picks.append(fid)
                self.r.parts.append(fact)
                self.r.added.append(fact)
        if self.r.parts:
            self._add_rest(" ".join(self.r.parts))
        return self.r

    def _add_rest(self, shown: str) -> None:
        """A brief's or debrief's facts that the reply left out, in the sheet's (coaching) order, after
        it: a prose reply counts as saying a fact when it states every figure of it."""
        if not self.whole:
            return
        said = set(_FIGURE.findall(shown))
        for fid, fact in self.sheet.facts:
            figures = set(_FIGURE.findall(fact))
            if fid in self.r.picks or (self.r.mode == "prose" and figures and figures <= said):
                continue
            self.r.picks.append(fid)
            self.r.parts.append(fact)
            self.r.added.append(fact)


_FIGURE = re.compile(r"\d+(?:[:.]\d+)*")


def _has_figure(texts: list[str]) -> bool:
    return any(ch.isdigit() for t in texts for ch in t)


_ECHO = re.compile(
    r"\b(?:you are|you help|race engineer|debriefing|never write|emotion|specter|the driver asks)\b|"
    r"\b(?:facts?|data|driver|question)\s*[:(]",
    re.IGNORECASE,
)


def prose_problem(text: str, sheet: FactSheet, question: str) -> str | None:
    """A plain-text reply that echoes the prompt, is cut mid-sentence, or says nothing."""
    t = text.strip()
    if len(re.findall(r"[A-Za-z]{2,}", t)) < 3:
        return "the reply says nothing"
    m = _ECHO.search(t)
    if m:
        return f"the reply echoes the prompt ({m.group(0)!r})"
    q = re.sub(r"\W+", " ", question.lower()).strip()
    if len(q) > 12 and q in re.sub(r"\W+", " ", t.lower()):
        return "the reply echoes the question"
    if t[-1] not in ".!?)":
        return "the reply stops mid-sentence"
    if re.search(r"\bf\d+\b", t):
        return "the reply names a fact id"
    return None

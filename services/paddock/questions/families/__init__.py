"""One module per family of answers; each exposes ``answer(q: Question, s: dict) -> Answer | None``."""

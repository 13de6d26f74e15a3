"""The real model server for the held-out half (tests/support/realmodel.py)."""

from tests.support.realmodel import real_llm  # noqa: F401  (the session-scoped fixture)

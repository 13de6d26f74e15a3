"""The real model server (llama.cpp + SmolLM2-135M) for tests/realmodel: see tests/support/realmodel.py."""

from tests.support.realmodel import real_llm  # noqa: F401  (the session-scoped fixture)

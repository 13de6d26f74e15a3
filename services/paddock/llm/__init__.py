"""The local model: LiteLLM settings for ADK agents (loopback OpenAI-compatible servers only by default)."""

from __future__ import annotations

import logging
import os
from typing import Any

from shared.settings import Settings

log = logging.getLogger(__name__)


def prepare_litellm() -> None:
    """No network at import (local cost map), and no telemetry: call before importing litellm."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def litellm_args(settings: Settings) -> dict[str, Any]:
    """Where and how LiteLLM reaches the model: the same for the ADK agents and the start-up warm-up."""
    return {
        "model": settings.llm_model_id,
        "api_base": settings.adk_openai_url,
        "api_key": settings.adk_openai_api_key.get_secret_value(),
        # the streaming deadlines (first token, silence) are enforced by the request lifecycle; this HTTP
        # timeout only has to be longer than either
        "timeout": max(settings.adk_timeout_s, settings.llm_first_token_s, settings.llm_idle_s) + 5.0,
        "num_retries": 0,
        "max_tokens": settings.llm_max_tokens,
        "temperature": 0.2,  # a small model stays on the data; the warm tier uses the same
    }


def make_model(settings: Settings) -> Any:
    prepare_litellm()
    from google.adk.models.lite_llm import LiteLlm

    return LiteLlm(**litellm_args(settings))


def describe(settings: Settings) -> str:
    return f"model {settings.llm_model_id} at {settings.adk_openai_url} (key redacted)"

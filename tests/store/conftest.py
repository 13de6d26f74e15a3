"""One real SeaweedFS server per test module of the S3 lake (tests/support/seaweed.py), started once it
writes and reads an object back, stopped after the module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.seaweed import SeaweedS3, seaweed_or_skip


@pytest.fixture(scope="module")
def weed(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[SeaweedS3]:
    w = seaweed_or_skip(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]) / "weed")
    try:
        yield w
    finally:
        w.stop()

"""Fixtures every test area shares. Area-specific fixtures live in each area's conftest.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import require
from tests.support.require import missing

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared``: real logger files and reference material (tests only, never the product). Missing:
    a skip, or a failure when ``PITWALL_REQUIRE_SHARED=1`` (``./scripts/check`` sets it)."""
    if not SHARED.is_dir():
        missing(require.SHARED, f"../shared is not present ({SHARED})")
    return SHARED


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PITWALL_DATA_DIR for one test."""
    d = tmp_path / "pitwall-data"
    d.mkdir()
    monkeypatch.setenv("PITWALL_DATA_DIR", str(d))
    from shared.settings import get_settings

    get_settings.cache_clear()
    return d


@pytest.fixture(scope="session", autouse=True)
def _no_lake_left_open():
    """Close the paddock's lake connection when the test session ends: a DuckDB connection alive in a
    process that forks afterwards (mutmut 3 forks one child per mutant after its first pytest run) makes
    every child die on DuckDB's threads, and the mutants count as segfaults instead of killed or not."""
    yield
    from services.paddock import lake as lake_mod

    if lake_mod._LAKE is not None:
        lake_mod._LAKE.con.close()
        lake_mod._LAKE = None

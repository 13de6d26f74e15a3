"""Loud tests: a fixture for a missing requirement fails instead of skipping when that requirement is set
(``PITWALL_REQUIRE_SHARED``, ``PITWALL_REQUIRE_BROWSER``, ``PITWALL_REQUIRE_REAL_MODEL``), and
``./scripts/check`` sets them under CI and whenever the thing is installed, and prints skips (``-rs``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import require
from tests.support.require import missing

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env", [require.SHARED, require.BROWSER, require.REAL_MODEL])
def test_a_missing_requirement_skips_or_fails_when_required(
    monkeypatch: pytest.MonkeyPatch, env: str
) -> None:
    monkeypatch.delenv(env, raising=False)
    with pytest.raises(pytest.skip.Exception, match="it is not here"):
        missing(env, "it is not here")
    for value in ("1", "true"):
        monkeypatch.setenv(env, value)
        with pytest.raises(pytest.fail.Exception, match=f"{env}=1 but it is not here"):
            missing(env, "it is not here")


def test_skips_are_printed() -> None:
    assert 'addopts = "-rs"' in (REPO / "pyproject.toml").read_text()


def test_the_shared_dir_fixture_is_a_required_skip() -> None:
    from tests import conftest

    src = Path(conftest.__file__).read_text()
    assert "missing(require.SHARED" in src and "pytest.skip(" not in src


def test_scripts_check_requires_what_is_installed_and_prints_skips() -> None:
    text = (REPO / "scripts" / "check").read_text()
    assert 'if [ "${CI:-}" = true ]; then' in text
    for env in ("PITWALL_REQUIRE_SHARED", "PITWALL_REQUIRE_BROWSER", "PITWALL_REQUIRE_REAL_MODEL"):
        assert f"export {env}=1" in text or f"{env}=1 " in text, env
    assert ".venv/bin/pytest -q -rs" in text


def test_no_test_skips_on_its_own() -> None:
    """Every skip for a missing requirement goes through tests/support/require.py."""
    offenders = []
    for p in (REPO / "tests").rglob("*.py"):
        if p.name == "require.py" or p == Path(__file__):
            continue
        t = p.read_text()
        if "pytest.skip(" in t or "skipif(" in t or "importorskip(" in t:
            offenders.append(str(p.relative_to(REPO)))
    assert offenders == []


def test_test_module_names_are_unique() -> None:
    """pytest imports test modules of packageless folders by basename: two of one name stop the whole
    run at collection (tests/deploy/test_lake_s3.py beside tests/store/test_lake_s3.py did)."""
    seen: dict[str, list[str]] = {}
    for p in (REPO / "tests").rglob("test_*.py"):
        if (p.parent / "__init__.py").exists():
            continue  # a package: its modules are imported by their dotted path
        seen.setdefault(p.name, []).append(str(p.relative_to(REPO)))
    assert {k: v for k, v in seen.items() if len(v) > 1} == {}

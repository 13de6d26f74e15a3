"""An XRZ (the zlib-packed XRK AiM's software writes) of a real logger file imports with nothing on the
terminal but Pitwall's own lines: no numpy or libxrk warning from the parent or the parsing child."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from tests.support.cli import pitwall

XRK = Path(__file__).resolve().parents[3] / "shared" / "data" / "aim" / "scut_fsev_du.xrk"


def test_an_xrz_import_prints_no_warning(tmp_path: Path) -> None:
    if not XRK.is_file():
        pytest.fail(f"{XRK} is missing: the real logger files are part of the test data")
    xrz = tmp_path / "run.xrz"
    xrz.write_bytes(zlib.compress(XRK.read_bytes()))
    r = pitwall("import", str(xrz), "--data-dir", str(tmp_path / "data"))
    assert r.returncode == 0, r.stderr
    said = r.stdout + r.stderr
    assert said.startswith("run.xrz -> ") and ": aim_xrk, " in said.splitlines()[0], said
    for word in ("Warning", "warning:", "RuntimeWarning", "numpy", "Traceback"):
        assert word not in said, said

"""``pitwall`` as a driver runs it: a real process of ``python -m shared.cli`` at a given terminal width."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def pitwall(*args: str, columns: int = 200, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("PITWALL_DATA_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "shared.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )

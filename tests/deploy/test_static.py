"""compose.yaml, the Dockerfile and the systemd unit, checked statically (no Docker engine in CI)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import typer
import yaml

from shared.cli import build_app

REPO = Path(__file__).resolve().parents[2]


def _check_command(argv: list[str]) -> None:
    """Every pitwall command names a real subcommand and real flags."""
    assert argv[0] == "pitwall", argv
    cmd = typer.main.get_command(build_app())
    commands = getattr(cmd, "commands", {})
    sub = commands.get(argv[1])
    assert sub is not None, f"no pitwall subcommand {argv[1]!r}"
    flags = {o for p in sub.params for o in getattr(p, "opts", [])}
    for a in argv[2:]:
        if a.startswith("--"):
            assert a.split("=")[0] in flags, f"pitwall {argv[1]} has no flag {a}"


def test_compose_parses_and_commands_are_real() -> None:
    doc = yaml.safe_load((REPO / "compose.yaml").read_text())
    for name, svc in doc["services"].items():
        _check_command(svc["command"])
        assert svc["healthcheck"]["test"], name
        assert svc["restart"] in ("unless-stopped", "always", "on-failure")
        assert svc.get("user") not in (None, "0", "root")
        data = svc["environment"]["PITWALL_DATA_DIR"]
        assert any(v.endswith(f":{data}") for v in svc["volumes"])
        port = svc["environment"]["PITWALL_HOTPATH_PORT"]
        assert any(p.endswith(f":{port}") for p in svc["ports"]) and f"--port {port}" in " ".join(
            svc["command"]
        )


def test_dockerfile_is_multistage_non_root_and_pinned() -> None:
    text = (REPO / "deploy" / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) >= 2
    assert re.search(r"^USER (?!root)\S+", text, re.M)
    assert "-c constraints.txt" in text and (REPO / "constraints.txt").is_file()
    cmd = re.search(r"^CMD (\[.*\])", text, re.M)
    assert cmd
    _check_command(yaml.safe_load(cmd.group(1)))


def test_systemd_unit_runs_a_real_command() -> None:
    text = (REPO / "deploy" / "systemd" / "pitwall-hotpath.service").read_text()
    exec_start = re.search(r"^ExecStart=(.*)$", text, re.M)
    assert exec_start
    argv = shlex.split(exec_start.group(1))
    argv[0] = "pitwall"
    _check_command(argv)

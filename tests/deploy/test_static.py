"""compose.yaml, the Dockerfile, the systemd units and the phone scripts, checked statically (every
run, no engine needed): they parse, every command names a real ``pitwall`` subcommand and flag, and
ports and volumes agree with the settings. ``scripts/compose-check`` runs the stack for real."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from shared.cli import build_app
from shared.settings import settings_for

REPO = Path(__file__).resolve().parents[2]
HEALTHCHECK_IN_IMAGE = "/opt/pitwall/healthcheck.py"


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


def _compose() -> dict[str, Any]:
    return yaml.safe_load((REPO / "compose.yaml").read_text())


def test_compose_services_are_real_healthy_non_root_and_consistent() -> None:
    doc = _compose()
    pitwall = {n: s for n, s in doc["services"].items() if s.get("command", [""])[0] == "pitwall"}
    assert set(pitwall) == {"hotpath", "paddock"}
    for name, svc in pitwall.items():
        _check_command(svc["command"])
        assert svc["healthcheck"]["test"], name
        assert svc["restart"] in ("unless-stopped", "always", "on-failure")
        assert svc.get("user") not in (None, "0", "root")
        port = svc["environment"][f"PITWALL_{name.upper()}_PORT"]
        assert any(p.endswith(f":{port}") for p in svc["ports"]) and f"--port {port}" in " ".join(
            svc["command"]
        )
        check = svc["healthcheck"]["test"]
        assert (
            check[:3] == ["CMD", "python", HEALTHCHECK_IN_IMAGE]
            and check[3] == f"http://127.0.0.1:{port}/health"
        )
        # the image is immutable at run time: writes go to the volumes and a small /tmp only
        assert svc["read_only"] is True and any(t.startswith("/tmp") for t in svc["tmpfs"])
        assert svc["cap_drop"] == ["ALL"] and "no-new-privileges:true" in svc["security_opt"]
        assert "PITWALL_API_TOKEN" in svc["environment"]  # they bind 0.0.0.0: the settings demand a token
    assert doc["services"]["paddock"]["depends_on"]["hotpath"]["condition"] == "service_healthy"


def test_compose_raises_the_hot_paths_priority_where_the_user_may(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PITWALL_HOTPATH_NICE=-10`` is a setting the hot path reads, and its container lets a non-root user
    apply it: ``CAP_SYS_NICE`` added back (after ``cap_drop: [ALL]``) and a nice ulimit whose ceiling
    (20 - limit, setrlimit(2)) reaches it; the paddock keeps no such right."""
    doc = _compose()
    hot, pad = doc["services"]["hotpath"], doc["services"]["paddock"]
    monkeypatch.setenv("PITWALL_HOTPATH_NICE", hot["environment"]["PITWALL_HOTPATH_NICE"])
    nice = settings_for(tmp_path).hotpath_nice  # the setting the hot path reads, by that name
    assert nice == -10
    assert hot["cap_add"] == ["SYS_NICE"] and hot["cap_drop"] == ["ALL"]
    assert 20 - int(hot["ulimits"]["nice"]) <= nice
    assert "cap_add" not in pad and "ulimits" not in pad and "PITWALL_HOTPATH_NICE" not in pad["environment"]


def test_compose_volumes_keep_one_writer_per_store() -> None:
    doc = _compose()
    s = settings_for(Path("/data"))
    mounts = {
        n: {v.split(":")[1]: v.split(":")[2:] for v in svc.get("volumes", [])}
        for n, svc in doc["services"].items()
    }
    hot, pad = mounts["hotpath"], mounts["paddock"]
    assert hot[str(s.hot_dir)] == [] and hot[str(s.lake_dir)] == []  # the hot path writes hot/ and lake/
    assert str(s.hot_dir) not in pad  # the paddock never sees the hot DuckDB file
    assert pad[str(s.lake_dir)] == ["ro"] and pad[str(s.gold_dir)] == ["ro"] and pad[str(s.paddock_dir)] == []
    for svc in ("hotpath", "paddock"):
        assert doc["services"][svc]["environment"]["PITWALL_DATA_DIR"] == "/data"
    named = {v.split(":")[0] for svc in doc["services"].values() for v in svc.get("volumes", [])}
    assert named <= set(doc["volumes"])


def test_compose_llm_profile_is_ollama_with_a_configurable_model() -> None:
    doc = _compose()
    llm = doc["services"]["llm"]
    assert llm["profiles"] == ["llm"] and llm["image"].startswith("ollama/ollama:")
    assert (
        "PITWALL_MODEL" in llm["environment"]["PITWALL_MODEL"] and "$$PITWALL_MODEL" in llm["entrypoint"][-1]
    )
    pad = doc["services"]["paddock"]
    assert pad["depends_on"]["llm"]["required"] is False  # the paddock runs without the profile too
    assert "llm:11434/v1" in pad["environment"]["PITWALL_ADK_OPENAI_URL"]
    assert pad["environment"]["PITWALL_ADK_ALLOW_REMOTE"] == "true"
    # a model server on the host is reachable as host.docker.internal, on Linux too
    assert "host.docker.internal:host-gateway" in pad["extra_hosts"]


def test_dockerfile_is_multistage_non_root_and_pinned() -> None:
    text = (REPO / "deploy" / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) >= 2
    assert re.search(r"^USER (?!root)\S+", text, re.M)
    assert "useradd --create-home --uid 10001" in text  # the uid compose runs as
    assert "-c constraints.txt" in text and (REPO / "constraints.txt").is_file()
    assert re.search(r"^EXPOSE 8710 8720$", text, re.M)
    cmd = re.search(r"^CMD (\[.*\])", text, re.M)
    assert cmd
    _check_command(yaml.safe_load(cmd.group(1)))
    for copied in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.M):
        for src in copied.split():
            assert (REPO / src).exists(), f"Dockerfile copies missing {src}"


def test_systemd_units_run_real_commands() -> None:
    for unit in ("pitwall-hotpath.service", "pitwall-paddock.service"):
        text = (REPO / "deploy" / "systemd" / unit).read_text()
        exec_start = re.search(r"^ExecStart=(.*)$", text, re.M)
        assert exec_start, unit
        argv = shlex.split(exec_start.group(1))
        argv[0] = "pitwall"
        _check_command(argv)
        assert re.search(r"^User=(?!root)\S+", text, re.M)


def test_phone_scripts_use_localllm_and_the_can_adapter() -> None:
    start = (REPO / "deploy" / "phone" / "start.sh").read_text()
    assert "http://127.0.0.1:8080/v1" in start and "slcan:/dev/ttyACM0" in start
    for line in start.splitlines():
        if '"$PITWALL" ' in line:
            argv = shlex.split(line.split("nohup", 1)[1].split(">")[0].replace('"$PITWALL"', "pitwall"))
            _check_command(argv)
    for script in ("install.sh", "start.sh", "stop.sh"):
        text = (REPO / "deploy" / "phone" / script).read_text()
        assert text.startswith("#!/data/data/com.termux/files/usr/bin/bash"), script
    assert "-c constraints.txt" in (REPO / "deploy" / "phone" / "install.sh").read_text()

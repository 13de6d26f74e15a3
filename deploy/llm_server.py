"""The ``llm-local`` model server: ``python -m llama_cpp.server ARGS`` with llama.cpp's extra buffer
types (weight repacking, Intel AMX tiles) turned off.

A llama.cpp built for a CPU that reports AMX dies with a general protection fault in its AMX matmul on
the first prompt of more than one token when the (virtual) machine does not really grant the tile state,
as on this project's 2-core machine (measured: exit 139 in and outside a container). SmolLM2's Q4_1
weights gain nothing from repacking on a small CPU, so the plain CPU kernels are used everywhere.
The paddock's embedded server (``services/paddock/llm/embedded.py``) does the same outside Docker.

``PITWALL_LLM_THREADS=N`` sets both llama.cpp thread counts (generation and prompt evaluation). Unset,
llama.cpp's defaults apply (half the cores for generation, all for the prompt), right for an idle
laptop. On a busy or 2-core machine 1 is faster: llama.cpp's threads spin while they wait for each
other, so one descheduled thread stalls the rest (measured here at load average 8: a 1,922-token prompt
in 37 s with 1 thread, 185 s with 2)."""

from __future__ import annotations

import os
import sys
from typing import Any


def main(argv: list[str]) -> None:
    threads = os.environ.get("PITWALL_LLM_THREADS", "").strip()
    if threads:
        if not threads.isdigit() or int(threads) < 1:
            sys.exit(f"PITWALL_LLM_THREADS must be a whole number >= 1, not {threads!r}")
        argv = [*argv, "--n_threads", threads, "--n_threads_batch", threads]
    import llama_cpp.llama_cpp as ll

    default_params = ll.llama_model_default_params

    def model_params() -> Any:
        params = default_params()
        params.use_extra_bufts = False
        return params

    ll.llama_model_default_params = model_params
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *argv]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])

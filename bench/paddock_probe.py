"""``pitwall paddock`` timed from inside, for ``bench/lake_fleet.py --probe`` (a bench tool, not the product).

    python bench/paddock_probe.py OUT.json paddock --port P --data-dir D

Runs the paddock CLI of the tree on ``PYTHONPATH`` with three probes, and writes what they saw to
``OUT.json`` when the app shuts down:

* each HTTP request: when uvicorn's protocol last received bytes before it (``data``), when the app was
  called (``app``: the wait between the two is the event loop running other callbacks first), when the
  last body byte was handed to the transport (``end``), and the loop thread's CPU and its wait for a core
  (``/proc/thread-self/schedstat``) over the handler; what is left of the handler's wall time is the wait
  for the GIL. Times are ``time.perf_counter()`` (CLOCK_MONOTONIC, the client's clock too);
* every event-loop callback that ran longer than 5 ms once the app has started (the loop's slow-callback
  log: debug mode, which costs the loop a little): when, how long, and what it was;
* nothing else is changed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from typing import Any

OUT = sys.argv.pop(1)
SLOW_S = 0.005
requests: list[dict[str, Any]] = []
slow: list[dict[str, Any]] = []
last_data = [0.0]


def _run_delay() -> float:
    with open("/proc/thread-self/schedstat", "rb") as f:
        return int(f.read().split()[1]) / 1e9


class SlowCallbacks(logging.Handler):
    """The loop's slow-callback log (debug mode, ``slow_callback_duration``; uvloop and asyncio alike log
    ``Executing <handle> took N seconds`` when the callback returns), kept with its start time."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("Executing") and isinstance(record.args, tuple) and len(record.args) == 2:
            what, took = record.args
            slow.append({"t": time.perf_counter() - float(took), "s": float(took), "what": str(what)[:240]})


def _timed_receive() -> None:
    from uvicorn.protocols.http import h11_impl, httptools_impl

    for cls in (h11_impl.H11Protocol, httptools_impl.HttpToolsProtocol):
        received = cls.data_received

        def data_received(self: Any, data: bytes, _received: Any = received) -> None:
            last_data[0] = time.perf_counter()
            _received(self, data)

        cls.data_received = data_received  # type: ignore[method-assign]


class Probe:
    """The app, timed per request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":  # uvicorn ends by re-raising SIGTERM: no atexit, so write now

            async def send_then_dump(msg: Any) -> None:
                if msg["type"] == "lifespan.startup.complete":
                    loop = asyncio.get_running_loop()
                    loop.slow_callback_duration = SLOW_S
                    loop.set_debug(True)
                if msg["type"] == "lifespan.shutdown.complete":
                    _dump()
                await send(msg)

            return await self.app(scope, receive, send_then_dump)
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rec = {"path": scope["path"], "data": last_data[0], "app": time.perf_counter(),
               "cpu0": time.thread_time(), "wait0": _run_delay()}  # fmt: skip

        async def timed_send(msg: Any) -> None:
            await send(msg)
            if msg["type"] == "http.response.body" and not msg.get("more_body"):
                rec["end"] = time.perf_counter()
                rec["cpu_s"] = time.thread_time() - rec.pop("cpu0")
                rec["core_wait_s"] = _run_delay() - rec.pop("wait0")
                requests.append(rec)

        await self.app(scope, receive, timed_send)


def _dump() -> None:
    with open(OUT, "w") as f:
        json.dump({"requests": requests, "slow_callbacks": slow}, f)


def main() -> None:
    import services.paddock.app as paddock_app

    create_app = paddock_app.create_app
    paddock_app.create_app = lambda *a, **k: Probe(create_app(*a, **k))  # type: ignore[assignment]
    logging.getLogger("asyncio").addHandler(SlowCallbacks())
    logging.getLogger("asyncio").propagate = False  # kept, not written: writing them would load the loop
    _timed_receive()
    from shared.cli import main as cli

    cli()


if __name__ == "__main__":
    main()

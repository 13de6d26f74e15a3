"""One way to run a Pitwall HTTP service: its port is bound first, so a taken port is one line and an exit
at once (uvicorn alone binds only after the app has started, then waits for its threads), then uvicorn
serves on that socket. Each request's access line is a DEBUG record (``pitwall -vv``), not INFO: a
service's log says what it does, not every poll of the tablet."""

from __future__ import annotations

import errno
import logging
import os
import socket
from typing import Any

import uvicorn

log = logging.getLogger(__name__)


def loop_priority(nice: int, setting: str) -> None:
    """On the event loop's thread, at the end of start-up: that thread's nice (Linux: a nice per thread;
    threads started before keep theirs, threads it starts later inherit it). Under a loaded machine a
    request's or a cue's time is that thread waiting for a core, not its work (``bench/cue_latency.py``,
    ``bench/lake_fleet.py --probe``). Below 0 needs root, ``CAP_SYS_NICE`` or a nice ulimit; refused, one
    warning naming ``setting``. 0: left as started."""
    if not nice:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    except OSError as exc:
        log.warning("%s=%d not applied (%s): the event loop keeps its priority", setting, nice, exc)


class PortTaken(OSError):
    """The address cannot be bound: the message says which, why, and what to do."""


def listen(host: str, port: int, what: str) -> socket.socket:
    """A socket bound to ``host:port`` (as uvicorn binds it), or PortTaken naming ``what`` wanted it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart reuses a port in TIME_WAIT
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = (
            "another program is listening there"
            if exc.errno == errno.EADDRINUSE
            else exc.strerror or str(exc)
        )
        raise PortTaken(f"{what} cannot use {host}:{port}: {why}; give another --port") from None
    return sock


class RequestsAtDebug(logging.Filter):
    """uvicorn logs every request at INFO: here each is a DEBUG record, kept only while Pitwall logs at
    DEBUG (``-vv``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)


def serve(app: Any, sock: socket.socket, **config: Any) -> None:
    """uvicorn on ``sock`` (from ``listen``) with ``config`` (log level, timeouts, websocket options)."""
    host, port = sock.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, **config))  # configures its loggers
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RequestsAtDebug) for f in access.filters):
        access.addFilter(RequestsAtDebug())
    server.run(sockets=[sock])

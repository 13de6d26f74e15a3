"""One way to run a Pitwall HTTP service: its port is bound first, so a taken port is one line and an exit
at once (uvicorn alone binds only after the app has started, then waits for its threads), then uvicorn
serves on that socket."""

from __future__ import annotations

import errno
import socket
from typing import Any

import uvicorn


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


def serve(app: Any, sock: socket.socket, **config: Any) -> None:
    """uvicorn on ``sock`` (from ``listen``) with ``config`` (log level, timeouts, websocket options)."""
    host, port = sock.getsockname()[:2]
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, **config)).run(sockets=[sock])

"""What both HTTP services do before a request reaches a route: cap the body while it streams, refuse
JSON that is not JSON (NaN, Infinity, nesting deeper than any real request), and render every
request-validation error as a short 422 that echoes no large or non-finite input. Plus the event-loop
lag monitor whose figures both services show in ``/metrics``.

One ASGI middleware, :class:`RequestGuard`, added by each app factory; rejected requests are counted
per reason in :attr:`RequestGuard.rejected` (shown in ``/health`` and ``/metrics``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_ECHO_CHARS = 120


class BadJSON(ValueError):
    pass


def _no_constant(name: str) -> float:
    raise BadJSON(f"{name} is not a JSON number (send null or leave the field out)")


def strict_json_loads(text: str | bytes, allow_nan: bool = False, **hooks: Any) -> Any:
    """``json.loads`` that refuses NaN/Infinity (unless ``allow_nan``: telemetry frames count a
    non-finite value per reason instead), integers that overflow a float, and nesting deeper than the
    interpreter's recursion limit, raising :class:`BadJSON` with a message that says which. ``hooks``:
    more of ``json.loads``'s hooks (``object_pairs_hook``, ``parse_float``)."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJSON(f"not UTF-8 at byte {exc.start}") from None
    try:
        if allow_nan:
            return json.loads(text, parse_int=_int, **hooks)
        return json.loads(text, parse_constant=_no_constant, parse_int=_int, **hooks)
    except BadJSON:
        raise
    except RecursionError:
        raise BadJSON("nested too deeply") from None
    except ValueError as exc:
        raise BadJSON(str(exc)) from None


def _int(s: str) -> int:
    if len(s) > 300:  # beyond any float: 1e308 has 309 digits
        raise BadJSON(f"the integer {s[:12]}… ({len(s)} digits) is too large for a number")
    v = int(s)
    if abs(v) > 2**1023:
        raise BadJSON(f"the integer {s[:12]}… is too large for a number")
    return v


def short_errors(errors: list[dict[str, Any]] | Any) -> list[dict[str, Any]]:
    """Pydantic errors without large or non-finite inputs (a 422 must not echo a 5 MB body)."""
    out = []
    for e in list(errors)[:20]:
        item = {"type": e.get("type"), "loc": list(e.get("loc", ())), "msg": str(e.get("msg", ""))[:300]}
        if "input" in e:
            item["input"] = _short(e["input"])
        out.append(item)
    return out


def _short(v: Any) -> Any:
    if v is None or isinstance(v, bool | int):
        return v if not isinstance(v, int) or abs(v) < 2**53 else f"{str(v)[:12]}…"
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    try:
        text = v if isinstance(v, str) else repr(v)
    except RecursionError:
        text = f"(a deeply nested {type(v).__name__})"
    return text if len(text) <= _ECHO_CHARS else text[:_ECHO_CHARS] + f"… ({len(text)} chars)"


class RequestGuard:
    """ASGI middleware: body limit enforced while the body streams, strict JSON for JSON bodies.

    The body is read (up to ``max_body`` bytes) before the app runs and replayed to it, so nothing past
    the limit is ever buffered and a refused request never reaches a route.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_body: int,
        setting: str,
        rejected: Counter[str] | None = None,
        per_path: dict[str, tuple[int, str]] | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.setting = setting
        self.per_path = per_path or {}  # path -> (its own body limit, the setting that sets it)
        self.rejected: Counter[str] = rejected if rejected is not None else Counter()

    async def _refuse(self, send: Send, status: int, code: str, message: str) -> None:
        self.rejected[code] += 1
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers") or []}
        max_body, setting = self.per_path.get(scope.get("path", ""), (self.max_body, self.setting))
        too_big = f"the request body is over {max_body} bytes ({setting}); send less, or in smaller batches"
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > max_body:
            await self._refuse(send, 413, "too_large", too_big)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > max_body:
                await self._refuse(send, 413, "too_large", too_big)
                return
            chunks.append(chunk)
            more = bool(msg.get("more_body", False))
        body = b"".join(chunks)
        ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if body and (ctype == b"application/json" or ctype.endswith(b"+json")):
            try:
                strict_json_loads(body)
            except BadJSON as exc:
                await self._refuse(send, 422, "invalid_json", f"the JSON body is not valid: {exc}")
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        started = False

        async def sending(msg: Message) -> None:
            nonlocal started
            started |= msg["type"] == "http.response.start"
            await send(msg)

        try:
            await self.app(scope, replay, sending)
        except asyncio.CancelledError:  # the server stopping with this request still running (its graceful
            # shutdown timed out): one line and a 503, never a traceback
            log.warning("%s %s cut short: the service is stopping", scope.get("method"), scope.get("path"))
            if not started:
                await self._refuse(
                    send, 503, "stopping", "the service is stopping; ask again when it is back"
                )


class LoopLag:
    """How late the event loop wakes a 50 ms timer: the lag any request or stream would see. The window's
    quantiles are sorted once a second by the timer itself, not by each ``/health`` or ``/metrics``
    request (a sort of 1,200 samples per request is work on the loop that is not the request)."""

    def __init__(self, interval_s: float = 0.05, window: int = 1200, summary_every: int = 20) -> None:
        self.interval_s = interval_s
        self.samples: deque[float] = deque(maxlen=window)
        self.max_s = 0.0
        self.summary_every = summary_every
        self._quantiles = (0.0, 0.0)  # (p50, p99) of the window when last summarised
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        ticks = 0
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(self.interval_s)
            lag = max(0.0, time.perf_counter() - t0 - self.interval_s)
            self.samples.append(lag)
            self.max_s = max(self.max_s, lag)
            ticks += 1
            if ticks % self.summary_every == 0:
                self.summarise()

    def summarise(self) -> None:
        """The window's p50 and p99, sorted once."""
        s = sorted(self.samples)
        self._quantiles = (s[int(0.5 * len(s))], s[min(len(s) - 1, int(0.99 * len(s)))]) if s else (0.0, 0.0)

    def render(self, prefix: str) -> list[str]:
        return [
            f"# HELP {prefix}_event_loop_lag_seconds Event-loop wake-up lag over the last minute",
            f"# TYPE {prefix}_event_loop_lag_seconds gauge",
            f'{prefix}_event_loop_lag_seconds{{quantile="0.5"}} {self._quantiles[0]:.6f}',
            f'{prefix}_event_loop_lag_seconds{{quantile="0.99"}} {self._quantiles[1]:.6f}',
            f"# TYPE {prefix}_event_loop_lag_max_seconds gauge",
            f"{prefix}_event_loop_lag_max_seconds {self.max_s:.6f}",
        ]

    def as_dict(self) -> dict[str, float]:
        return {
            "p50_ms": round(self._quantiles[0] * 1000, 2),
            "p99_ms": round(self._quantiles[1] * 1000, 2),
            "max_ms": round(self.max_s * 1000, 2),
        }

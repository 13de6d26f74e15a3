"""What a logger file may make an import do: the guarded open, the size/rows/time-span limits and the
per-import time budget. Over a limit: an :class:`ImportLimitError` naming the file, the limit and the
``PITWALL_*`` setting, raised before anything is stored.

The limits come from :class:`shared.settings.Settings` (``import_*`` fields) through :func:`limits_scope`
(``shared.ingest.import_file`` opens one per import); outside a scope the settings of the process apply.
"""

from __future__ import annotations

import contextvars
import errno
import math
import os
import stat
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from shared.importers.errors import ImportFormatError, printable

if TYPE_CHECKING:
    from shared.importers.base import RawLog
    from shared.settings import Settings

T = TypeVar("T")


class ImportLimitError(ImportFormatError):
    """A file that would make the import exceed a limit (size, rows, time span, time budget)."""

    def __init__(self, path: Path | str, what: str, limit: str, setting: str) -> None:
        self.setting = setting
        super().__init__(path, "", f"at most {limit} ({setting})", what)


@dataclass
class ImportLimits:
    max_bytes: int
    max_rows: int
    max_span_s: float
    budget_s: float
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def from_settings(cls, settings: Settings) -> ImportLimits:
        return cls(
            settings.import_max_decompressed_bytes,
            settings.import_max_rows,
            settings.import_max_span_s,
            settings.import_time_budget_s,
        )

    @property
    def remaining_s(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)

    def check_time(self, path: Path, stage: str) -> None:
        if self.remaining_s <= 0:
            raise ImportLimitError(
                path,
                f"the import was still {stage} after {self.budget_s:g} s",
                f"{self.budget_s:g} s per import",
                "PITWALL_IMPORT_TIME_BUDGET_S",
            )


_CURRENT: contextvars.ContextVar[ImportLimits | None] = contextvars.ContextVar("import_limits", default=None)


def current_limits() -> ImportLimits:
    """The limits of the import under way; outside one, fresh limits from the process settings (never
    cached: a time budget must not start at the first import of a long-running process)."""
    lim = _CURRENT.get()
    if lim is None:
        from shared.settings import get_settings

        return ImportLimits.from_settings(get_settings())
    return lim


@contextmanager
def read_scope() -> Iterator[ImportLimits]:
    """The current import's limits, or a fresh scope (and time budget) for a read outside an import."""
    lim = _CURRENT.get()
    if lim is not None:
        yield lim
        return
    token = _CURRENT.set(current_limits())
    try:
        yield _CURRENT.get()  # type: ignore[misc]
    finally:
        _CURRENT.reset(token)


@contextmanager
def limits_scope(settings: Settings) -> Iterator[ImportLimits]:
    """The limits (and a fresh time budget) for one import."""
    token = _CURRENT.set(ImportLimits.from_settings(settings))
    try:
        yield _CURRENT.get()  # type: ignore[misc]
    finally:
        _CURRENT.reset(token)


def checked_path(path: Path | str) -> Path:
    """``path`` if it is a regular, readable file within the size limit; else an error that says what it is
    (missing, a directory, a FIFO, a device, a symlink loop, unreadable, too big)."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        what = {
            errno.ENOENT: "no such file",
            errno.ELOOP: "a symlink loop",
            errno.EACCES: "a file this user may not read",
            errno.ENOTDIR: "no such file (a parent is not a directory)",
            errno.ENAMETOOLONG: "a name too long for the file system",
        }.get(exc.errno or 0, f"not readable ({exc.strerror})")
        if exc.errno == errno.ENOENT and path.is_symlink():
            what = "a dangling symlink"
        raise ImportFormatError(path, "", "a logger file", what) from None
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise ImportFormatError(path, "", "a logger file", "a directory (give the files inside it)")
    if stat.S_ISFIFO(mode):
        raise ImportFormatError(path, "", "a logger file", "a FIFO (named pipe), not a file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise ImportFormatError(path, "", "a logger file", "a device, not a file")
    if stat.S_ISSOCK(mode):
        raise ImportFormatError(path, "", "a logger file", "a socket, not a file")
    if not stat.S_ISREG(mode):
        raise ImportFormatError(path, "", "a logger file", "not a regular file")
    if not os.access(path, os.R_OK):
        raise ImportFormatError(path, "", "a logger file", "a file this user may not read")
    lim = current_limits()
    if st.st_size > lim.max_bytes:
        raise ImportLimitError(
            path,
            f"a file of {st.st_size} bytes",
            f"{lim.max_bytes} bytes",
            "PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES",
        )
    return path


def inflate(path: Path, data: bytes) -> bytes:
    """zlib-decompress an XRZ body, refusing to expand beyond the decompressed-size limit."""
    lim = current_limits()
    d = zlib.decompressobj()
    out = bytearray()
    view = memoryview(data)
    step = 1 << 20
    try:
        for i in range(0, len(view), step):
            chunk = view[i : i + step]
            while chunk:
                out += d.decompress(chunk, max(1, lim.max_bytes + 1 - len(out)))
                if len(out) > lim.max_bytes:
                    raise ImportLimitError(
                        path,
                        f"XRZ data that expands beyond {lim.max_bytes} bytes",
                        f"{lim.max_bytes} bytes decompressed",
                        "PITWALL_IMPORT_MAX_DECOMPRESSED_BYTES",
                    )
                chunk = memoryview(d.unconsumed_tail)
            if d.eof:
                break
        out += d.flush()
    except zlib.error as exc:
        raise ImportFormatError(
            path, f"byte {len(data) - len(d.unused_data)}", "zlib-compressed XRZ data", str(exc)
        ) from None
    if not d.eof:
        raise ImportFormatError(
            path, f"byte {len(data)}", "the end of the zlib stream", "a truncated XRZ file"
        )
    return bytes(out)


def check_raw(raw: RawLog) -> RawLog:
    """Rows per channel, finite time stamps, and the time span of every channel within the limits."""
    lim = current_limits()
    for ch in raw.channels.values():
        n = len(ch.t_s)
        if n > lim.max_rows:
            raise ImportLimitError(
                raw.path,
                f"{n} samples of {printable(ch.name, 40)!r}",
                f"{lim.max_rows} rows per file",
                "PITWALL_IMPORT_MAX_ROWS",
            )
        if n == 0:
            continue
        lo, hi = float(ch.t_s.min()), float(ch.t_s.max())
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ImportFormatError(
                raw.path, "", f"finite time stamps in {printable(ch.name, 40)!r}", "NaN or infinity"
            )
        if hi - lo > lim.max_span_s:
            raise ImportLimitError(
                raw.path,
                f"{printable(ch.name, 40)!r} spans {hi - lo:.6g} s (a jump in its time stamps?)",
                f"{lim.max_span_s:g} s of log",
                "PITWALL_IMPORT_MAX_SPAN_S",
            )
    lim.check_time(raw.path, "reading the file")
    return raw


def run_bounded(path: Path, fn: Callable[[Any], T], arg: Any) -> T:
    """Run a parser that cannot be interrupted (libxrk holds the GIL) in a forked child, killed when the
    import's time budget runs out. Its result comes back pickled."""
    import multiprocessing as mp

    lim = current_limits()
    if "fork" not in mp.get_all_start_methods():
        return fn(arg)
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, arg), daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(max(0.0, lim.remaining_s)):
            raise ImportLimitError(
                path,
                f"parsing was still running after {lim.budget_s:g} s",
                f"{lim.budget_s:g} s per import",
                "PITWALL_IMPORT_TIME_BUDGET_S",
            )
        try:
            ok, value = recv.recv()
        except EOFError:
            raise ImportFormatError(
                path, "", "a file the parser can read", "the parser died (out of memory?)"
            ) from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        recv.close()
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def _child(send: Any, fn: Callable[[Any], Any], arg: Any) -> None:
    try:
        result = (True, fn(arg))
    except BaseException as exc:  # handed to the parent, which raises it
        result = (False, exc if isinstance(exc, Exception) else RuntimeError(repr(exc)))
    try:
        send.send(result)
    except Exception as exc:  # an unpicklable error
        send.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
    send.close()
    os._exit(0)


def first_bad_csv_line(lines: list[str], data_start: int, n: int, delim: str) -> str:
    """Where a CSV data block first breaks (a cut row, a stray cell, text in a number): ``line N``, counted
    from 1 over the whole file. Only called once a parse has failed, so the Python scan costs nothing
    on good files."""
    import csv

    reader = csv.reader(lines[data_start:], delimiter=delim)
    k = -1
    while True:
        k += 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error:
            return f"line {data_start + k + 1}"
        cells = [c.strip() for c in cells]
        while cells and cells[-1] == "":
            cells.pop()
        if not cells:
            continue
        if len(cells) > n:
            return f"line {data_start + k + 1}"
        for c in cells:
            if c.strip('"'):
                try:
                    float(c.strip('"'))
                except ValueError:
                    return f"line {data_start + k + 1}"
        if len(cells) < n and k + data_start + 1 < len(lines):
            return f"line {data_start + k + 1}"
        if len(cells) < n:
            return f"line {data_start + k + 1} (the last line: the file looks cut short)"
    return f"a line after line {data_start}"

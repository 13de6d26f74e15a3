"""Every file Pitwall writes, moves or deletes stays inside its root (the data directory or a part of it,
or the folder a user chose for an export): :func:`inside` is the one resolved-path check."""

from __future__ import annotations

from pathlib import Path


class PathEscapeError(ValueError):
    """A path that would leave its root (``..``, an absolute part, a symlink pointing out)."""


def inside(root: Path | str, *parts: str) -> Path:
    """``root / parts`` when, resolved (symlinks followed), it lies strictly inside ``root`` resolved;
    else :class:`PathEscapeError` naming it. Returned as joined (relative stays relative); nothing is
    created."""
    base = Path(root).resolve()
    for part in parts:
        if not part or "\x00" in part:
            raise PathEscapeError(f"{ascii(part)} cannot name a file inside {base}")
    target = base.joinpath(*parts).resolve()
    if target == base or not target.is_relative_to(base):
        shown = "/".join(ascii(p)[1:-1] for p in parts)
        raise PathEscapeError(f"{shown} would leave {base}: refused")
    return Path(root).joinpath(*parts)

"""Appending to files that other processes may write too: whole lines, never split.

The file transport and the delivery engine's spool both append with a single ``write`` on a
descriptor opened with ``O_APPEND``, so the kernel places the data at the current end of the file.
"""

from __future__ import annotations

import os

try:  # POSIX only; elsewhere O_APPEND alone keeps whole lines in practice.
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["append_line", "write_all"]


def append_line(fd: int, data: bytes) -> None:
    """Append ``data`` to the file open on ``fd`` (with ``O_APPEND``) as one unit.

    The exclusive ``flock`` keeps other cooperating writers out while a large
    line is written, and the loop finishes a short write, which can only happen
    on a full disk or a signal.

    Args:
        fd: a descriptor opened with ``O_WRONLY | O_APPEND``.
        data: the bytes to write, usually one JSON document and a newline.
    """
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        write_all(fd, data)
    finally:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``, finishing a short write (a full disk, a signal).

    Args:
        fd: an open descriptor.
        data: the bytes to write.
    """
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]

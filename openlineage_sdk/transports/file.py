"""A transport that appends each event as one line of a JSON Lines file.

Several processes may write the same file at once (Spark executors, Airflow
workers, parallel tests): every event is written with a single ``write`` on a
descriptor opened with ``O_APPEND``, so the kernel places it at the current end
of the file, and the write happens under an exclusive ``flock`` so a line can
never be split by another writer, whatever its size. The file is reopened when
it is rotated or removed under us.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Literal

from pydantic import Field
from typing_extensions import Self

from openlineage_sdk.transports._append import append_line
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
)

__all__ = ["DEFAULT_FILE_NAME", "FileConfig", "FileTransport", "append_line"]

log = logging.getLogger(__name__)

#: Where events go when nothing is configured: a file in the working directory.
DEFAULT_FILE_NAME = "openlineage_events.jsonl"


class FileConfig(TransportConfig):
    """Configuration of :class:`FileTransport` (``type: file``).

    Attributes:
        log_file_path: the JSON Lines file (same key as the official client).
        append: kept for layout compatibility; this transport always appends
            one line per event to ``log_file_path``.
        fsync: call ``fsync`` after each event (durable, slower).
        raise_on_error: raise :class:`TransportError` when writing fails instead of logging.
    """

    type: Literal["file"] = "file"
    log_file_path: Path = Field(default=Path(DEFAULT_FILE_NAME))
    append: bool = True
    fsync: bool = False
    raise_on_error: bool = False


class FileTransport(Transport):
    """Appends every event as one compact JSON line to a file.

    Writing is synchronous: a local append costs microseconds, and an event is
    on disk (in the page cache, or on the device with ``fsync=True``) when
    :meth:`emit` returns.
    """

    kind = "file"
    config_class = FileConfig

    def __init__(
        self,
        path: str | os.PathLike[str] = DEFAULT_FILE_NAME,
        *,
        fsync: bool = False,
        raise_on_error: bool = False,
    ) -> None:
        """Make the transport; the file and its folder are created on the first event.

        Args:
            path: the JSON Lines file.
            fsync: flush each event to the device before returning.
            raise_on_error: raise :class:`TransportError` instead of logging when
                writing fails.
        """
        self.path = Path(path)
        self._fsync = fsync
        self._raise = raise_on_error
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._ino: tuple[int, int] | None = None
        self._delivered = 0

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from a :class:`FileConfig`."""
        assert isinstance(config, FileConfig)
        return cls(config.log_file_path, fsync=config.fsync, raise_on_error=config.raise_on_error)

    def _open(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        st = os.fstat(fd)
        self._fd, self._ino = fd, (st.st_dev, st.st_ino)
        return fd

    def _current_fd(self) -> int:
        fd = self._fd
        if fd is None:
            return self._open()
        # Reopen when the file was rotated or removed since we opened it, so
        # events keep landing in the file a reader looks at.
        try:
            st = os.stat(self.path)
            if (st.st_dev, st.st_ino) == self._ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)
        self._fd = None
        return self._open()

    def emit(self, event: Emittable) -> None:
        """Append the event's JSON as one line.

        Raises:
            TransportError: only with ``raise_on_error``, when the event cannot be written as
                JSON or the file cannot be written; otherwise the failure is logged.
        """
        try:
            data = (event.to_json() + "\n").encode()
        except Exception as exc:
            # A custom event that cannot write itself must not fail the pipeline either.
            if self._raise:
                raise TransportError(f"could not write the event as JSON: {exc}") from exc
            log.error("OpenLineage: could not write the event as JSON: %s", exc)
            return
        try:
            with self._lock:
                fd = self._current_fd()
                append_line(fd, data)
                if self._fsync:
                    os.fsync(fd)
                self._delivered += 1
        except OSError as exc:
            if self._raise:
                raise TransportError(f"could not append the event to {self.path}: {exc}") from exc
            log.error("OpenLineage: could not append the event to %s: %s", self.path, exc)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Every event is written at emit; report how many."""
        return FlushResult(delivered=self._delivered)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Close the file."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        return self.flush(timeout)

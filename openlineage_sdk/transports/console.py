"""A transport that prints each event as one JSON line on standard output or error."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Literal, TextIO

from typing_extensions import Self

from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
)

__all__ = ["ConsoleConfig", "ConsoleTransport"]

log = logging.getLogger(__name__)


class ConsoleConfig(TransportConfig):
    """Configuration of :class:`ConsoleTransport` (``type: console``).

    Attributes:
        stream: ``stdout`` (default) or ``stderr``.
        raise_on_error: raise :class:`TransportError` when writing fails instead of logging.
    """

    type: Literal["console"] = "console"
    stream: Literal["stdout", "stderr"] = "stdout"
    raise_on_error: bool = False


class ConsoleTransport(Transport):
    """Writes every event as one compact JSON line; handy while developing."""

    kind = "console"
    config_class = ConsoleConfig

    def __init__(self, stream: TextIO | None = None, *, raise_on_error: bool = False) -> None:
        """Make the transport.

        Args:
            stream: where to write; ``None`` means ``sys.stdout`` as it is at each
                emit (so pytest's capture and redirections keep working).
            raise_on_error: raise instead of logging when writing fails.
        """
        self._stream = stream
        self._raise = raise_on_error
        self._lock = threading.Lock()
        self._delivered = 0

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from a :class:`ConsoleConfig`."""
        assert isinstance(config, ConsoleConfig)
        stream = sys.stderr if config.stream == "stderr" else None
        return cls(stream, raise_on_error=config.raise_on_error)

    def emit(self, event: Emittable) -> None:
        """Write the event's JSON and a newline in one call.

        Raises:
            TransportError: only with ``raise_on_error``, when the event cannot be written as
                JSON or the stream fails; otherwise the failure is logged.
        """
        try:
            line = event.to_json() + "\n"
        except Exception as exc:
            if self._raise:
                raise TransportError(f"could not write the event as JSON: {exc}") from exc
            log.error("OpenLineage: could not write the event as JSON: %s", exc)
            return
        stream = self._stream if self._stream is not None else sys.stdout
        try:
            with self._lock:
                stream.write(line)
                stream.flush()
                self._delivered += 1
        except (OSError, ValueError) as exc:
            if self._raise:
                raise TransportError(f"could not write the event to the console: {exc}") from exc
            log.error("OpenLineage: could not write the event to the console: %s", exc)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Every event is written at emit; report how many."""
        return FlushResult(delivered=self._delivered)

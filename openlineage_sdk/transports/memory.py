"""An in-memory transport for tests: it keeps every event it is given."""

from __future__ import annotations

import logging
import threading
from typing import Literal

from typing_extensions import Self

from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
)

__all__ = ["MemoryConfig", "MemoryTransport"]

log = logging.getLogger("openlineage_sdk.transports")


class MemoryConfig(TransportConfig):
    """Configuration of :class:`MemoryTransport` (``type: memory``).

    Attributes:
        raise_on_error: raise :class:`TransportError` for an event that cannot be written as
            JSON, instead of logging it (what a test that wants to see the failure sets).
    """

    type: Literal["memory"] = "memory"
    raise_on_error: bool = False


class MemoryTransport(Transport):
    """Keeps emitted events in a list, for users' own tests.

    Example:
        >>> transport = MemoryTransport()
        >>> client = OpenLineage(transport=transport)  # doctest: +SKIP
        >>> ... run the job ...
        >>> [e.event_type for e in transport.events]  # doctest: +SKIP
        ['START', 'COMPLETE']
    """

    kind = "memory"
    config_class = MemoryConfig

    def __init__(self, *, raise_on_error: bool = False) -> None:
        self._raise = raise_on_error
        self._lock = threading.Lock()
        self._events: list[Emittable] = []
        self._json: list[str] = []
        self.closed = False

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from its configuration."""
        if not isinstance(config, MemoryConfig):
            raise TypeError(f"MemoryTransport needs a MemoryConfig, got {type(config).__name__}")
        return cls(raise_on_error=config.raise_on_error)

    def emit(self, event: Emittable) -> None:
        """Keep the event and its JSON as it was at the time of the call.

        Raises:
            TransportError: only with ``raise_on_error``, when the event cannot be written as
                JSON; otherwise the failure is logged and the event is not kept.
        """
        try:
            text = event.to_json()
        except Exception as exc:
            if self._raise:
                raise TransportError(f"could not write the event as JSON: {exc}") from exc
            log.error("OpenLineage: could not write the event as JSON: %s", exc)
            return
        # A composite hands members a wrapper that serializes once; keep the original.
        original = getattr(event, "__wrapped__", event)
        with self._lock:
            self._events.append(original)
            self._json.append(text)

    @property
    def events(self) -> list[Emittable]:
        """The events emitted so far, oldest first (a copy of the list)."""
        with self._lock:
            return list(self._events)

    @property
    def json_events(self) -> list[str]:
        """The JSON of each event as it was when emitted, oldest first."""
        with self._lock:
            return list(self._json)

    def clear(self) -> None:
        """Forget every event kept so far."""
        with self._lock:
            self._events.clear()
            self._json.clear()

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Nothing is ever pending: every event is already kept."""
        with self._lock:
            return FlushResult(delivered=len(self._events))

    def close(self, timeout: float | None = None) -> FlushResult:
        """Mark the transport closed; the events stay readable."""
        self.closed = True
        return self.flush(timeout)

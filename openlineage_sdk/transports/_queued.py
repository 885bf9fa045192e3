"""What the queued network transports (HTTP, Kafka) share: delivery settings and the engine.

A queued transport serializes an event on the caller's thread and hands the
bytes to a :class:`~openlineage_sdk.transports._delivery.engine.DeliveryEngine`,
which delivers them from its own threads through the transport's sender.
Subclasses bring a configuration class and a sender; emitting, flushing,
closing and the spool are the same for all of them.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar, cast

from pydantic import Field
from typing_extensions import Self

from openlineage_sdk.transports._delivery.engine import DeliveryEngine
from openlineage_sdk.transports._delivery.options import DeliveryOptions
from openlineage_sdk.transports._delivery.protocol import BatchSender
from openlineage_sdk.transports._delivery.spool import default_spool_dir
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
    event_key,
)

__all__ = ["DeliveryConfig", "QueuedTransport"]

log = logging.getLogger("openlineage_sdk.transports")


class DeliveryConfig(TransportConfig):
    """The delivery settings of a queued transport; each transport may change the defaults.

    Attributes:
        batch_size: the most events handed to the sender at once.
        max_queue_size: events held in memory before they go to the spool.
        max_concurrent_requests: sender threads (batches in flight at once).
        spool: keep undeliverable events in a local spool file (on by default).
        spool_dir: the spool folder; by default ``$XDG_CACHE_HOME/openlineage-sdk/spool``,
            else ``~/.cache/openlineage-sdk/spool``.
        spool_max_bytes: the most this process writes to the spool.
        backoff_initial: first retry delay, seconds.
        backoff_max: longest retry delay, seconds.
        flush_timeout: default seconds ``flush()`` waits.
        close_timeout: default seconds ``close()`` and the exit handler wait.
        raise_on_error: raise instead of only logging delivery problems.
    """

    batch_size: int = Field(default=100, ge=1)
    max_queue_size: int = Field(default=10_000, ge=1)
    max_concurrent_requests: int = Field(default=2, ge=1, le=16)
    spool: bool = True
    spool_dir: Path | None = None
    spool_max_bytes: int = Field(default=1 << 30, ge=0)
    backoff_initial: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=30.0, ge=0)
    flush_timeout: float = Field(default=10.0, ge=0)
    close_timeout: float = Field(default=10.0, ge=0)
    raise_on_error: bool = False

    def delivery_options(self, **extra: Any) -> DeliveryOptions:
        """The engine's options from these settings.

        Args:
            **extra: options only one transport has (e.g. ``retry_after_max``).
        """
        spool_dir = None
        if self.spool:
            spool_dir = self.spool_dir if self.spool_dir is not None else default_spool_dir()
        return DeliveryOptions(
            max_queue_size=self.max_queue_size,
            concurrency=self.max_concurrent_requests,
            spool_dir=spool_dir,
            spool_max_bytes=self.spool_max_bytes,
            backoff_initial=self.backoff_initial,
            backoff_max=self.backoff_max,
            flush_timeout=self.flush_timeout,
            close_timeout=self.close_timeout,
            raise_on_error=self.raise_on_error,
            **extra,
        )


ConfigT = TypeVar("ConfigT", bound=DeliveryConfig)


class QueuedTransport(Transport, Generic[ConfigT]):
    """A transport whose events are delivered asynchronously, in order, by a delivery engine.

    ``emit`` takes the event's JSON and returns at once; sender threads deliver
    it. Subclasses set ``config_class`` and implement :meth:`_sender`.
    """

    config_class: ClassVar[type[DeliveryConfig]] = DeliveryConfig

    def __init__(self, config: ConfigT | None = None, /, **settings: Any) -> None:
        """Make the transport and start delivering.

        Args:
            config: the configuration; or pass its fields as keyword arguments,
                e.g. ``HttpTransport(url="http://localhost:5000")``.
            **settings: fields of the configuration; with ``config``, they
                replace its values (and are checked like them).
        """
        if config is None:
            config = cast(ConfigT, self.config_class(**settings))
        elif settings:
            config = type(config)(**{**dict(config), **settings})
        self.config: ConfigT = config
        self._engine = DeliveryEngine(self._sender(config), self._options(config))

    @abstractmethod
    def _sender(self, config: ConfigT) -> BatchSender:
        """The sender that delivers batches to this transport's destination."""

    def _options(self, config: ConfigT) -> DeliveryOptions:
        return config.delivery_options()

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from an instance of its ``config_class``."""
        if not isinstance(config, cls.config_class):
            raise TypeError(
                f"{cls.__name__} needs a {cls.config_class.__name__}, got {type(config).__name__}"
            )
        return cls(cast(ConfigT, config))

    @property
    def spool_path(self) -> Path | None:
        """The folder holding this destination's spool files, if spooling is on."""
        return self._engine.spool_path

    def emit(self, event: Emittable) -> None:
        """Queue the event for delivery and return at once.

        Args:
            event: the event; its JSON is taken now.
        """
        try:
            data = event.to_json().encode()
        except Exception as exc:
            if self.config.raise_on_error:
                raise TransportError(f"could not serialize the event: {exc}") from exc
            log.error("OpenLineage: could not serialize the event, it was not sent: %s", exc)
            return
        self._engine.submit(self._ordering_key(event), data)

    def _ordering_key(self, event: Emittable) -> str:
        """The key that orders ``event``: events with the same key are delivered in emission order.

        It picks the event's lane (see :mod:`~openlineage_sdk.transports._delivery.lanes`) and
        is handed to the sender with the event's JSON. By default :func:`event_key`.
        """
        return event_key(event)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Wait up to ``timeout`` seconds for queued events to be delivered.

        Events still undelivered when time runs out are written to the spool.

        Args:
            timeout: seconds; ``None`` means ``flush_timeout`` (10 s by default).

        Returns:
            What was delivered and what still waits (``pending`` in memory,
            ``spooled`` on disk).
        """
        return self._engine.flush(timeout)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Deliver what can be delivered within ``timeout``, spool the rest, stop.

        Args:
            timeout: seconds; ``None`` means ``close_timeout`` (10 s by default).

        Returns:
            The final summary; spooled events are sent by the next process.
        """
        return self._engine.close(timeout)

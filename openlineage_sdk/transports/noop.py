"""A transport that drops every event, used when lineage is disabled."""

from __future__ import annotations

from typing import Literal

from typing_extensions import Self

from openlineage_sdk.transports.base import Emittable, Transport, TransportConfig

__all__ = ["NoopConfig", "NoopTransport"]


class NoopConfig(TransportConfig):
    """Configuration of :class:`NoopTransport` (``type: noop``)."""

    type: Literal["noop"] = "noop"


class NoopTransport(Transport):
    """Accepts events and does nothing with them (``OPENLINEAGE_DISABLED=true``)."""

    kind = "noop"
    config_class = NoopConfig

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport; the configuration has no options."""
        return cls()

    def emit(self, event: Emittable) -> None:
        """Drop the event without even serializing it."""

"""Destinations for OpenLineage events.

Names are imported on first use, so importing this package does not import
httpx or confluent_kafka; see :mod:`openlineage_sdk.transports.base` for the
contract every transport follows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openlineage_sdk.transports._registry import (
        ENTRY_POINT_GROUP,
        TransportConfigError,
        available_kinds,
        create_transport,
        parse_transport_config,
        transport_class,
    )
    from openlineage_sdk.transports.base import (
        DeliveryError,
        Emittable,
        FlushResult,
        Transport,
        TransportConfig,
        TransportError,
        event_key,
    )
    from openlineage_sdk.transports.composite import CompositeConfig, CompositeTransport
    from openlineage_sdk.transports.console import ConsoleConfig, ConsoleTransport
    from openlineage_sdk.transports.file import FileConfig, FileTransport
    from openlineage_sdk.transports.http import ApiKeyAuth, HttpConfig, HttpTransport
    from openlineage_sdk.transports.kafka import KafkaConfig, KafkaTransport
    from openlineage_sdk.transports.memory import MemoryConfig, MemoryTransport
    from openlineage_sdk.transports.noop import NoopConfig, NoopTransport

__all__ = [
    "ENTRY_POINT_GROUP",
    "ApiKeyAuth",
    "CompositeConfig",
    "CompositeTransport",
    "ConsoleConfig",
    "ConsoleTransport",
    "DeliveryError",
    "Emittable",
    "FileConfig",
    "FileTransport",
    "FlushResult",
    "HttpConfig",
    "HttpTransport",
    "KafkaConfig",
    "KafkaTransport",
    "MemoryConfig",
    "MemoryTransport",
    "NoopConfig",
    "NoopTransport",
    "Transport",
    "TransportConfig",
    "TransportConfigError",
    "TransportError",
    "available_kinds",
    "create_transport",
    "event_key",
    "parse_transport_config",
    "transport_class",
]

_WHERE = {
    "ENTRY_POINT_GROUP": "_registry",
    "TransportConfigError": "_registry",
    "available_kinds": "_registry",
    "create_transport": "_registry",
    "parse_transport_config": "_registry",
    "transport_class": "_registry",
    "DeliveryError": "base",
    "Emittable": "base",
    "FlushResult": "base",
    "Transport": "base",
    "TransportConfig": "base",
    "TransportError": "base",
    "event_key": "base",
    "CompositeConfig": "composite",
    "CompositeTransport": "composite",
    "ConsoleConfig": "console",
    "ConsoleTransport": "console",
    "FileConfig": "file",
    "FileTransport": "file",
    "ApiKeyAuth": "http",
    "HttpConfig": "http",
    "HttpTransport": "http",
    "KafkaConfig": "kafka",
    "KafkaTransport": "kafka",
    "MemoryConfig": "memory",
    "MemoryTransport": "memory",
    "NoopConfig": "noop",
    "NoopTransport": "noop",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)

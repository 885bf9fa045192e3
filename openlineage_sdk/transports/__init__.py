"""Destinations for OpenLineage events.

Names are imported on first use, so importing this package does not import
httpx or confluent_kafka; :class:`Transport` is the contract every transport
follows, and :func:`create_transport` makes one from its configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openlineage_sdk._lazy import lazy_exports

if TYPE_CHECKING:
    from openlineage_sdk.transports._registry import (
        ENTRY_POINT_GROUP,
        TransportConfigError,
        available_kinds,
        create_transport,
        parse_transport_config,
        transport_class,
    )
    from openlineage_sdk.transports.amazon_datazone import (
        AmazonDataZoneConfig,
        AmazonDataZoneTransport,
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
    from openlineage_sdk.transports.datadog import DatadogConfig, DatadogTransport
    from openlineage_sdk.transports.file import FileConfig, FileTransport
    from openlineage_sdk.transports.gcplineage import GcpLineageConfig, GcpLineageTransport
    from openlineage_sdk.transports.gcs import GcsConfig, GcsTransport
    from openlineage_sdk.transports.http import (
        ApiKeyAuth,
        CustomAuth,
        HttpConfig,
        HttpRetry,
        HttpSslContext,
        HttpTransport,
        JwtAuth,
        OAuth2Auth,
    )
    from openlineage_sdk.transports.kafka import (
        KafkaConfig,
        KafkaTransport,
        MskIamConfig,
        MskIamTransport,
    )
    from openlineage_sdk.transports.kinesis import KinesisConfig, KinesisTransport
    from openlineage_sdk.transports.memory import MemoryConfig, MemoryTransport
    from openlineage_sdk.transports.noop import NoopConfig, NoopTransport
    from openlineage_sdk.transports.s3 import S3Config, S3Transport
    from openlineage_sdk.transports.transform import (
        EventTransformer,
        JobNamespaceReplaceTransformer,
        TransformConfig,
        TransformTransport,
    )

__all__ = [
    "ENTRY_POINT_GROUP",
    "AmazonDataZoneConfig",
    "AmazonDataZoneTransport",
    "ApiKeyAuth",
    "CompositeConfig",
    "CompositeTransport",
    "ConsoleConfig",
    "ConsoleTransport",
    "CustomAuth",
    "DatadogConfig",
    "DatadogTransport",
    "DeliveryError",
    "Emittable",
    "EventTransformer",
    "FileConfig",
    "FileTransport",
    "FlushResult",
    "GcpLineageConfig",
    "GcpLineageTransport",
    "GcsConfig",
    "GcsTransport",
    "HttpConfig",
    "HttpRetry",
    "HttpSslContext",
    "HttpTransport",
    "JobNamespaceReplaceTransformer",
    "JwtAuth",
    "KafkaConfig",
    "KafkaTransport",
    "KinesisConfig",
    "KinesisTransport",
    "MemoryConfig",
    "MemoryTransport",
    "MskIamConfig",
    "MskIamTransport",
    "NoopConfig",
    "NoopTransport",
    "OAuth2Auth",
    "S3Config",
    "S3Transport",
    "TransformConfig",
    "TransformTransport",
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

# Each name is imported on first access. Type checkers read the imports above instead: a
# module-level __getattr__ would make every misspelt name an Any for them.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "._registry": (
                "ENTRY_POINT_GROUP",
                "TransportConfigError",
                "available_kinds",
                "create_transport",
                "parse_transport_config",
                "transport_class",
            ),
            ".base": (
                "DeliveryError",
                "Emittable",
                "FlushResult",
                "Transport",
                "TransportConfig",
                "TransportError",
                "event_key",
            ),
            ".amazon_datazone": (
                "AmazonDataZoneConfig",
                "AmazonDataZoneTransport",
            ),
            ".composite": (
                "CompositeConfig",
                "CompositeTransport",
            ),
            ".console": (
                "ConsoleConfig",
                "ConsoleTransport",
            ),
            ".datadog": (
                "DatadogConfig",
                "DatadogTransport",
            ),
            ".file": (
                "FileConfig",
                "FileTransport",
            ),
            ".gcplineage": (
                "GcpLineageConfig",
                "GcpLineageTransport",
            ),
            ".gcs": (
                "GcsConfig",
                "GcsTransport",
            ),
            ".http": (
                "ApiKeyAuth",
                "CustomAuth",
                "HttpConfig",
                "HttpRetry",
                "HttpSslContext",
                "HttpTransport",
                "JwtAuth",
                "OAuth2Auth",
            ),
            ".kafka": (
                "KafkaConfig",
                "KafkaTransport",
                "MskIamConfig",
                "MskIamTransport",
            ),
            ".kinesis": (
                "KinesisConfig",
                "KinesisTransport",
            ),
            ".memory": (
                "MemoryConfig",
                "MemoryTransport",
            ),
            ".noop": (
                "NoopConfig",
                "NoopTransport",
            ),
            ".s3": (
                "S3Config",
                "S3Transport",
            ),
            ".transform": (
                "EventTransformer",
                "JobNamespaceReplaceTransformer",
                "TransformConfig",
                "TransformTransport",
            ),
        },
    )
